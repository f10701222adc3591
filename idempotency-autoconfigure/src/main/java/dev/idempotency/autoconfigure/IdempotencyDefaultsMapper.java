package dev.idempotency.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.autoconfigure.IdempotencyProperties.InProgressPolicy;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.engine.OperationSettings;
import org.jspecify.annotations.Nullable;

/**
 * Maps {@link IdempotencyProperties} to the engine's {@link IdempotencyDefaults}. Every
 * operation override is checked against the global settings here, so that a bad value
 * fails startup naming its operation instead of failing when the operation is first used.
 */
final class IdempotencyDefaultsMapper {

	private IdempotencyDefaultsMapper() {
	}

	/**
	 * Map properties to defaults.
	 * @param properties the bound properties
	 * @param operations the per-operation settings, by operation name
	 * @return the defaults
	 * @throws IllegalStateException if a value is out of range
	 */
	static IdempotencyDefaults map(IdempotencyProperties properties,
			Map<String, IdempotencyOperationProperties> operations) {
		try {
			OperationSettings settings = new OperationSettings(properties.getLockTimeout(), properties.getRetention(),
					onInProgress(properties.getOnInProgress()), properties.getWaitTimeout());
			Map<String, OperationOverrides> overrides = new LinkedHashMap<>();
			operations.forEach((name, operation) -> overrides.put(name, overrides(name, operation, settings)));
			return new IdempotencyDefaults(settings, properties.getOnStoreFailure(), properties.getMaxKeyLength(),
					properties.getMaxResultSize().toBytes(), overrides);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Invalid idempotency.* property: " + ex.getMessage(), ex);
		}
	}

	private static OperationOverrides overrides(String name, IdempotencyOperationProperties operation,
			OperationSettings settings) {
		try {
			dev.idempotency.engine.Operation.checkName(name);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("Invalid name of idempotency.operations[" + name + "]: " + ex.getMessage()
					+ "; no operation can have it", ex);
		}
		OperationOverrides overrides = new OperationOverrides(operation.getLockTimeout(), operation.getRetention(),
				onInProgress(operation.getOnInProgress()), operation.getWaitTimeout());
		try {
			overrides.applyTo(settings);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"Invalid property of idempotency.operations[" + name + "]: " + ex.getMessage(), ex);
		}
		return overrides;
	}

	private static @Nullable OnInProgress onInProgress(@Nullable InProgressPolicy policy) {
		if (policy == null) {
			return null;
		}
		return switch (policy) {
			case REJECT -> OnInProgress.REJECT;
			case WAIT -> OnInProgress.WAIT;
		};
	}

}
