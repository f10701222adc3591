package dev.idempotency.store.redis;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;

/**
 * Sends {@code WAIT} on a Spring Data {@link LettuceConnection}, which reads the reply of
 * a command it has no type hint for as a bulk string, and fails on the integer that
 * {@code WAIT} answers. A class of its own, loaded only when Lettuce is on the class
 * path.
 */
final class LettuceConnectionWait {

	private LettuceConnectionWait() {
	}

	/**
	 * Send {@code WAIT} if the connection is a Lettuce one.
	 * @param connection the connection
	 * @param args the replicas and the timeout
	 * @return the reply, or {@code null} for a connection of another client
	 */
	static @Nullable Object execute(RedisConnection connection, byte[]... args) {
		if (connection instanceof LettuceConnection lettuce) {
			return lettuce.execute("WAIT", new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
		}
		return null;
	}

}
