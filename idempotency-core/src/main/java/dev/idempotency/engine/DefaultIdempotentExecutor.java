package dev.idempotency.engine;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.PayloadFingerprinter;
import dev.idempotency.codec.ResultCodec;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.util.Assert;

/**
 * {@link IdempotentExecutor} over an {@link IdempotencyEngine}. Operations are resolved
 * once per name and result type and cached. A name that {@link Operation#checkName}
 * rejects fails the call with {@link IllegalArgumentException} before anything runs.
 */
public final class DefaultIdempotentExecutor implements IdempotentExecutor {

	private final IdempotencyEngine engine;

	private final ResultCodec codec;

	private final PayloadFingerprinter fingerprinter;

	private final Map<OperationKey, Operation> operations = new ConcurrentHashMap<>();

	/**
	 * Create an executor.
	 * @param engine the engine to run calls with
	 * @param codec the codec of results
	 * @param fingerprinter the fingerprinter of payloads
	 */
	public DefaultIdempotentExecutor(IdempotencyEngine engine, ResultCodec codec, PayloadFingerprinter fingerprinter) {
		this.engine = engine;
		this.codec = codec;
		this.fingerprinter = fingerprinter;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T execute(String name, Object key, @Nullable Object payload,
			ParameterizedTypeReference<T> resultType, Supplier<T> action) {
		Assert.notNull(action, "'action' must not be null");
		Operation operation = operation(name, ResolvableType.forType(resultType));
		Fingerprint fingerprint = (payload != null) ? () -> this.fingerprinter.fingerprint(payload) : null;
		return (T) call(operation, key, fingerprint, action::get);
	}

	@Override
	@SuppressWarnings({ "unchecked", "rawtypes" })
	public <I, T> List<BatchOutcome<I, T>> executeAll(String name, List<? extends I> items,
			Function<? super I, ?> keyFunction, @Nullable Function<? super I, ?> payloadFunction,
			ParameterizedTypeReference<T> resultType, Function<? super I, ? extends T> work) {
		Assert.notNull(work, "'work' must not be null");
		Operation operation = operation(name, ResolvableType.forType(resultType));
		Function<? super I, @Nullable Fingerprint> fingerprints = null;
		if (payloadFunction != null) {
			fingerprints = (item) -> {
				Object payload = payloadFunction.apply(item);
				return (payload != null) ? () -> this.fingerprinter.fingerprint(payload) : null;
			};
		}
		// Results are decoded to, and the work returns, the result type
		return (List) this.engine.executeAll(operation, items, keyFunction, fingerprints, work);
	}

	@Override
	public void run(String name, Object key, Runnable action) {
		Assert.notNull(action, "'action' must not be null");
		call(operation(name, ResolvableType.NONE), key, null, () -> {
			action.run();
			return null;
		});
	}

	private @Nullable Object call(Operation operation, Object key, @Nullable Fingerprint fingerprint,
			Invocation invocation) {
		try {
			return this.engine.execute(operation, key, fingerprint, invocation);
		}
		catch (RuntimeException | Error ex) {
			throw ex;
		}
		catch (Throwable ex) {
			throw new IllegalStateException("Unexpected checked exception from an idempotent action", ex);
		}
	}

	// A name is checked when its operation is first resolved; a rejected one is never
	// cached, so every call with it fails.
	private Operation operation(String name, ResolvableType type) {
		Assert.notNull(name, "'name' must not be null");
		return this.operations.computeIfAbsent(new OperationKey(name, type), (key) -> {
			Operation.checkName(name);
			OperationSettings settings = this.engine.getDefaults().resolve(name, OperationOverrides.NONE);
			ResultCodec.TypedCodec typed = (type == ResolvableType.NONE) ? null : this.codec.forType(type);
			return new Operation(name, settings, typed, "the key given to IdempotentExecutor");
		});
	}

	private record OperationKey(String name, ResolvableType type) {
	}

}
