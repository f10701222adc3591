package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyLockLostException;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.UnreplicatedWriteException;

/**
 * Records the outcome of an attempt that ran: completes or releases its record, retrying
 * a failed store call with back-off. Both transitions are safe to re-send (the store
 * answers a repeat by the same owner as a success), and giving up too soon would leave an
 * effect that happened unrecorded, to be run again after the lease. Retries stop once the
 * attempt no longer holds its lease (another may have taken over: the store call would be
 * refused anyway), or a lock timeout after the first failure, whichever comes first, so
 * that a caller waits a bounded time.
 * <p>
 * The caller's interrupt flag is cleared for the store calls and the pauses between them,
 * and restored afterwards: a client may refuse to wait on an interrupted thread after it
 * has sent the command, and the record would then complete while the caller is told it
 * failed.
 */
final class OutcomeRecorder {

	private static final Log logger = LogFactory.getLog(OutcomeRecorder.class);

	private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * A deadline that never comes: retries are bounded by the attempt's own lock timeout
	 * alone.
	 */
	static final long NO_DEADLINE = Long.MIN_VALUE;

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	OutcomeRecorder(IdempotencyStore store, LongSupplier nanoClock) {
		this.store = store;
		this.nanoClock = nanoClock;
	}

	IdempotencyStore store() {
		return this.store;
	}

	/**
	 * Complete an attempt's record.
	 * @param attempt the attempt
	 * @param stored its outcome
	 * @param retention how long to keep it
	 * @throws IdempotencyLockLostException if another attempt took the record over
	 * @throws IdempotencyCompletionException if the store kept failing
	 */
	void complete(Attempt attempt, StoredResult stored, Duration retention) {
		complete(attempt, stored, retention, NO_DEADLINE);
	}

	/**
	 * Complete an attempt's record, retrying no later than a deadline shared with other
	 * records, such as those of one batch.
	 * @param attempt the attempt
	 * @param stored its outcome
	 * @param retention how long to keep it
	 * @param deadlineNanos when to stop retrying at the latest, on the engine's clock, or
	 * {@link #NO_DEADLINE}
	 * @throws IdempotencyLockLostException if another attempt took the record over
	 * @throws IdempotencyCompletionException if the store kept failing
	 */
	void complete(Attempt attempt, StoredResult stored, Duration retention, long deadlineNanos) {
		boolean completed;
		boolean joined = AfterCommit.completesInTransaction(this.store);
		BooleanSupplier completion = () -> this.store.complete(attempt.record(), attempt.owner(), attempt.fence(),
				stored, retention);
		try {
			// Never again inside a transaction the store joins: a failed statement may
			// have aborted it (PostgreSQL then refuses every statement until the
			// rollback) or a deadlock rolled it back; the exception rolls it back, and
			// the record is released after (JoinedTransaction)
			completed = joined ? completion.getAsBoolean() : retried(attempt, completion, deadlineNanos);
		}
		catch (RuntimeException ex) {
			throw joined ? failedInTransaction(attempt, ex) : unconfirmed(attempt, ex);
		}
		if (!completed) {
			logger.error(attempt + " ran its method but lost the record to another attempt before completing: "
					+ "its result was discarded. Raise the lock timeout of operation '" + attempt.name()
					+ "' if this attempt was alive (a long GC pause or a frozen process).");
			throw new IdempotencyLockLostException(attempt.name(), attempt.key(), attempt.fence());
		}
	}

	/**
	 * Release an attempt's record for the next delivery. A store failure travels with the
	 * method's own exception, which must reach the caller unchanged; the record then
	 * stays {@code IN_PROGRESS} until its lease expires and the next delivery takes it
	 * over.
	 * @param attempt the attempt
	 * @param retention how long to keep its fence
	 * @param failure what the method threw
	 */
	void release(Attempt attempt, Duration retention, Throwable failure) {
		try {
			if (!retried(attempt,
					() -> this.store.release(attempt.record(), attempt.owner(), attempt.fence(), retention))) {
				logger.warn(attempt + " failed and could not release its record: another attempt took it over");
			}
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(StoreExceptions.of("release", attempt.record(), ex));
		}
	}

	/**
	 * Say what a completion that the store did not confirm left behind, as far as this
	 * attempt knows: a completed record whose replication was not confirmed, or a record
	 * that stays in progress unless a command got through.
	 */
	static IdempotencyCompletionException unconfirmed(Attempt attempt, RuntimeException ex) {
		if (ex instanceof UnreplicatedWriteException || attempt.isFinished()) {
			return new IdempotencyCompletionException(attempt + " ran its method, and the store holds its record "
					+ "COMPLETED"
					+ ((ex instanceof UnreplicatedWriteException) ? ""
							: " (a renewal found it completed by this attempt)")
					+ ", but did not confirm the completion: a duplicate replays it, unless a failover loses the write "
					+ "first and the next delivery runs the method again: " + ex.getMessage(), ex);
		}
		return new IdempotencyCompletionException(attempt + " ran its method, but the store failed to confirm "
				+ "that its outcome was recorded; unless a late command got through, the record stays IN_PROGRESS "
				+ "until its lease runs out, then the next delivery runs the method again: " + ex.getMessage(), ex);
	}

	// Whatever the completion did inside the transaction rolls back with it
	private static IdempotencyCompletionException failedInTransaction(Attempt attempt, RuntimeException ex) {
		return new IdempotencyCompletionException(attempt + " ran its method inside a transaction that the store "
				+ "joins, but completing its record there failed: " + JoinedTransaction.RELEASED_AFTER_ROLLBACK + ": "
				+ ex.getMessage(), ex);
	}

	private boolean retried(Attempt attempt, BooleanSupplier transition) {
		return retried(attempt, transition, NO_DEADLINE);
	}

	// Retries stop at the deadline, a lock timeout after the first failure, once the
	// lease
	// is gone, or once a renewal found the record finished by this attempt: then only the
	// replication of a write that got through is in doubt, and no retry could take it
	// back.
	private boolean retried(Attempt attempt, BooleanSupplier transition, long deadlineNanos) {
		boolean interrupted = Thread.interrupted();
		try {
			long giveUpAt = 0;
			boolean failed = false;
			long pause = FIRST_PAUSE_NANOS;
			while (true) {
				try {
					return transition.getAsBoolean();
				}
				catch (RuntimeException ex) {
					long now = this.nanoClock.getAsLong();
					if (!failed) {
						failed = true;
						giveUpAt = now + attempt.leaseNanos();
						if (deadlineNanos != NO_DEADLINE && deadlineNanos - giveUpAt < 0) {
							giveUpAt = deadlineNanos;
						}
					}
					if (giveUpAt - (now + pause) < 0 || attempt.leaseLeftNanos() - pause <= 0 || attempt.isFinished()) {
						throw ex;
					}
					LockSupport.parkNanos(this, pause);
					interrupted |= Thread.interrupted();
					pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
