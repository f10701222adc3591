package dev.idempotency.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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
 * The lease is not renewed from the completion to the end of the transaction: the
 * completion's row lock, held until then, is what keeps a successor out, since a takeover
 * that finds the row locked reports the record in progress rather than waiting for it.
 */
final class JoinedTransaction {

	/**
	 * What becomes of a record whose completion failed inside a transaction the store
	 * joins, for the messages of the exceptions that say so.
	 */
	static final String RELEASED_AFTER_ROLLBACK = "this exception rolls the transaction back, and the record is "
			+ "released after the rollback, for the next delivery to run again at once (a transaction that commits "
			+ "all the same leaves a record it did not complete IN_PROGRESS until its lease runs out)";

	private static final Log logger = LogFactory.getLog(JoinedTransaction.class);

	private JoinedTransaction() {
	}

	/**
	 * Release an attempt's record once the calling thread's transaction has ended without
	 * a commit. Called before its outcome is recorded in that transaction, so that a
	 * completion that failed, and whose exception rolls the transaction back, is released
	 * as well.
	 * @param recorder the engine's recorder
	 * @param operation the operation
	 * @param attempt the attempt
	 */
	static void releaseAfterRollback(OutcomeRecorder recorder, Operation operation, Attempt attempt) {
		SpringTransactions.afterRollback(() -> {
			IllegalStateException rollback = new IllegalStateException(attempt + " ran its method, but the "
					+ "transaction its record completed in did not commit; its record was released for the next "
					+ "delivery");
			recorder.release(attempt, operation.settings().retention(), rollback);
			for (Throwable ex : rollback.getSuppressed()) {
				logger.warn(rollback.getMessage() + ", but the release failed: the record stays IN_PROGRESS until "
						+ "its lease runs out: " + ex.getMessage(), ex);
			}
		});
	}

}
