package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

/**
 * What the engine does once the transaction that a call returned in has ended
 * ({@link AfterCommit}, {@link BatchAfterCommit}). Each is settled once, by whichever
 * callback of the transaction comes first. Until then, a duplicate called in the same
 * transaction replays the value the transaction is about to commit: it would otherwise
 * find the record in progress until the transaction ends, which a retry inside the
 * transaction (such as a Kafka batch error handler's) would wait for in vain.
 */
interface TransactionOutcome {

	/**
	 * Return whether this outcome holds the record of a key, not settled yet.
	 * @param record the record
	 * @return whether a call of this transaction ran the method for it
	 */
	boolean holds(RecordKey record);

	/**
	 * Return the value a call of this transaction got for a record it
	 * {@link #holds(RecordKey) holds}, for a duplicate in the same transaction to replay.
	 * @param record the record
	 * @return the method's value
	 */
	@Nullable Object value(RecordKey record);

	/**
	 * Complete the records of a transaction that committed.
	 */
	void committed();

	/**
	 * Note that a rollback to a savepoint taken before the records were held undid what
	 * the calls wrote in the transaction, which goes on. Released at once unless the
	 * outcome says otherwise.
	 * @param how how it was undone, for the exception the calls end with
	 */
	default void undone(String how) {
		rolledBack(how);
	}

	/**
	 * Settle the records of a transaction that committed, but where a synchronization
	 * ordered before theirs failed after the commit, so that what it was to commit may
	 * not have been. Released unless the outcome says otherwise.
	 * @param how what happened, for the exception the calls end with
	 * @return whether the records were released
	 */
	default boolean committedDespite(String how) {
		rolledBack(how);
		return true;
	}

	/**
	 * Release the records of a transaction that rolled back, rolled back to a savepoint
	 * taken before they were held, or whose outcome is unknown.
	 * @param how how the transaction ended, for the exception the calls end with (such as
	 * "rolled back")
	 */
	void rolledBack(String how);

}
