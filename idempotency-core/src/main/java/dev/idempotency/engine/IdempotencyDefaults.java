package dev.idempotency.engine;

import java.time.Duration;
import java.util.Map;

import dev.idempotency.Idempotent.OnInProgress;

import org.springframework.util.Assert;

/**
 * Global settings of the engine and the per-operation overrides from configuration.
 *
 * @param settings default settings of every operation
 * @param onStoreFailure what to do when the store is unreachable at acquire
 * @param maxKeyLength keys longer than this are replaced by their SHA-256 hex digest
 * @param maxResultSize encoded results larger than this, in bytes, are not stored for
 * replay
 * @param operations overrides from configuration, by operation name
 */
public record IdempotencyDefaults(OperationSettings settings, StoreFailurePolicy onStoreFailure, int maxKeyLength,
		long maxResultSize, Map<String, OperationOverrides> operations) {

	/**
	 * Defaults as documented for the {@code idempotency.*} properties.
	 */
	public static final IdempotencyDefaults STANDARD = new IdempotencyDefaults(
			new OperationSettings(Duration.ofSeconds(30), Duration.ofHours(24), OnInProgress.REJECT,
					Duration.ofSeconds(10)),
			StoreFailurePolicy.FAIL, 200, 1024 * 1024, Map.of());

	/**
	 * Create the defaults, with an unmodifiable copy of the overrides.
	 * @param settings default settings of every operation
	 * @param onStoreFailure what to do when the store is unreachable at acquire
	 * @param maxKeyLength keys longer than this are replaced by their SHA-256 hex digest
	 * @param maxResultSize encoded results larger than this, in bytes, are not stored for
	 * replay
	 * @param operations overrides from configuration, by operation name
	 * @throws IllegalArgumentException if the maximum key length is less than 64 (the
	 * length of a SHA-256 hex digest) or the maximum result size is not positive
	 */
	public IdempotencyDefaults {
		Assert.isTrue(maxKeyLength >= 64, "'maxKeyLength' must be at least 64 (the length of a SHA-256 hex digest)");
		Assert.isTrue(maxResultSize > 0, "'maxResultSize' must be positive");
		operations = Map.copyOf(operations);
	}

	/**
	 * Resolve the settings of one operation with the documented precedence: configuration
	 * for the operation, then the annotation, then the global defaults.
	 * @param name the operation name
	 * @param annotation what the annotation (or programmatic call) sets
	 * @return the effective settings
	 */
	public OperationSettings resolve(String name, OperationOverrides annotation) {
		OperationSettings annotated = annotation.applyTo(this.settings);
		return this.operations.getOrDefault(name, OperationOverrides.NONE).applyTo(annotated);
	}

}
