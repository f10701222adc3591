package dev.idempotency.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.idempotency.autoconfigure.IdempotencyProperties.InProgressPolicy;

/**
 * Settings of one operation, bound from {@code idempotency.operations.<name>}. Each one
 * left unset falls back to the annotation, then to the global default.
 *
 * @see IdempotencyProperties#getOperations()
 */
public class IdempotencyOperationProperties {

	/**
	 * Lease of an in-progress attempt of this operation.
	 */
	private @Nullable Duration lockTimeout;

	/**
	 * How long a completed result of this operation is kept and replayed.
	 */
	private @Nullable Duration retention;

	/**
	 * What a call of this operation does while another attempt for the same key holds a
	 * live lease.
	 */
	private @Nullable InProgressPolicy onInProgress;

	/**
	 * Maximum time a call of this operation waits for another attempt.
	 */
	private @Nullable Duration waitTimeout;

	public @Nullable Duration getLockTimeout() {
		return this.lockTimeout;
	}

	public void setLockTimeout(@Nullable Duration lockTimeout) {
		this.lockTimeout = lockTimeout;
	}

	public @Nullable Duration getRetention() {
		return this.retention;
	}

	public void setRetention(@Nullable Duration retention) {
		this.retention = retention;
	}

	public @Nullable InProgressPolicy getOnInProgress() {
		return this.onInProgress;
	}

	public void setOnInProgress(@Nullable InProgressPolicy onInProgress) {
		this.onInProgress = onInProgress;
	}

	public @Nullable Duration getWaitTimeout() {
		return this.waitTimeout;
	}

	public void setWaitTimeout(@Nullable Duration waitTimeout) {
		this.waitTimeout = waitTimeout;
	}

}
