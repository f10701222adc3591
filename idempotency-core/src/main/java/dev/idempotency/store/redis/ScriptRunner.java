package dev.idempotency.store.redis;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * Runs a transition script on one key: {@code EVALSHA}, and {@code EVAL} when Redis does
 * not have the script cached yet. Replies come back as the client decoded them, bulk
 * strings as {@code byte[]}, untouched; failures as the client's own exceptions.
 */
interface ScriptRunner {

	/**
	 * Run a script.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param args its arguments
	 * @return the reply
	 */
	<T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args);

	/**
	 * Run a script without waiting for its reply, where the client allows; this default
	 * runs it on the calling thread.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param args its arguments
	 * @return the reply, or the client's failure
	 */
	default <T> CompletableFuture<@Nullable T> runAsync(RedisScript<T> script, byte[] key, byte[]... args) {
		try {
			return CompletableFuture.completedFuture(run(script, key, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Return the fastest runner that a connection factory supports: one native connection
	 * of a Lettuce factory (the one it shares, or one of the runner's own), a connection
	 * per script for any other.
	 * @param connectionFactory the connection factory
	 * @return the runner
	 */
	static ScriptRunner of(RedisConnectionFactory connectionFactory) {
		if (ClassUtils.isPresent("io.lettuce.core.RedisClient", ScriptRunner.class.getClassLoader())
				&& LettuceScriptRunner.canRunOn(connectionFactory)) {
			return new LettuceScriptRunner(connectionFactory);
		}
		return new ConnectionScriptRunner(connectionFactory);
	}

}
