package dev.idempotency.store.redis;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends a transition script on native Lettuce commands and awaits Lettuce replies within
 * a bound, for every class that sends on such commands.
 */
final class LettuceEval {

	private LettuceEval() {
	}

	/**
	 * Run a script by its SHA-1, and in full when Redis does not have it cached yet.
	 * @param <T> the reply type
	 * @param commands where to send it
	 * @param script the script
	 * @param key its only key
	 * @param args its arguments
	 * @param timeoutNanos how long to wait for each reply
	 * @return the reply
	 */
	static <T> T evaluate(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<T> script, byte[] key,
			byte[][] args, long timeoutNanos) {
		ScriptOutputType type = outputType(script);
		byte[][] keys = { key };
		try {
			return await(commands.evalsha(script.getSha1(), type, keys, args), timeoutNanos);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			return await(commands.eval(script.getScriptAsString(), type, keys, args), timeoutNanos);
		}
	}

	// Every transition answers an integer or a multi-bulk reply (see RedisScripts): no
	// need for Spring Data's general conversion on every call.
	static ScriptOutputType outputType(RedisScript<?> script) {
		return (script.getResultType() == Long.class) ? ScriptOutputType.INTEGER : ScriptOutputType.MULTI;
	}

	static <T> T await(RedisFuture<T> reply, long timeoutNanos) {
		return LettuceFutures.awaitOrCancel(reply, timeoutNanos, TimeUnit.NANOSECONDS);
	}

}
