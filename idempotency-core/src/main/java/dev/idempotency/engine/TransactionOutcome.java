package dev.idempotency.engine;

/**
 * What the engine does once the transaction that a call returned in has ended
 * ({@link AfterCommit}, {@link BatchAfterCommit}). Each is settled once, by whichever
 * callback of the transaction comes first.
 */
interface TransactionOutcome {

	/**
	 * Complete the records of a transaction that committed.
	 */
	void committed();

	/**
	 * Release the records of a transaction that rolled back, or whose outcome is unknown.
	 * @param unknown whether the outcome is unknown
	 */
	void rolledBack(boolean unknown);

}
