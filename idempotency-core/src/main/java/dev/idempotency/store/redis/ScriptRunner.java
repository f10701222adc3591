package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * Runs a transition script on one key: {@code EVALSHA}, and {@code EVAL} when Redis does
 * not have the script cached yet. Replies come back as the client decoded them, bulk
 * strings as {@code byte[]}, untouched; failures as the client's own exceptions. Also
 * sends the store's few commands that are not scripts, on the same connections.
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
	 * Ask whether Redis holds scripts in its script cache ({@code SCRIPT EXISTS}).
	 * @param shas the SHA-1 digests of the scripts
	 * @return whether each one is cached, in the same order
	 */
	List<Boolean> scriptsExist(String... shas);

	/**
	 * Delete a key ({@code DEL}).
	 * @param key the key
	 * @return whether there was a value to delete
	 */
	boolean delete(byte[] key);

	/**
	 * Return the fastest runner that a connection factory supports: one native connection
	 * of a Lettuce factory (the one it shares, or one of the runner's own), a connection
	 * per script for any other.
	 * @param connectionFactory the connection factory
	 * @param timeout how long a command may wait for its reply, where the client allows
	 * the runner to bound it
	 * @return the runner
	 */
	static ScriptRunner of(RedisConnectionFactory connectionFactory, Duration timeout) {
		if (ClassUtils.isPresent("io.lettuce.core.RedisClient", ScriptRunner.class.getClassLoader())
				&& LettuceScriptRunner.canRunOn(connectionFactory)) {
			return new LettuceScriptRunner(connectionFactory, timeout);
		}
		return new ConnectionScriptRunner(connectionFactory, timeout);
	}

}
