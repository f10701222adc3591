package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.ResultEncoder.Encoded;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoredResult;

/**
 * Completes the records of a batch's items whose work returned, in one store call. When
 * that call fails inside a transaction the store joins, the failure is thrown for the
 * transaction to roll back; outside one, each item is completed again on its own with the
 * retries of a single call ({@link OutcomeRecorder}): completing is idempotent for the
 * same owner, so an item the failed batch did complete completes again, and each item
 * learns its own fate. All of that takes one lock timeout from the batch call's failure
 * for the whole batch, not one per item: an item not reached by then fails without
 * another try, its fate unknown. One instance serves every batch of an engine.
 */
final class BatchRecorder {

	private static final Log logger = LogFactory.getLog(BatchRecorder.class);

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	private final ResultEncoder encoder;

	private final OutcomeRecorder recorder;

	private final OutcomeReporter reporter;

	BatchRecorder(IdempotencyStore store, LongSupplier nanoClock, ResultEncoder encoder, OutcomeRecorder recorder,
			OutcomeReporter reporter) {
		this.store = store;
		this.nanoClock = nanoClock;
		this.encoder = encoder;
		this.recorder = recorder;
		this.reporter = reporter;
	}

	<I> void record(Operation operation, List<BatchSlot<I>> taken) {
		List<BatchSlot<I>> ran = taken.stream().filter(BatchSlot::hasRun).toList();
		if (ran.isEmpty()) {
			return;
		}
		Duration retention = operation.settings().retention();
		List<StoredResult> stored = new ArrayList<>(ran.size());
		List<BatchComplete> batch = new ArrayList<>(ran.size());
		for (BatchSlot<I> slot : ran) {
			Attempt attempt = slot.attempt();
			Encoded encoded = this.encoder.encode(operation, attempt, slot.value());
			slot.encodingError(encoded.error());
			stored.add(encoded.stored());
			batch.add(
					new BatchComplete(attempt.record(), attempt.owner(), attempt.fence(), encoded.stored(), retention));
		}
		long deadline = 0;
		@Nullable RuntimeException batchFailure = null;
		List<Boolean> completed;
		boolean joined = AfterCommit.completesInTransaction(this.store);
		try {
			completed = completeAll(operation, batch);
		}
		catch (RuntimeException ex) {
			if (joined) {
				throw failedInTransaction(operation, ran, ex);
			}
			completed = null;
			batchFailure = ex;
			// From the failure, as a single call's retries: a batch command that failed
			// only after a lock timeout (a timeout) still leaves each item its own try
			deadline = this.nanoClock.getAsLong() + operation.settings().lockTimeout().toNanos();
		}
		@Nullable IdempotencyLockLostException lost = null;
		for (int i = 0; i < ran.size(); i++) {
			BatchSlot<I> slot = ran.get(i);
			if (completed == null) {
				completeAlone(operation, slot, stored.get(i), retention, deadline,
						Objects.requireNonNull(batchFailure));
			}
			else if (completed.get(i)) {
				executed(operation, slot);
			}
			else {
				Attempt attempt = slot.attempt();
				logger.error(attempt + " ran its work in a batch but lost the record to another attempt before "
						+ "completing: its result was discarded. Raise the lock timeout of operation '" + attempt.name()
						+ "' if the batch was alive (a long GC pause, or work too slow for it).");
				IdempotencyLockLostException ex = new IdempotencyLockLostException(attempt.name(), attempt.key(),
						attempt.fence());
				failed(operation, slot, ex);
				lost = (lost != null) ? lost : ex;
			}
		}
		if (joined && lost != null) {
			// As for a single call: the zombie's transaction rolls back with its writes
			throw lost;
		}
	}

	// Never item by item inside a transaction the store joins: a failed statement may
	// have
	// aborted it (PostgreSQL), and items completed on their own would let it commit the
	// writes of one whose record did not (MariaDB), a duplicate after its lease. The
	// exception rolls it back, and every record is released after (JoinedTransaction).
	private <I> IdempotencyCompletionException failedInTransaction(Operation operation, List<BatchSlot<I>> ran,
			RuntimeException ex) {
		IdempotencyCompletionException failure = new IdempotencyCompletionException("A batch of " + ran.size()
				+ " item(s) of operation '" + operation.name() + "' ran its work inside a transaction that the store "
				+ "joins, but completing their records there failed: " + JoinedTransaction.RELEASED_AFTER_ROLLBACK
				+ ": " + ex.getMessage(), ex);
		for (BatchSlot<I> slot : ran) {
			failed(operation, slot, failure);
		}
		return failure;
	}

	// The caller's interrupt flag is cleared for the store call, as for single calls
	private List<Boolean> completeAll(Operation operation, List<BatchComplete> batch) {
		boolean interrupted = Thread.interrupted();
		try {
			return this.store.completeAll(batch);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not complete a batch of " + batch.size() + " records of operation '" + operation.name()
					+ "' at once; completing each on its own", ex);
			throw ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private <I> void completeAlone(Operation operation, BatchSlot<I> slot, StoredResult stored, Duration retention,
			long deadline, RuntimeException batchFailure) {
		Attempt attempt = slot.attempt();
		if (this.nanoClock.getAsLong() - deadline >= 0) {
			failed(operation, slot, attempt.isFinished() ? OutcomeRecorder.unconfirmed(attempt, batchFailure)
					: new IdempotencyCompletionException(attempt + " ran its work in a batch whose completion failed, "
							+ "and the lock timeout that completing the batch may take ran out before this item could be "
							+ "completed on its own: the store holds its record COMPLETED if the batch's command got through, "
							+ "else IN_PROGRESS until its lease runs out, then the next delivery runs the work again: "
							+ batchFailure.getMessage(), batchFailure));
			return;
		}
		try {
			this.recorder.complete(attempt, stored, retention, deadline);
		}
		catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
			failed(operation, slot, ex);
			return;
		}
		executed(operation, slot);
	}

	private <I> void executed(Operation operation, BatchSlot<I> slot) {
		this.reporter.report(slot.call(), operation, slot.record(),
				slot.takeover() ? Outcome.RECOVERED : Outcome.EXECUTED);
		slot.executed(slot.value());
	}

	private <I> void failed(Operation operation, BatchSlot<I> slot, IdempotencyException ex) {
		this.reporter.report(slot.call(), operation, slot.record(),
				(ex instanceof IdempotencyLockLostException) ? Outcome.LOCK_LOST : Outcome.STORE_ERROR);
		Error error = slot.encodingError();
		if (error != null) {
			// Thrown with this item's outcome rather than on its own, as for a single
			// call
			ex.addSuppressed(error);
			slot.encodingError(null);
		}
		slot.failed(ex);
	}

}
