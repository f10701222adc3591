package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs each script on a connection of its own from the factory, as {@code RedisTemplate}
 * would without its per-call proxy, but never on one bound to the caller's thread: a
 * transition must not be queued in the application's own {@code MULTI}. Works with any
 * client.
 */
final class ConnectionScriptRunner implements ScriptRunner {

	private final RedisConnectionFactory connectionFactory;

	ConnectionScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	@SuppressWarnings("unchecked")
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		ReturnType type = ReturnType.fromJavaType(script.getResultType());
		byte[][] keysAndArgs = new byte[args.length + 1][];
		keysAndArgs[0] = key;
		System.arraycopy(args, 0, keysAndArgs, 1, args.length);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisScriptingCommands commands = connection.scriptingCommands();
			try {
				return (T) commands.evalSha(script.getSha1(), type, 1, keysAndArgs);
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isNoScript(ex)) {
					throw ex;
				}
				return (T) commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, 1,
						keysAndArgs);
			}
		}
	}

}
