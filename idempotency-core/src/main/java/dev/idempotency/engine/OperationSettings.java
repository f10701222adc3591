package dev.idempotency.engine;

import java.time.Duration;

import dev.idempotency.Idempotent.OnInProgress;

import org.springframework.util.Assert;

/**
 * Effective settings of one operation, after configuration overrides, annotation
 * attributes and global defaults have been applied.
 *
 * @param lockTimeout lease of an in-progress attempt
 * @param retention how long a record lives
 * @param onInProgress {@link OnInProgress#REJECT} or {@link OnInProgress#WAIT}
 * @param waitTimeout bound of {@link OnInProgress#WAIT}
 */
public record OperationSettings(Duration lockTimeout, Duration retention, OnInProgress onInProgress,
		Duration waitTimeout) {

	private static final Duration MAX = Duration.ofDays(365 * 100);

	/**
	 * Create the settings of an operation.
	 * @param lockTimeout lease of an in-progress attempt
	 * @param retention how long a record lives
	 * @param onInProgress {@link OnInProgress#REJECT} or {@link OnInProgress#WAIT}
	 * @param waitTimeout bound of {@link OnInProgress#WAIT}
	 * @throws IllegalArgumentException if a duration is longer than 100 years, the lease
	 * is shorter than 3 ms, the retention is not positive, the wait timeout is negative,
	 * or {@code onInProgress} is {@link OnInProgress#DEFAULT}
	 */
	public OperationSettings {
		// Leases and waits are measured in nanoseconds of the monotonic clock, and every
		// duration in milliseconds by the store: bounded first, so that neither overflows
		Assert.isTrue(lockTimeout.compareTo(MAX) <= 0, "'lockTimeout' must be at most " + MAX + ", was " + lockTimeout);
		Assert.isTrue(retention.compareTo(MAX) <= 0, "'retention' must be at most " + MAX + ", was " + retention);
		Assert.isTrue(waitTimeout.compareTo(MAX) <= 0, "'waitTimeout' must be at most " + MAX + ", was " + waitTimeout);
		Assert.isTrue(lockTimeout.toMillis() >= 3, "'lockTimeout' must be at least 3ms, was " + lockTimeout);
		Assert.isTrue(retention.toMillis() > 0, "'retention' must be positive, was " + retention);
		Assert.isTrue(onInProgress != OnInProgress.DEFAULT, "'onInProgress' must be REJECT or WAIT");
		Assert.isTrue(!waitTimeout.isNegative(), "'waitTimeout' must not be negative, was " + waitTimeout);
	}

}
