package dev.idempotency.engine;

import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.RecordKey;

/**
 * What a call does when the store fails to acquire its record: fail with the store's
 * exception ({@link StoreExceptions}), or run its method unprotected under
 * {@link StoreFailurePolicy#PROCEED}.
 */
final class StoreFailures {

	private final StoreFailurePolicy policy;

	private final InFlightCalls inFlight;

	private final StoreOutage outage;

	private final OutcomeReporter reporter;

	StoreFailures(StoreFailurePolicy policy, InFlightCalls inFlight, StoreOutage outage, OutcomeReporter reporter) {
		this.policy = policy;
		this.inFlight = inFlight;
		this.outage = outage;
		this.reporter = reporter;
	}

	/**
	 * Note that the store answered an acquire, which ends an outage.
	 */
	void answered() {
		this.outage.answered();
	}

	/**
	 * Decide what a call whose acquire failed does, and report it.
	 * @return {@code true} to run the method unprotected, {@code false} to fail the call
	 * with the store's exception
	 */
	boolean bypass(Call call, Operation operation, RecordKey record, RuntimeException ex) {
		if (proceedsUnprotected()) {
			this.outage.bypassed(record, ex);
			this.reporter.report(call, operation, record, Outcome.BYPASSED);
			return true;
		}
		this.reporter.report(call, operation, record, Outcome.STORE_ERROR);
		return false;
	}

	/**
	 * Return whether a call whose acquire failed runs its method unprotected: under
	 * {@link StoreFailurePolicy#PROCEED}, unless the engine refuses calls. A shutdown
	 * starts no method, and the failure may be the store's connections closing while
	 * another instance runs the same key.
	 * @return whether to run the method without a record
	 */
	boolean proceedsUnprotected() {
		return this.policy == StoreFailurePolicy.PROCEED && !this.inFlight.isRefusing();
	}

}
