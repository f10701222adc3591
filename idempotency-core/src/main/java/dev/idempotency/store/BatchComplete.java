package dev.idempotency.store;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * One item of {@link IdempotencyStore#completeAll}: what
 * {@link IdempotencyStore#complete} takes.
 *
 * @param key the record
 * @param owner the owner token given to {@link IdempotencyStore#acquire}
 * @param fence the fence returned by {@link IdempotencyStore#acquire}
 * @param result the outcome to store
 * @param retention how long to keep it
 */
public record BatchComplete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {

	/**
	 * Create a batch item.
	 * @param key the record
	 * @param owner the owner token given to {@link IdempotencyStore#acquire}
	 * @param fence the fence returned by {@link IdempotencyStore#acquire}
	 * @param result the outcome to store
	 * @param retention how long to keep it
	 * @throws IllegalArgumentException if the owner is empty, or the key, the result or
	 * the retention is {@code null}
	 */
	public BatchComplete {
		Assert.notNull(key, "'key' must not be null");
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.notNull(result, "'result' must not be null");
		Assert.notNull(retention, "'retention' must not be null");
	}

}
