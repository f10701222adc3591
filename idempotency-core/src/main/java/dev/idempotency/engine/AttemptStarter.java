package dev.idempotency.engine;

import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.RecordKey;

/**
 * Readies the method of an attempt that took its record: refuses one with too little of
 * its lease left to start, holds the record for it and renews its lease.
 */
final class AttemptStarter {

	private static final Log logger = LogFactory.getLog(IdempotencyEngine.class);

	private final LeaseRenewer renewer;

	private final LongSupplier nanoClock;

	private final StartMargin startMargin;

	private final OutcomeRecorder recorder;

	private final OutcomeReporter reporter;

	private final CallAdmission admission;

	private final MethodOutcomes outcomes;

	AttemptStarter(LeaseRenewer renewer, StartMargin startMargin, OutcomeRecorder recorder, OutcomeReporter reporter,
			CallAdmission admission, MethodOutcomes outcomes) {
		this.renewer = renewer;
		this.nanoClock = renewer.nanoClock();
		this.startMargin = startMargin;
		this.recorder = recorder;
		this.reporter = reporter;
		this.admission = admission;
		this.outcomes = outcomes;
	}

	LongSupplier nanoClock() {
		return this.nanoClock;
	}

	Attempt attempt(Operation operation, RecordKey record, AcquireRequest request, Acquired acquired, Claim claim) {
		return new Attempt(record, request.owner(), acquired.fence(), operation.settings().lockTimeout().toNanos(),
				claim.sentNanos(), this.nanoClock);
	}

	/**
	 * Ready the method of an attempt to start: refuse it if it is too late to start
	 * ({@link #tooLateToStart(Call, Operation, Attempt, boolean)}), else hold its record
	 * and renew its lease ({@link #renew}).
	 * @return the renewal, to stop once the outcome is recorded
	 * @throws IdempotencyLockLostException if it is too late to start
	 * @throws IdempotencyShutdownException if the engine refuses calls
	 */
	Renewal start(Call call, Operation operation, Attempt attempt, Ticket ticket) throws Throwable {
		IdempotencyLockLostException late = tooLateToStart(call, operation, attempt, true);
		if (late != null) {
			throw late;
		}
		return renew(call, operation, attempt, ticket);
	}

	/**
	 * Refuse to start the method of an attempt with too little of its lease left
	 * ({@link Attempt#canStart()}) even after one renewal ({@link StartMargin}), renewing
	 * first only if asked: a renewal might not reach the store before the lease ends, and
	 * a duplicate could then take the record over while the method runs; a batch whose
	 * store failed to renew one item in time does not wait for a renewal before each
	 * later item. The record is released at once, so that the next delivery need not wait
	 * for the lease, and the call is reported {@link Outcome#LOCK_LOST}.
	 * @return the exception to fail the call with, or {@code null} when the method may
	 * start
	 */
	@Nullable IdempotencyLockLostException tooLateToStart(Call call, Operation operation, Attempt attempt, boolean renew) {
		if (this.startMargin.mayStart(attempt, operation.settings(), renew)) {
			return null;
		}
		long leftMillis = Math.max(0, attempt.leaseLeftNanos()) / 1_000_000;
		long leaseMillis = attempt.leaseNanos() / 1_000_000;
		long sinceGrantMillis = (this.nanoClock.getAsLong() - attempt.grantedNanos()) / 1_000_000;
		IdempotencyLockLostException ex = new IdempotencyLockLostException("Attempt with fence " + attempt.fence()
				+ " of operation '" + operation.name() + "' did not run for key '" + attempt.key() + "': " + leftMillis
				+ " ms of its " + leaseMillis + " ms lease " + ((leftMillis == 1) ? "was" : "were") + " left "
				+ sinceGrantMillis + " ms after its acquire was sent, less than the third it needs to start, and "
				+ (renew ? "a renewal did not confirm a new lease in time"
						: "the store did not renew an earlier item of its batch in time")
				+ "; its record was released for the next delivery");
		logger.warn(ex.getMessage() + ". Raise the lock timeout of operation '" + operation.name()
				+ "' if the store's replies are this slow (replica acknowledgements, a large batch, a slow link).");
		this.reporter.report(call, operation, attempt.record(), Outcome.LOCK_LOST);
		this.recorder.release(attempt, operation.settings().retention(), ex);
		return ex;
	}

	/**
	 * Hold the record for the attempt's method and start renewing its lease; if the
	 * engine refuses calls by now (a shutdown began while the acquire was on its way) or
	 * renewing fails, the method never runs and the record is released at once rather
	 * than after a whole lease.
	 * @throws IdempotencyShutdownException if the engine refuses calls
	 */
	Renewal renew(Call call, Operation operation, Attempt attempt, Ticket ticket) throws Throwable {
		OperationSettings settings = operation.settings();
		if (!ticket.hold(attempt, settings.retention())) {
			IdempotencyShutdownException refusal = this.admission.refused(call, operation, attempt.record());
			this.recorder.release(attempt, settings.retention(), refusal);
			throw refusal;
		}
		try {
			return this.renewer.start(attempt, settings.lockTimeout(), settings.retention());
		}
		catch (Throwable ex) {
			this.outcomes.released(call, operation, attempt, ex);
			throw ex;
		}
	}

}
