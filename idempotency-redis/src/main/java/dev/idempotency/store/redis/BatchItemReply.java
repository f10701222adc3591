package dev.idempotency.store.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;

/**
 * What an item of a batch got from Redis ({@link BatchCalls#await}).
 */
@FunctionalInterface
interface BatchItemReply {

	/**
	 * Receive an item's reply or failure.
	 * @param index the item's index in the batch
	 * @param reply its reply, {@code null} when it failed or none came
	 * @param failure why it failed, {@code null} when it did not
	 */
	void accept(int index, @Nullable Object reply, @Nullable RuntimeException failure);

	/**
	 * Receive the reply of an item sent in a single-key script, or its failure.
	 * @param index the item's index in the batch
	 * @param reply the script's reply, complete
	 */
	default void single(int index, CompletableFuture<@Nullable Object> reply) {
		try {
			accept(index, reply.join(), null);
		}
		catch (CompletionException ex) {
			accept(index, null, failure(ex));
		}
	}

	/**
	 * Return why a call failed.
	 * @param ex its failure, as a future reports it
	 * @return the client's failure
	 */
	static RuntimeException failure(CompletionException ex) {
		Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
		return (cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause);
	}

}
