package dev.idempotency.actuate.endpoint;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.aop.IdempotentOperation;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.engine.OperationSettings;
import dev.idempotency.engine.StoreFailurePolicy;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * Description of the idempotency setup, as {@link IdempotencyEndpoint} shows it.
 *
 * @param store the store
 * @param defaults the global settings
 * @param operations every {@code @Idempotent} operation resolved so far, by name
 * @param configuredOnly the overrides under {@code idempotency.operations} whose name no
 * resolved operation has, by name: operations of the programmatic executor, of beans not
 * created yet, or misspelt names
 */
public record IdempotencyDescriptor(StoreDescriptor store, DefaultsDescriptor defaults,
		Map<String, OperationDescriptor> operations,
		Map<String, SettingsDescriptor> configuredOnly) implements OperationResponseBody {

	static IdempotencyDescriptor of(String storeType, @Nullable String keyPrefix, IdempotencyDefaults defaults,
			Collection<IdempotentOperation> resolved) {
		Map<String, OperationDescriptor> operations = new TreeMap<>();
		resolved.forEach((operation) -> operations.put(operation.name(), OperationDescriptor.of(operation)));
		Map<String, SettingsDescriptor> configuredOnly = new TreeMap<>();
		defaults.operations().forEach((name, overrides) -> {
			if (!operations.containsKey(name)) {
				configuredOnly.put(name, SettingsDescriptor.of(overrides));
			}
		});
		return new IdempotencyDescriptor(new StoreDescriptor(storeType, keyPrefix), DefaultsDescriptor.of(defaults),
				operations, configuredOnly);
	}

	/**
	 * Description of the store.
	 *
	 * @param type the store type, such as {@code redis} or {@code memory}
	 * @param keyPrefix the prefix of its keys, or {@code null} when it has none
	 */
	public record StoreDescriptor(String type, @Nullable String keyPrefix) {
	}

	/**
	 * Description of the global settings.
	 *
	 * @param lockTimeout lease of an in-progress attempt
	 * @param retention how long a record lives
	 * @param onInProgress what a call does while another attempt holds a live lease
	 * @param waitTimeout bound of {@link OnInProgress#WAIT}
	 * @param onStoreFailure what a call does when the store is unreachable at acquire
	 * @param maxKeyLength keys longer than this are stored as their SHA-256 digest
	 * @param maxResultSize encoded results larger than this, in bytes, are not replayable
	 */
	public record DefaultsDescriptor(Duration lockTimeout, Duration retention, OnInProgress onInProgress,
			Duration waitTimeout, StoreFailurePolicy onStoreFailure, int maxKeyLength, long maxResultSize) {

		static DefaultsDescriptor of(IdempotencyDefaults defaults) {
			OperationSettings settings = defaults.settings();
			return new DefaultsDescriptor(settings.lockTimeout(), settings.retention(), settings.onInProgress(),
					settings.waitTimeout(), defaults.onStoreFailure(), defaults.maxKeyLength(),
					defaults.maxResultSize());
		}

	}

	/**
	 * Description of an {@code @Idempotent} operation.
	 *
	 * @param method the annotated method, such as
	 * {@code com.example.PaymentHandler.handle(PaymentEvent)}
	 * @param keyExpression the key expression
	 * @param payloadExpression the payload expression, or {@code null}
	 * @param settings the effective settings, after configuration and annotation
	 * overrides
	 */
	public record OperationDescriptor(String method, String keyExpression, @Nullable String payloadExpression,
			SettingsDescriptor settings) {

		static OperationDescriptor of(IdempotentOperation operation) {
			return new OperationDescriptor(describe(operation.method()), operation.keyExpression(),
					operation.payloadExpression(), SettingsDescriptor.of(operation.operation().settings()));
		}

		private static String describe(Method method) {
			StringBuilder description = new StringBuilder(method.getDeclaringClass().getName()).append('.')
				.append(method.getName())
				.append('(');
			Class<?>[] types = method.getParameterTypes();
			for (int i = 0; i < types.length; i++) {
				description.append((i > 0) ? ", " : "").append(types[i].getSimpleName());
			}
			return description.append(')').toString();
		}

	}

	/**
	 * Description of the settings of one operation; a setting that is {@code null} is not
	 * set by its source.
	 *
	 * @param lockTimeout lease of an in-progress attempt
	 * @param retention how long a record lives
	 * @param onInProgress what a call does while another attempt holds a live lease
	 * @param waitTimeout bound of {@link OnInProgress#WAIT}
	 */
	public record SettingsDescriptor(@Nullable Duration lockTimeout, @Nullable Duration retention,
			@Nullable OnInProgress onInProgress, @Nullable Duration waitTimeout) {

		static SettingsDescriptor of(OperationSettings settings) {
			return new SettingsDescriptor(settings.lockTimeout(), settings.retention(), settings.onInProgress(),
					settings.waitTimeout());
		}

		static SettingsDescriptor of(OperationOverrides overrides) {
			return new SettingsDescriptor(overrides.lockTimeout(), overrides.retention(), overrides.onInProgress(),
					overrides.waitTimeout());
		}

	}

}
