package dev.idempotency;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What {@link IdempotentExecutor#executeAll} did for one item of a batch: one of
 * {@link Executed}, {@link Replayed}, {@link InProgress}, {@link KeyReused} and
 * {@link Failed}. Every outcome carries its item and the key it was stored under (after
 * hashing, if the key was longer than {@code idempotency.max-key-length}).
 * <p>
 * For a batch listener: acknowledge {@code Executed} and {@code Replayed}, retry
 * {@code InProgress} later (another attempt holds the key, and may still fail), send
 * {@code KeyReused} to a dead-letter destination, and handle {@code Failed} as a failed
 * delivery of that item.
 *
 * @param <I> the item type
 * @param <T> the result type
 */
public sealed interface BatchOutcome<I, T> {

	/**
	 * Return the item this outcome is for.
	 * @return the item
	 */
	I item();

	/**
	 * Return the idempotency key of the item, as stored.
	 * @return the key
	 */
	String key();

	/**
	 * The work ran for this item and its result is stored: for a new key, after a failed
	 * attempt, or after taking over an attempt whose lease had expired.
	 *
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param item the item
	 * @param key its key, as stored
	 * @param result what the work returned
	 */
	record Executed<I, T>(I item, String key, @Nullable T result) implements BatchOutcome<I, T> {

		/**
		 * Create an outcome.
		 * @param item the item
		 * @param key its key, as stored
		 * @param result what the work returned
		 * @throws IllegalArgumentException if the item is {@code null} or the key is
		 * empty
		 */
		public Executed {
			Assert.notNull(item, "'item' must not be null");
			Assert.hasText(key, "'key' must not be empty");
		}

	}

	/**
	 * An earlier attempt completed this key, so the work did not run: the result it
	 * stored, decoded to the batch's result type. Also the outcome of an item whose key
	 * an earlier item of the same batch executed or replayed.
	 *
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param item the item
	 * @param key its key, as stored
	 * @param result the stored result
	 */
	record Replayed<I, T>(I item, String key, @Nullable T result) implements BatchOutcome<I, T> {

		/**
		 * Create an outcome.
		 * @param item the item
		 * @param key its key, as stored
		 * @param result the stored result
		 * @throws IllegalArgumentException if the item is {@code null} or the key is
		 * empty
		 */
		public Replayed {
			Assert.notNull(item, "'item' must not be null");
			Assert.hasText(key, "'key' must not be empty");
		}

	}

	/**
	 * Another attempt holds this key with a live lease, so the work did not run. A batch
	 * never waits for it, whatever {@code on-in-progress} says: retry the item later.
	 *
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param item the item
	 * @param key its key, as stored
	 * @param retryAfter time left on the other attempt's lease, on the store's clock
	 */
	record InProgress<I, T>(I item, String key, Duration retryAfter) implements BatchOutcome<I, T> {

		/**
		 * Create an outcome.
		 * @param item the item
		 * @param key its key, as stored
		 * @param retryAfter time left on the other attempt's lease, on the store's clock
		 * @throws IllegalArgumentException if the item or the retry-after duration is
		 * {@code null} or the key is empty
		 */
		public InProgress {
			Assert.notNull(item, "'item' must not be null");
			Assert.hasText(key, "'key' must not be empty");
			Assert.notNull(retryAfter, "'retryAfter' must not be null");
		}

	}

	/**
	 * The key was first used with another payload, so the work did not run (see
	 * {@link IdempotencyKeyReuseException}). Also the outcome of an item whose payload
	 * differs from that of an earlier item of the same batch with the same key.
	 *
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param item the item
	 * @param key its key, as stored
	 */
	record KeyReused<I, T>(I item, String key) implements BatchOutcome<I, T> {

		/**
		 * Create an outcome.
		 * @param item the item
		 * @param key its key, as stored
		 * @throws IllegalArgumentException if the item is {@code null} or the key is
		 * empty
		 */
		public KeyReused {
			Assert.notNull(item, "'item' must not be null");
			Assert.hasText(key, "'key' must not be empty");
		}

	}

	/**
	 * The item failed, and its record was released for the next delivery unless said
	 * otherwise. The exception is:
	 * <ul>
	 * <li>what the work threw for this item, unchanged (a failure to release the record
	 * is suppressed in it);</li>
	 * <li>{@link IdempotencyLockLostException} when the work ran but another attempt took
	 * the record over before the batch completed it: the result was not stored;</li>
	 * <li>{@link IdempotencyCompletionException} when the work ran but the store kept
	 * failing to complete the record;</li>
	 * <li>{@link IdempotencyReplayException} when the key was completed earlier but its
	 * result cannot be replayed;</li>
	 * <li>the same exception as an earlier item of the same batch with the same key.</li>
	 * </ul>
	 *
	 * @param <I> the item type
	 * @param <T> the result type
	 * @param item the item
	 * @param key its key, as stored
	 * @param exception why it failed
	 */
	record Failed<I, T>(I item, String key, Throwable exception) implements BatchOutcome<I, T> {

		/**
		 * Create an outcome.
		 * @param item the item
		 * @param key its key, as stored
		 * @param exception why it failed
		 * @throws IllegalArgumentException if the item or the exception is {@code null}
		 * or the key is empty
		 */
		public Failed {
			Assert.notNull(item, "'item' must not be null");
			Assert.hasText(key, "'key' must not be empty");
			Assert.notNull(exception, "'exception' must not be null");
		}

	}

}
