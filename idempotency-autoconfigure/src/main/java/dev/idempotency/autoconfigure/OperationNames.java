package dev.idempotency.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * Completes the bound {@code idempotency.operations} map with the operations whose name
 * contains dots but was written without brackets.
 * <p>
 * Spring Boot binds a map of objects by the first element of each key only, so
 * {@code idempotency.operations.PaymentService.charge.retention=5m} (and the YAML key
 * {@code PaymentService.charge:} under {@code operations:}) would bind nothing, silently.
 * Since the default operation name, {@code SimpleClassName.methodName}, always contains a
 * dot, that is the form operators write first. Bound as a flat map of strings, the same
 * property keeps its whole key; everything before its last element is the operation name,
 * and the operation is then bound under that name.
 */
final class OperationNames {

	private static final ConfigurationPropertyName OPERATIONS = ConfigurationPropertyName.of("idempotency.operations");

	private OperationNames() {
	}

	/**
	 * Return every configured operation, by name.
	 * @param bound the operations bound to {@link IdempotencyProperties}
	 * @param binder the binder of the environment
	 * @return the bound operations and those whose dotted name was written without
	 * brackets
	 */
	static Map<String, IdempotencyOperationProperties> complete(Map<String, IdempotencyOperationProperties> bound,
			Binder binder) {
		Map<String, IdempotencyOperationProperties> operations = new LinkedHashMap<>(bound);
		Map<String, String> flat = binder.bind(OPERATIONS, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
		for (String key : flat.keySet()) {
			int lastDot = key.lastIndexOf('.');
			String name = (lastDot > 0) ? key.substring(0, lastDot) : "";
			if (name.indexOf('.') > 0 && !operations.containsKey(name)) {
				binder
					.bind(OPERATIONS.append(ConfigurationPropertyName.adapt(name, '.')),
							Bindable.of(IdempotencyOperationProperties.class))
					.ifBound((operation) -> operations.put(name, operation));
			}
		}
		return operations;
	}

}
