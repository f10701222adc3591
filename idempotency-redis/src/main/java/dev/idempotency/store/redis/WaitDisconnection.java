package dev.idempotency.store.redis;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;

/**
 * Fails a {@code WAIT} when its connection drops before it answers. Lettuce sends a
 * command that had no reply again once it has reconnected, and {@code WAIT} on the new
 * connection counts none of the writes made on the old one: from Redis 7.2 it answers at
 * once that every replica acknowledged them (older servers count every write so far, and
 * wait once more). Whether the replicas have them is then unknown.
 */
final class WaitDisconnection implements RedisConnectionStateListener {

	private final CompletableFuture<Void> dropped = new CompletableFuture<>();

	@Override
	public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
		this.dropped.complete(null);
	}

	<T> RedisFuture<T> fails(RedisFuture<T> waited) {
		// Lettuce's futures are CompletableFutures; one done is never sent again
		this.dropped.thenRun(() -> ((CompletableFuture<T>) waited)
			.completeExceptionally(new RedisException("The connection to Redis dropped before WAIT answered: "
					+ "whether replicas acknowledged the writes before it is unknown")));
		return waited;
	}

}
