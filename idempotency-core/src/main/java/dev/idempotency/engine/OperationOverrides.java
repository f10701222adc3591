package dev.idempotency.engine;

import java.time.Duration;

import dev.idempotency.Idempotent.OnInProgress;
import org.jspecify.annotations.Nullable;

/**
 * Settings given for one operation by one source (configuration or annotation); each
 * {@code null} defers to the next source.
 *
 * @param lockTimeout lease of an in-progress attempt, or {@code null}
 * @param retention how long a record lives, or {@code null}
 * @param onInProgress the in-progress policy, or {@code null} (or
 * {@link OnInProgress#DEFAULT})
 * @param waitTimeout bound of {@link OnInProgress#WAIT}, or {@code null}
 */
public record OperationOverrides(@Nullable Duration lockTimeout, @Nullable Duration retention,
		@Nullable OnInProgress onInProgress, @Nullable Duration waitTimeout) {

	/**
	 * Overrides that override nothing.
	 */
	public static final OperationOverrides NONE = new OperationOverrides(null, null, null, null);

	/**
	 * Apply these overrides on top of lower-precedence settings.
	 * @param base the settings to override
	 * @return the overridden settings
	 */
	public OperationSettings applyTo(OperationSettings base) {
		return new OperationSettings((this.lockTimeout != null) ? this.lockTimeout : base.lockTimeout(),
				(this.retention != null) ? this.retention : base.retention(),
				(this.onInProgress != null && this.onInProgress != OnInProgress.DEFAULT) ? this.onInProgress
						: base.onInProgress(),
				(this.waitTimeout != null) ? this.waitTimeout : base.waitTimeout());
	}

}
