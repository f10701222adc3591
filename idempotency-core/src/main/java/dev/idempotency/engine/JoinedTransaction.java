package dev.idempotency.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

/**
 * The end of a transaction that a store joins ({@link AfterCommit#joins}): its record
 * completes inside it, and commits or rolls back with the method's own writes. A
 * transaction that does not commit leaves the record in progress, so it is released then,
 * in the store's own transaction, with the attempt's owner and fence, for the next
 * delivery to run the method at once rather than after the lease.
 * <p>
 * An outcome that is unknown (a commit that failed without saying whether it took effect)
 * releases it too, and that is safe here, unlike for a store that does not join: the
 * record committed with the effect or not at all, and a release changes only a record
 * still in progress. A commit that took effect leaves it completed, and the release
 * changes nothing; one still under way holds the record's row lock, which the release
 * waits for.
 * <p>
 * Until the transaction ends, a duplicate called in it replays the value the method
 * returned, as with the stores that do not join ({@link TransactionOutcome}): the store
 * reports the record in progress, since its completion is not committed, and a duplicate
 * in the same transaction (two deliveries of one message in a batch, a retry inside the
 * transaction) would otherwise be refused, or wait for its own transaction to end. A
 * rollback to a savepoint taken before the method returned undoes the completion with the
 * method's writes: from then on the value is not replayed, and the record is released
 * once the transaction has ended, whether it commits or not. It is not released at once:
 * MariaDB and MySQL keep the row lock of the undone completion until the transaction
 * ends, and the release would wait for it on the caller's own thread.
 * <p>
 * The lease is not renewed from the completion to the end of the transaction: the
 * completion's row lock, held until then, is what keeps a successor out, since a takeover
 * that finds the row locked reports the record in progress rather than waiting for it.
 */
final class JoinedTransaction implements TransactionOutcome {

	/**
	 * What becomes of a record whose completion failed inside a transaction the store
	 * joins, for the messages of the exceptions that say so.
	 */
	static final String RELEASED_AFTER_ROLLBACK = "this exception rolls the transaction back, and the record is "
			+ "released after the rollback, for the next delivery to run again at once (a transaction that commits "
			+ "all the same leaves a record it did not complete IN_PROGRESS until its lease runs out)";

	private static final Log logger = LogFactory.getLog(JoinedTransaction.class);

	private final OutcomeRecorder recorder;

	private final Operation operation;

	private final Attempt attempt;

	private final AtomicBoolean settled = new AtomicBoolean();

	private volatile boolean completed;

	private volatile boolean undone;

	private volatile @Nullable Object value;

	private JoinedTransaction(OutcomeRecorder recorder, Operation operation, Attempt attempt) {
		this.recorder = recorder;
		this.operation = operation;
		this.attempt = attempt;
	}

	/**
	 * Release an attempt's record once the calling thread's transaction has ended without
	 * a commit, or with a commit after a rollback to a savepoint that undid its
	 * completion. Called before its outcome is recorded in that transaction, so that a
	 * completion that failed, and whose exception rolls the transaction back, is released
	 * as well.
	 * @param recorder the engine's recorder
	 * @param operation the operation
	 * @param attempt the attempt
	 * @return the outcome, to be told once the record has completed
	 */
	static JoinedTransaction releaseAfterRollback(OutcomeRecorder recorder, Operation operation, Attempt attempt) {
		JoinedTransaction joined = new JoinedTransaction(recorder, operation, attempt);
		SpringTransactions.register(joined);
		return joined;
	}

	/**
	 * Note that the record completed inside the transaction with the method's value, for
	 * a duplicate in the same transaction to replay.
	 * @param value the method's value
	 */
	void completedWith(@Nullable Object value) {
		this.value = value;
		this.completed = true;
	}

	@Override
	public boolean holds(RecordKey record) {
		return this.completed && !this.undone && !this.settled.get() && this.attempt.record().equals(record);
	}

	@Override
	public @Nullable Object value(RecordKey record) {
		return this.value;
	}

	@Override
	public void committed() {
		if (this.undone) {
			rolledBack("committed after a rollback to a savepoint taken before the method returned");
			return;
		}
		this.settled.set(true);
	}

	// Its record committed with the transaction, and no release can change that
	@Override
	public boolean committedDespite(String how) {
		logger.warn("The transaction of " + this.attempt + " committed with its record, but a synchronization "
				+ "ordered before its record's failed after the commit, and what that one was to commit then may not "
				+ "have been: duplicates replay the record all the same");
		committed();
		return false;
	}

	@Override
	public void undone(String how) {
		this.undone = true;
	}

	@Override
	public void rolledBack(String how) {
		if (!this.settled.compareAndSet(false, true)) {
			return;
		}
		IllegalStateException rollback = new IllegalStateException(this.attempt + " ran its method, but the "
				+ "transaction its record completed in " + how + "; its record was released for the next delivery");
		this.recorder.release(this.attempt, this.operation.settings().retention(), rollback);
		for (Throwable ex : rollback.getSuppressed()) {
			logger.warn(rollback.getMessage() + ", but the release failed: the record stays IN_PROGRESS until "
					+ "its lease runs out: " + ex.getMessage(), ex);
		}
	}

	@Override
	public String toString() {
		return this.attempt.toString();
	}

}
