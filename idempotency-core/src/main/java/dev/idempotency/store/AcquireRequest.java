package dev.idempotency.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What an attempt asks of {@link IdempotencyStore#acquire}.
 *
 * @param owner token unique to this attempt
 * @param lease how long the record stays owned without renewal
 * @param retention how long the record lives: a completed one is replayed for this long,
 * an in-progress or failed one keeps its fence for this long
 * @param fingerprint SHA-256 of the payload, or {@code null} when the operation has none
 */
public record AcquireRequest(String owner, Duration lease, Duration retention, byte @Nullable [] fingerprint) {

	/**
	 * Create a request.
	 * @param owner token unique to this attempt
	 * @param lease how long the record stays owned without renewal
	 * @param retention how long the record lives
	 * @param fingerprint SHA-256 of the payload, or {@code null} when the operation has
	 * none
	 * @throws IllegalArgumentException if the owner is empty, or the lease or the
	 * retention is shorter than one millisecond
	 */
	public AcquireRequest {
		Assert.hasText(owner, "'owner' must not be empty");
		Assert.isTrue(lease.toMillis() > 0, "'lease' must be at least one millisecond");
		Assert.isTrue(retention.toMillis() > 0, "'retention' must be at least one millisecond");
	}

}
