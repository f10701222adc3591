package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.ResultEncoder.Encoded;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.StoredResult;

/**
 * Completes the records of a batch's items whose work returned, in one store call. When
 * that call fails, each item is completed again on its own with the retries of a single
 * call ({@link OutcomeRecorder}): completing is idempotent for the same owner, so an item
 * the failed batch did complete completes again, and each item learns its own fate. All
 * of that takes one lock timeout from the batch call's failure for the whole batch, not
 * one per item: an item not reached by then fails without another try, its fate unknown.
 */
final class BatchRecorder {

	private static final Log logger = LogFactory.getLog(BatchRecorder.class);

	private final IdempotencyEngine engine;

	private final Operation operation;

	BatchRecorder(IdempotencyEngine engine, Operation operation) {
		this.engine = engine;
		this.operation = operation;
	}

	<I> void record(List<BatchItems<I>.Slot> taken) {
		List<BatchItems<I>.Slot> ran = taken.stream().filter(BatchItems.Slot::hasRun).toList();
		if (ran.isEmpty()) {
			return;
		}
		Duration retention = this.operation.settings().retention();
		List<StoredResult> stored = new ArrayList<>(ran.size());
		List<BatchComplete> batch = new ArrayList<>(ran.size());
		for (BatchItems<I>.Slot slot : ran) {
			Attempt attempt = slot.attempt();
			Encoded encoded = this.engine.encoder().encode(this.operation, attempt, slot.value());
			slot.encodingError(encoded.error());
			stored.add(encoded.stored());
			batch.add(
					new BatchComplete(attempt.record(), attempt.owner(), attempt.fence(), encoded.stored(), retention));
		}
		long deadline = 0;
		@Nullable RuntimeException batchFailure = null;
		List<Boolean> completed;
		try {
			completed = completeAll(batch);
		}
		catch (RuntimeException ex) {
			completed = null;
			batchFailure = ex;
			// From the failure, as a single call's retries: a batch command that failed
			// only after a lock timeout (a timeout) still leaves each item its own try
			deadline = this.engine.nanoClock().getAsLong() + this.operation.settings().lockTimeout().toNanos();
		}
		for (int i = 0; i < ran.size(); i++) {
			BatchItems<I>.Slot slot = ran.get(i);
			if (completed == null) {
				completeAlone(slot, stored.get(i), retention, deadline, Objects.requireNonNull(batchFailure));
			}
			else if (completed.get(i)) {
				executed(slot);
			}
			else {
				Attempt attempt = slot.attempt();
				logger.error(attempt + " ran its work in a batch but lost the record to another attempt before "
						+ "completing: its result was discarded. Raise the lock timeout of operation '" + attempt.name()
						+ "' if the batch was alive (a long GC pause, or work too slow for it).");
				failed(slot, new IdempotencyLockLostException(attempt.name(), attempt.key(), attempt.fence()));
			}
		}
	}

	// The caller's interrupt flag is cleared for the store call, as for single calls
	private List<Boolean> completeAll(List<BatchComplete> batch) {
		boolean interrupted = Thread.interrupted();
		try {
			return this.engine.getStore().completeAll(batch);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not complete a batch of " + batch.size() + " records of operation '"
					+ this.operation.name() + "' at once; completing each on its own", ex);
			throw ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private <I> void completeAlone(BatchItems<I>.Slot slot, StoredResult stored, Duration retention, long deadline,
			RuntimeException batchFailure) {
		Attempt attempt = slot.attempt();
		if (this.engine.nanoClock().getAsLong() - deadline >= 0) {
			failed(slot, attempt.isFinished() ? OutcomeRecorder.unconfirmed(attempt, batchFailure)
					: new IdempotencyCompletionException(attempt + " ran its work in a batch whose completion failed, "
							+ "and the lock timeout that completing the batch may take ran out before this item could be "
							+ "completed on its own: the store holds its record COMPLETED if the batch's command got through, "
							+ "else IN_PROGRESS until its lease runs out, then the next delivery runs the work again: "
							+ batchFailure.getMessage(), batchFailure));
			return;
		}
		try {
			this.engine.recorder().complete(attempt, stored, retention, deadline);
		}
		catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
			failed(slot, ex);
			return;
		}
		executed(slot);
	}

	private <I> void executed(BatchItems<I>.Slot slot) {
		this.engine.report(slot.call(), this.operation, slot.record(),
				slot.takeover() ? Outcome.RECOVERED : Outcome.EXECUTED);
		slot.executed(slot.value());
	}

	private <I> void failed(BatchItems<I>.Slot slot, IdempotencyException ex) {
		this.engine.report(slot.call(), this.operation, slot.record(),
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
