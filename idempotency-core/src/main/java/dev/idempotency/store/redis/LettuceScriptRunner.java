package dev.idempotency.store.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs scripts straight on one native Lettuce connection: the one a
 * {@link LettuceConnectionFactory} shares between all of its connections (Boot's
 * default), the same connection a {@code RedisTemplate} would send them on, or else one
 * dedicated connection that this runner takes from the factory and keeps. Either way,
 * scripts sent without waiting ({@link #runAsync}) are pipelined on it.
 * <p>
 * Taking a connection from the factory for every script takes a lock and builds a
 * {@link LettuceConnection} that is thrown away after one command. The shared connection
 * is looked up once instead, and again after any failure other than an error reply, so
 * that it follows the factory when the factory resets, stops or replaces it. A script
 * that Lettuce refused to send because that connection was closed is sent once more on
 * the one looked up again: it never reached Redis. The shared connection is never in a
 * transaction of the application's: the factory runs those on dedicated connections.
 */
final class LettuceScriptRunner implements ScriptRunner {

	// Lettuce's message for a command refused before it was written (DefaultEndpoint)
	private static final String CLOSED = "Connection is closed";

	private final LettuceConnectionFactory connectionFactory;

	private final long timeoutNanos;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	// The dedicated connection behind commands, when the factory shares none
	private volatile @Nullable RedisConnection dedicated;

	LettuceScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = (LettuceConnectionFactory) connectionFactory;
		this.timeoutNanos = this.connectionFactory.getClientConfiguration().getCommandTimeout().toNanos();
	}

	static boolean canRunOn(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory;
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		try {
			return run(commands(), script, key, args);
		}
		catch (RuntimeException ex) {
			if (ex instanceof RedisCommandExecutionException) {
				throw ex;
			}
			reset();
			if (!(ex instanceof RedisException) || !CLOSED.equals(ex.getMessage())) {
				throw ex;
			}
			return run(commands(), script, key, args);
		}
	}

	private <T> T run(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<T> script, byte[] key,
			byte[]... args) {
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

	/**
	 * Write the script at once and hand its reply over when it comes: nothing waits, so
	 * callers that send many pipeline them on the shared connection. The reply is bounded
	 * by the command timeout here too, so that a lost reply never leaves it pending.
	 */
	@Override
	public <T> CompletableFuture<@Nullable T> runAsync(RedisScript<T> script, byte[] key, byte[]... args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		ScriptOutputType type = outputType(script);
		byte[][] keys = { key };
		CompletableFuture<@Nullable T> reply = commands.<T>evalsha(script.getSha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				if (RedisErrors.isNoScript(cause)) {
					return commands.<T>eval(script.getScriptAsString(), type, keys, args).toCompletableFuture();
				}
				if (!(cause instanceof RedisCommandExecutionException)) {
					reset();
				}
				return CompletableFuture.failedFuture(cause);
			});
		return reply.orTimeout(this.timeoutNanos, TimeUnit.NANOSECONDS);
	}

	// Every transition answers an integer or a multi-bulk reply (see RedisScripts): no
	// need for Spring Data's general conversion on every call.
	private static ScriptOutputType outputType(RedisScript<?> script) {
		return (script.getResultType() == Long.class) ? ScriptOutputType.INTEGER : ScriptOutputType.MULTI;
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.commands;
		if (commands == null) {
			synchronized (this) {
				commands = this.commands;
				if (commands == null) {
					RedisConnection connection = this.connectionFactory.getConnection();
					commands = ((LettuceConnection) connection).getNativeConnection();
					if (this.connectionFactory.getShareNativeConnection()) {
						connection.close();
					}
					else {
						this.dedicated = connection;
					}
					this.commands = commands;
				}
			}
		}
		return commands;
	}

	private synchronized void reset() {
		this.commands = null;
		RedisConnection dedicated = this.dedicated;
		this.dedicated = null;
		if (dedicated != null) {
			try {
				dedicated.close();
			}
			catch (RuntimeException ex) {
				// Already broken: that is why it is being replaced
			}
		}
	}

	private <T> T await(RedisFuture<T> reply) {
		return LettuceFutures.awaitOrCancel(reply, this.timeoutNanos, TimeUnit.NANOSECONDS);
	}

}
