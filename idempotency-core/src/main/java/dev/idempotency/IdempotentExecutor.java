package dev.idempotency;

import java.util.List;
import java.util.function.Function;
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
 * <p>
 * A batch listener hands a whole batch to {@link #executeAll executeAll}, which takes
 * every item's key in one store round trip and completes them in another:
 * <pre class="code">
 * List&lt;BatchOutcome&lt;Event, Receipt&gt;&gt; outcomes = executor.executeAll("charge", events, Event::id,
 *         Receipt.class, payments::charge);
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
	 * Run the work once per key for a batch of items; see
	 * {@link #executeAll(String, List, Function, Function, ParameterizedTypeReference, Function)}.
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param items the items, none {@code null}, copied when the call starts (the work
	 * may change the list)
	 * @param keyFunction the idempotency key of an item; its {@code toString()} is used
	 * @param resultType the type results are stored and replayed as
	 * @param work the work to do once per key, given the item
	 * @return one outcome per item, in the order of the items
	 * @throws IdempotencyException when the batch cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	default <I, T> List<BatchOutcome<I, T>> executeAll(String name, List<? extends I> items,
			Function<? super I, ?> keyFunction, Class<T> resultType, Function<? super I, ? extends T> work) {
		return executeAll(name, items, keyFunction, null, ParameterizedTypeReference.forType(resultType), work);
	}

	/**
	 * Run the work once per key for a batch of items, for a generic result type; see
	 * {@link #executeAll(String, List, Function, Function, ParameterizedTypeReference, Function)}.
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param items the items, none {@code null}, copied when the call starts (the work
	 * may change the list)
	 * @param keyFunction the idempotency key of an item; its {@code toString()} is used
	 * @param resultType the type results are stored and replayed as
	 * @param work the work to do once per key, given the item
	 * @return one outcome per item, in the order of the items
	 * @throws IdempotencyException when the batch cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	default <I, T> List<BatchOutcome<I, T>> executeAll(String name, List<? extends I> items,
			Function<? super I, ?> keyFunction, ParameterizedTypeReference<T> resultType,
			Function<? super I, ? extends T> work) {
		return executeAll(name, items, keyFunction, null, resultType, work);
	}

	/**
	 * Run the work once per key for a batch of items, fingerprinting each item's payload;
	 * see
	 * {@link #executeAll(String, List, Function, Function, ParameterizedTypeReference, Function)}.
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param items the items, none {@code null}, copied when the call starts (the work
	 * may change the list)
	 * @param keyFunction the idempotency key of an item; its {@code toString()} is used
	 * @param payloadFunction the payload of an item to fingerprint, or {@code null} for
	 * none
	 * @param resultType the type results are stored and replayed as
	 * @param work the work to do once per key, given the item
	 * @return one outcome per item, in the order of the items
	 * @throws IdempotencyException when the batch cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name
	 */
	default <I, T> List<BatchOutcome<I, T>> executeAll(String name, List<? extends I> items,
			Function<? super I, ?> keyFunction, @Nullable Function<? super I, ?> payloadFunction, Class<T> resultType,
			Function<? super I, ? extends T> work) {
		return executeAll(name, items, keyFunction, payloadFunction, ParameterizedTypeReference.forType(resultType),
				work);
	}

	/**
	 * Run the work once per key for a batch of items, as {@link #execute} runs an action
	 * once per key, in two store round trips for the whole batch where the store can
	 * pipeline (the Redis store with Lettuce; on Redis Cluster, one pipeline per primary,
	 * in flight together), and one per item elsewhere:
	 * <ol>
	 * <li>Every item's key is taken in one round trip, none waited for.</li>
	 * <li>The work runs on the calling thread, in the order of the items, for the items
	 * whose key was taken, each with its {@link IdempotencyContext} current; the leases
	 * of all of them are renewed until the batch has recorded their outcomes.</li>
	 * <li>The records of the items whose work returned are completed in one round trip;
	 * those whose work threw are released for the next delivery.</li>
	 * </ol>
	 * Then one outcome per item is returned, in the order of the items (see
	 * {@link BatchOutcome}). A key held by another attempt is
	 * {@link BatchOutcome.InProgress in progress} at once: a batch never waits, whatever
	 * {@code on-in-progress} says. Items with the same key never run the work twice: the
	 * first of them decides, and the later ones get its result as
	 * {@link BatchOutcome.Replayed replayed}, or the same outcome when it did not
	 * execute. Metrics and observers count one call per item, with the outcomes of single
	 * calls.
	 * <p>
	 * Nothing runs when a key is invalid ({@link IdempotencyKeyException} for the batch),
	 * or when the store fails to take the keys and {@code on-store-failure} is
	 * {@code fail} ({@link IdempotencyStoreException} for the batch). With
	 * {@code proceed}, the work then runs unprotected once per distinct key, and those
	 * items are reported {@link BatchOutcome.Executed executed} (counted as
	 * {@code bypassed}). An {@link Error} thrown by the work stops the batch: the items
	 * that ran before it are completed, the others released, and the error thrown.
	 * <p>
	 * While the application shuts down, a new batch runs nothing
	 * ({@link IdempotencyShutdownException} for the batch); a batch already running goes
	 * on, except that the items whose work has not started when the shutdown reaches its
	 * bound are released and {@link BatchOutcome.Failed fail} with that exception.
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param name the operation name, following the rules of {@link Idempotent#name()}
	 * @param items the items, none {@code null}, copied when the call starts (the work
	 * may change the list)
	 * @param keyFunction the idempotency key of an item; its {@code toString()} is used
	 * @param payloadFunction the payload of an item to fingerprint (a later item or call
	 * with the same key and a different payload is {@link BatchOutcome.KeyReused}), or
	 * {@code null} for none
	 * @param resultType the type results are stored and replayed as
	 * @param work the work to do once per key, given the item
	 * @return one outcome per item, in the order of the items
	 * @throws IdempotencyException when the batch cannot be made idempotent
	 * @throws IllegalArgumentException if the name is not a valid operation name, or an
	 * item is {@code null}
	 */
	<I, T> List<BatchOutcome<I, T>> executeAll(String name, List<? extends I> items, Function<? super I, ?> keyFunction,
			@Nullable Function<? super I, ?> payloadFunction, ParameterizedTypeReference<T> resultType,
			Function<? super I, ? extends T> work);

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
