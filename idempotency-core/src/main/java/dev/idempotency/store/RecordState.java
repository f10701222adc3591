package dev.idempotency.store;

/**
 * States of an idempotency record.
 */
public enum RecordState {

	/**
	 * An attempt owns the record and holds a lease on it.
	 */
	IN_PROGRESS,

	/**
	 * The method returned; its result is kept until the retention runs out.
	 */
	COMPLETED,

	/**
	 * The method threw; the next attempt runs it again with a higher fence.
	 */
	FAILED

}
