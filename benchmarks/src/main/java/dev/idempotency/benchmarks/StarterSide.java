package dev.idempotency.benchmarks;

/**
 * The starter, as an application uses it: the {@code @Idempotent} method of a bean of the
 * Boot application.
 */
final class StarterSide implements Contender {

	private final Payments payments;

	StarterSide(Payments payments) {
		this.payments = payments;
	}

	@Override
	public Side side() {
		return Side.STARTER;
	}

	@Override
	public Receipt call(String id) {
		Receipt receipt = this.payments.charge(id);
		if (receipt == null) {
			throw new IllegalStateException("No receipt for " + id);
		}
		return receipt;
	}

	@Override
	public void check(Reference reference) {
		String id = Ids.unique(0, side().ordinal(), 1);
		if (!call(id).equals(call(id)) || !call(reference.id()).equals(Receipt.settled(reference.id()))) {
			throw new IllegalStateException("The starter does not replay what it stored");
		}
	}

	@Override
	public Protocol protocol() {
		return new Protocol(
				"`@Idempotent(key = \"#paymentId\")` on a bean of a Boot application (auto-configuration, "
						+ "`idempotency.store=redis`), the result encoded to JSON",
				"2: `EVALSHA acquire`, the method, `EVALSHA complete`", "1: `EVALSHA acquire`",
				"the stored result, decoded from JSON",
				"a lease renewed while the method runs; an expired attempt is taken over with a new fence, and the "
						+ "old owner's complete or release is refused; a duplicate of a call in flight is told so "
						+ "(rejected as in progress, or waits for the result); a failure releases the key");
	}

}
