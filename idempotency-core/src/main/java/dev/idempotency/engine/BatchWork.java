package dev.idempotency.engine;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyContextHolder;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyShutdownException;

/**
 * Runs the work of a batch's items on the caller's thread, in the order of the items:
 * each item whose record was taken with its {@link IdempotencyContext} current, each item
 * the store failed to answer unprotected. An {@link Error} from the work (or the renewer)
 * stops the batch: no later item runs, and it is thrown once every record is recorded.
 *
 * @param <I> the item type
 */
final class BatchWork<I> {

	private final BatchSteps steps;

	private final Operation operation;

	private final Function<? super I, ?> work;

	private @Nullable Error fatal;

	// Whether an item with too little lease left renews it before it is refused: not
	// once the store has failed to, so that a store that hangs is not waited for at
	// every item
	private boolean renewLateItems = true;

	BatchWork(BatchSteps steps, Operation operation, Function<? super I, ?> work) {
		this.steps = steps;
		this.operation = operation;
		this.work = work;
	}

	void runAll(List<BatchSlot<I>> toRun) {
		for (BatchSlot<I> slot : toRun) {
			if (slot.isBypassed()) {
				runUnprotected(slot);
				continue;
			}
			Attempt attempt = slot.attempt();
			Error stop = this.fatal;
			if (stop != null) {
				this.steps.outcomes().released(slot.call(), this.operation, attempt, stop);
				slot.failed(stop);
				continue;
			}
			IdempotencyLockLostException late = this.steps.starter()
				.tooLateToStart(slot.call(), this.operation, attempt, this.renewLateItems);
			if (late != null) {
				this.renewLateItems = false;
				slot.failed(late);
				continue;
			}
			if (!slot.ticket().start()) {
				// Released by the shutdown, which reached its bound
				slot.failed(this.steps.admission().refused(slot.call(), this.operation, slot.record()));
				continue;
			}
			IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
			try {
				slot.ran(this.work.apply(slot.item()));
			}
			catch (Throwable ex) {
				stopOn(ex);
				failed(slot, attempt, ex);
			}
			finally {
				IdempotencyContextHolder.restore(outer);
			}
		}
	}

	private void failed(BatchSlot<I> slot, Attempt attempt, Throwable ex) {
		try {
			this.steps.outcomes().failed(slot.call(), this.operation, attempt, ex);
			slot.failed(ex);
		}
		catch (IdempotencyException recordingFailure) {
			// A failure the operation replays, which could not be stored
			slot.failed(recordingFailure);
		}
	}

	void runUnprotected(BatchSlot<I> slot) {
		Error stop = this.fatal;
		if (stop != null) {
			slot.failed(stop);
			return;
		}
		if (!slot.ticket().startUnprotected()) {
			// The shutdown reached its bound: no item starts any more
			slot.failed(new IdempotencyShutdownException(slot.record().name(), slot.record().key()));
			return;
		}
		try {
			slot.executed(this.work.apply(slot.item()));
		}
		catch (Throwable failure) {
			stopOn(failure);
			slot.failed(failure);
		}
	}

	/**
	 * Remember the first {@link Error}, which stops the batch.
	 */
	void stopOn(Throwable ex) {
		if (ex instanceof Error error && this.fatal == null) {
			this.fatal = error;
		}
	}

	/**
	 * Return every item's outcome, or throw the first error that stopped the batch or was
	 * raised while encoding a result.
	 */
	List<BatchOutcome<I, @Nullable Object>> finish(BatchItems<I> items) {
		List<BatchOutcome<I, @Nullable Object>> outcomes = items.outcomes();
		Error stop = this.fatal;
		if (stop == null) {
			stop = items.encodingError();
		}
		if (stop != null) {
			throw stop;
		}
		return outcomes;
	}

}
