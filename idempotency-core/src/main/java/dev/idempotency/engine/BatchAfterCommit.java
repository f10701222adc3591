package dev.idempotency.engine;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.store.RecordKey;

/**
 * The records of a batch's items that ran inside a Spring-managed transaction the store
 * does not join, recorded as {@link AfterCommit} records a single call's: completed in
 * one store call ({@link BatchRecorder}) once the transaction has committed, released
 * once it has rolled back (to a savepoint taken before the batch returned, too) or ended
 * unknown. Each item's outcome is its value at once; its lease stays renewed, its call
 * admitted and observed, until then.
 *
 * @param <I> the item type
 */
final class BatchAfterCommit<I> implements TransactionOutcome {

	private static final Log logger = LogFactory.getLog(BatchAfterCommit.class);

	private final BatchRecorder recorder;

	private final MethodOutcomes outcomes;

	private final Operation operation;

	private final List<BatchSlot<I>> ran;

	private final AtomicBoolean settled = new AtomicBoolean();

	BatchAfterCommit(BatchRecorder recorder, MethodOutcomes outcomes, Operation operation, List<BatchSlot<I>> ran) {
		this.recorder = recorder;
		this.outcomes = outcomes;
		this.operation = operation;
		this.ran = ran;
	}

	/**
	 * Wait for the end of the calling thread's transaction. Never throws: a
	 * synchronization that cannot be registered completes the records at once.
	 */
	void register() {
		for (BatchSlot<I> slot : this.ran) {
			slot.defer();
		}
		try {
			SpringTransactions.register(this);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not wait for the end of the transaction of a batch of operation '"
					+ this.operation.name() + "'; completing its records at once", ex);
			committed();
		}
	}

	@Override
	public boolean holds(RecordKey record) {
		return !this.settled.get() && slot(record) != null;
	}

	@Override
	public @Nullable Object value(RecordKey record) {
		BatchSlot<I> slot = slot(record);
		return (slot != null) ? slot.value() : null;
	}

	private @Nullable BatchSlot<I> slot(RecordKey record) {
		for (BatchSlot<I> slot : this.ran) {
			if (slot.record().equals(record)) {
				return slot;
			}
		}
		return null;
	}

	@Override
	public void committed() {
		if (!this.settled.compareAndSet(false, true)) {
			return;
		}
		try {
			this.recorder.record(this.operation, this.ran);
		}
		finally {
			for (BatchSlot<I> slot : this.ran) {
				slot.settled(unrecorded(slot));
			}
		}
	}

	@Override
	public void rolledBack(String how) {
		if (!this.settled.compareAndSet(false, true)) {
			return;
		}
		for (BatchSlot<I> slot : this.ran) {
			Throwable error = null;
			try {
				error = AfterCommit.release(this.outcomes, slot.call(), this.operation, slot.attempt(), how);
			}
			finally {
				slot.settled(error);
			}
		}
	}

	@Override
	public String toString() {
		return "a batch of " + this.ran.size() + " item(s) of operation '" + this.operation.name() + "'";
	}

	// The recorder turned an item it could not complete into a failure; the caller had
	// its value already, so it is only logged
	private @Nullable Throwable unrecorded(BatchSlot<I> slot) {
		if (slot.outcome() instanceof Failed<?, ?> failed) {
			logger.error("The transaction of " + slot.attempt() + " committed, but its record could not be "
					+ "completed: " + failed.exception().getMessage(), failed.exception());
			return failed.exception();
		}
		Error error = slot.encodingError();
		if (error != null) {
			logger.error("The transaction of " + slot.attempt() + " committed and its record completed, but its "
					+ "value could not be stored for duplicates to replay", error);
		}
		return error;
	}

}
