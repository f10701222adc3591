package dev.idempotency;

import java.time.Duration;

/**
 * Another attempt for the same key holds a live lease: thrown at once with
 * {@link Idempotent.OnInProgress#REJECT}, or when the wait timeout of
 * {@link Idempotent.OnInProgress#WAIT} runs out. The method did not run; a later delivery
 * of the same key can succeed.
 */
public class IdempotencyInProgressException extends IdempotencyException {

	/**
	 * Name of the operation.
	 */
	private final String name;

	/**
	 * Idempotency key that another attempt holds.
	 */
	private final String key;

	/**
	 * Time left on the other attempt's lease, as the store saw it.
	 */
	private final Duration retryAfter;

	/**
	 * Create an exception for an operation and key.
	 * @param name the operation name
	 * @param key the idempotency key
	 * @param retryAfter time left on the other attempt's lease, as the store saw it
	 */
	public IdempotencyInProgressException(String name, String key, Duration retryAfter) {
		super("Operation '" + name + "' is already in progress for key '" + key + "' (lease expires in "
				+ retryAfter.toMillis() + " ms)");
		this.name = name;
		this.key = key;
		this.retryAfter = retryAfter;
	}

	/**
	 * Return the operation name.
	 * @return the name
	 */
	public String getName() {
		return this.name;
	}

	/**
	 * Return the idempotency key.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return the time left on the other attempt's lease when this call gave up: a hint
	 * for when to retry.
	 * @return the time left, never negative
	 */
	public Duration getRetryAfter() {
		return this.retryAfter;
	}

}
