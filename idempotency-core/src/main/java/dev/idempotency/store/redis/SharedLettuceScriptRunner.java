package dev.idempotency.store.redis;

import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs scripts straight on the native connection that a {@link LettuceConnectionFactory}
 * shares between all of its connections (Boot's default), the same connection a
 * {@code RedisTemplate} would send them on.
 * <p>
 * Taking a connection from the factory for every script takes a lock and builds a
 * {@link LettuceConnection} that is thrown away after one command: a sixth of a replay's
 * CPU. The shared connection is looked up once and again whenever it is no longer open
 * (the factory was reset or stopped, or Redis went away), so it follows the factory. It
 * is never in a transaction of the application's: the factory runs those on dedicated
 * connections.
 */
final class SharedLettuceScriptRunner implements ScriptRunner {

	private final LettuceConnectionFactory connectionFactory;

	private final long timeoutNanos;

	private volatile @Nullable Shared shared;

	SharedLettuceScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = (LettuceConnectionFactory) connectionFactory;
		this.timeoutNanos = this.connectionFactory.getClientConfiguration().getCommandTimeout().toNanos();
	}

	static boolean canRunOn(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.getShareNativeConnection();
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		ScriptOutputType type = outputType(script);
		byte[][] keys = { key };
		try {
			return await(commands.evalsha(script.getSha1(), type, keys, args));
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			return await(commands.eval(script.getScriptAsString(), type, keys, args));
		}
	}

	// Every transition answers an integer or a multi-bulk reply (see RedisScripts): no
	// need for Spring Data's general conversion on every call.
	private static ScriptOutputType outputType(RedisScript<?> script) {
		return (script.getResultType() == Long.class) ? ScriptOutputType.INTEGER : ScriptOutputType.MULTI;
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		Shared shared = this.shared;
		if (shared == null || !shared.connection().isOpen()) {
			shared = Shared.of(this.connectionFactory);
			this.shared = shared;
		}
		return shared.commands();
	}

	private <T> T await(RedisFuture<T> reply) {
		return LettuceFutures.awaitOrCancel(reply, this.timeoutNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * The factory's shared connection and its commands.
	 *
	 * @param connection the shared connection, to tell whether it is still open
	 * @param commands its asynchronous commands
	 */
	private record Shared(StatefulConnection<byte[], byte[]> connection,
			RedisClusterAsyncCommands<byte[], byte[]> commands) {

		static Shared of(LettuceConnectionFactory connectionFactory) {
			RedisClusterAsyncCommands<byte[], byte[]> commands;
			try (RedisConnection connection = connectionFactory.getConnection()) {
				commands = ((LettuceConnection) connection).getNativeConnection();
			}
			if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
				return new Shared(standalone.getStatefulConnection(), commands);
			}
			if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				return new Shared(cluster.getStatefulConnection(), commands);
			}
			throw new IllegalStateException("Unexpected native Lettuce connection " + commands);
		}

	}

}
