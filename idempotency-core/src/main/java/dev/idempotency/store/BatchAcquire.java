package dev.idempotency.store;

import org.springframework.util.Assert;

/**
 * One item of {@link IdempotencyStore#acquireAll}: what {@link IdempotencyStore#acquire}
 * takes.
 *
 * @param key the record
 * @param request the attempt's owner token, lease, retention and fingerprint
 */
public record BatchAcquire(RecordKey key, AcquireRequest request) {

	/**
	 * Create a batch item.
	 * @param key the record
	 * @param request the attempt's owner token, lease, retention and fingerprint
	 * @throws IllegalArgumentException if the key or the request is {@code null}
	 */
	public BatchAcquire {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(request, "'request' must not be null");
	}

}
