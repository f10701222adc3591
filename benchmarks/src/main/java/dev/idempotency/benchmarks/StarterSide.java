package dev.idempotency.benchmarks;

/**
 * The starter, as an application uses it: the {@code @Idempotent} method of a bean of the
 * Boot application.
 */
final class StarterSide implements Contender {

	private final Payments payments;

	private final Side side;

	StarterSide(Payments payments, Side side) {
		this.payments = payments;
		this.side = side;
	}

	@Override
	public Side side() {
		return this.side;
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
		if (this.side == Side.STARTER_ACKS) {
			return new Protocol("the same, with `idempotency.redis.replica-acks=1`",
					"2, each followed by `WAIT 1`: `EVALSHA acquire`, `WAIT`, the method, `EVALSHA complete` and "
							+ "`WAIT` written together",
					"1, followed by `WAIT 1`: `EVALSHA acquire` (which writes the record's expiry again, "
							+ "unchanged, so that the result it replays is known to be on the replica)",
					"the stored result, decoded from JSON",
					"as the starter; a claim or a result is acknowledged by a replica before the call goes on, so "
							+ "a failover to that replica keeps it");
		}
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
