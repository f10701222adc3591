package dev.idempotency;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.core.ParameterizedTypeReference;

/**
 * Programmatic access to the same engine as {@link Idempotent}, for code that cannot be
 * annotated (lambdas, framework callbacks, dynamic operation names). Settings come from
 * {@code idempotency.operations.<name>.*} and the {@code idempotency.*} defaults. An
 * exception thrown by an action always releases its record for a retry: failures replayed
 * to duplicates ({@link Idempotent#replayFailures()}) need an annotated method.
 * <pre class="code">
 * Receipt receipt = executor.execute("charge", event.id(), Receipt.class, () -&gt; payments.charge(event));
 * </pre>
 *
 * @see Idempotent
 */
public interface IdempotentExecutor {

	/**
	 * Run the action once for the key, or return the result stored by the first run.
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param key the idempotency key; its {@code toString()} is used
	 * @param resultType the type the result is stored and replayed as
	 * @param action the work to do once
	 * @return the result of this run or of the first one
	 * @throws IdempotencyException when the call cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	default <T> @Nullable T execute(String name, Object key, Class<T> resultType, Supplier<T> action) {
		return execute(name, key, null, ParameterizedTypeReference.forType(resultType), action);
	}

	/**
	 * Run the action once for the key, or return the result stored by the first run, for
	 * a generic result type.
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param key the idempotency key; its {@code toString()} is used
	 * @param resultType the type the result is stored and replayed as
	 * @param action the work to do once
	 * @return the result of this run or of the first one
	 * @throws IdempotencyException when the call cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	default <T> @Nullable T execute(String name, Object key, ParameterizedTypeReference<T> resultType,
			Supplier<T> action) {
		return execute(name, key, null, resultType, action);
	}

	/**
	 * Run the action once for the key, fingerprinting the payload: a later call with the
	 * same key and a different payload fails with {@link IdempotencyKeyReuseException}.
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param key the idempotency key; its {@code toString()} is used
	 * @param payload the payload to fingerprint, or {@code null} for none
	 * @param resultType the type the result is stored and replayed as
	 * @param action the work to do once
	 * @return the result of this run or of the first one
	 * @throws IdempotencyException when the call cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	<T> @Nullable T execute(String name, Object key, @Nullable Object payload, ParameterizedTypeReference<T> resultType,
			Supplier<T> action);

	/**
	 * Run the action once for the key.
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param key the idempotency key; its {@code toString()} is used
	 * @param action the work to do once
	 * @throws IdempotencyException when the call cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	void run(String name, Object key, Runnable action);

}
