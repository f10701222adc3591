package dev.idempotency.store;

/**
 * What {@link IdempotencyStore#renewLease} found.
 */
public enum RenewalResult {

	/**
	 * The owner still holds the record in progress: its lease now runs from the renewal.
	 */
	RENEWED,

	/**
	 * The owner itself has already completed or released the record, perhaps by a command
	 * whose reply it has not seen (a completion whose replica acknowledgements failed):
	 * no lease is left to renew, and no other attempt holds the record.
	 */
	FINISHED,

	/**
	 * Another attempt took the record over, or it is gone.
	 */
	LOST

}
