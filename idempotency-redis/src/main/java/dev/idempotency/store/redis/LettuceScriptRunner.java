package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
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
 * <p>
 * Every command waits for its reply at most for the runner's own timeout, whatever the
 * factory's command timeout (60 seconds by default). Opening the connection is bounded by
 * the client's connect timeout plus the runner's timeout: Lettuce bounds the TCP connect
 * by the former, but waits for the server's answer to its handshake for as long as the
 * factory's command timeout, so the connection is opened on a thread of the runner's own,
 * and a caller gives up waiting for it after that bound, leaving it to finish there.
 * <p>
 * A script followed by {@code WAIT} (replica acknowledgements) goes on connections of the
 * runner's own instead ({@link LettuceReplicaWaits}): {@code WAIT} holds the connection
 * it is sent on until it answers.
 */
final class LettuceScriptRunner implements ScriptRunner {

	// Lettuce's message for a command refused before it was written (DefaultEndpoint)
	private static final String CLOSED = "Connection is closed";

	private final LettuceConnectionFactory connectionFactory;

	private final long timeoutNanos;

	private final Duration connectTimeout;

	private final ThreadPoolExecutor connector;

	// Connections of the runner's own, for WAIT and the health of a cluster's primaries
	private final DedicatedConnections ownConnections;

	private final LettuceReplicaWaits waits;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	// The dedicated connection behind commands, when the factory shares none
	private volatile @Nullable RedisConnection dedicated;

	// The connection being opened, which every caller waits for: one at a time
	private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;

	LettuceScriptRunner(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = (LettuceConnectionFactory) connectionFactory;
		this.timeoutNanos = timeout.toNanos();
		this.connectTimeout = this.connectionFactory.getClientConfiguration()
			.getClientOptions()
			.map((options) -> options.getSocketOptions().getConnectTimeout())
			.orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION)
			.plus(timeout);
		this.connector = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
			Thread thread = new Thread(task, "idempotency-redis-connect");
			thread.setDaemon(true);
			return thread;
		});
		this.connector.allowCoreThreadTimeOut(true);
		this.ownConnections = DedicatedConnections.of(this.connectionFactory, this.connectTimeout.toNanos());
		this.waits = new LettuceReplicaWaits(this.connectionFactory, timeout, this.ownConnections);
	}

	static boolean canRunOn(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory;
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		try {
			return run(commands, script, key, args);
		}
		catch (RuntimeException ex) {
			if (ex instanceof RedisCommandExecutionException) {
				throw ex;
			}
			reset(commands);
			if (!(ex instanceof RedisException) || !CLOSED.equals(ex.getMessage())) {
				throw ex;
			}
			return run(commands(), script, key, args);
		}
	}

	private <T> T run(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<T> script, byte[] key,
			byte[]... args) {
		return evaluate(commands, script, key, args, this.timeoutNanos);
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

	@Override
	public <T> Acknowledged<T> runAndWait(RedisScript<T> script, byte[] key, ReplicaAcks acks, byte[]... args) {
		return this.waits.run(script, key, acks, null, null, args);
	}

	@Override
	public <T> Acknowledged<T> runThenWait(RedisScript<T> script, byte[] key, ReplicaAcks acks,
			Predicate<? super T> wrote, Undo undo, byte[]... args) {
		return this.waits.run(script, key, acks, wrote, undo, args);
	}

	/**
	 * Return the primaries of a cluster as the client sees it, each asked on a connection
	 * of the runner's own.
	 */
	@Override
	public List<Primary> primaries() {
		if (!this.connectionFactory.isClusterAware()) {
			return List.of();
		}
		// Connects, and so loads the topology, if nothing has yet
		commands();
		RedisClusterClient client = (RedisClusterClient) this.connectionFactory.getRequiredNativeClient();
		List<Primary> primaries = new ArrayList<>();
		for (RedisClusterNode node : client.getPartitions()) {
			if (node.is(NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
				RedisURI uri = node.getUri();
				primaries.add(new Primary(LettuceNodeCommands.address(uri),
						new LettuceNodeCommands(this.ownConnections, uri.getHost(), uri.getPort(), this.timeoutNanos),
						node::hasSlot));
			}
		}
		return primaries;
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
					reset(commands);
				}
				return CompletableFuture.failedFuture(cause);
			});
		return reply.orTimeout(this.timeoutNanos, TimeUnit.NANOSECONDS);
	}

	@Override
	public boolean pipelines() {
		return true;
	}

	/**
	 * Write every script to the connection in one go and await the replies together
	 * ({@link LettuceBatches}); with a connection whose commands cannot be dispatched
	 * together, send each with {@link #runAsync}.
	 */
	@Override
	public <T> List<CompletableFuture<@Nullable T>> runAll(RedisScript<T> script, List<byte[]> keys,
			List<byte[][]> args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = commands();
		}
		catch (RuntimeException ex) {
			return keys.stream().map((key) -> CompletableFuture.<@Nullable T>failedFuture(ex)).toList();
		}
		LettuceBatches batches = LettuceBatches.of(commands, this.timeoutNanos, this::reset);
		if (batches == null) {
			return ScriptRunner.super.runAll(script, keys, args);
		}
		return batches.run(script, keys, args);
	}

	// Every transition answers an integer or a multi-bulk reply (see RedisScripts): no
	// need for Spring Data's general conversion on every call.
	static ScriptOutputType outputType(RedisScript<?> script) {
		return (script.getResultType() == Long.class) ? ScriptOutputType.INTEGER : ScriptOutputType.MULTI;
	}

	@Override
	public List<Boolean> scriptsExist(String... shas) {
		return call((commands) -> commands.scriptExists(shas));
	}

	@Override
	public boolean delete(byte[] key) {
		Long deleted = call((commands) -> commands.del(key));
		return deleted != null && deleted > 0;
	}

	private <T> T call(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		try {
			return await(command.apply(commands));
		}
		catch (RuntimeException ex) {
			if (!(ex instanceof RedisCommandExecutionException)) {
				reset(commands);
			}
			throw ex;
		}
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.commands;
		return (commands != null) ? commands : connect();
	}

	private RedisClusterAsyncCommands<byte[], byte[]> connect() {
		CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;
		synchronized (this) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = this.commands;
			if (commands != null) {
				return commands;
			}
			connecting = this.connecting;
			if (connecting == null) {
				connecting = new CompletableFuture<>();
				CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening = connecting;
				try {
					this.connector.execute(() -> open(opening));
				}
				catch (RejectedExecutionException ex) {
					throw new RedisConnectionFailureException("Could not start to connect to Redis", ex);
				}
				this.connecting = connecting;
			}
		}
		try {
			return connecting.get(this.connectTimeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new RedisConnectionFailureException("Redis did not accept a connection within " + this.connectTimeout
					+ " (the client's connect timeout and the idempotency command timeout)");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new RedisConnectionFailureException("Could not connect to Redis", cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionFailureException("Interrupted while connecting to Redis", ex);
		}
	}

	private void open(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting) {
		try {
			RedisConnection connection = this.connectionFactory.getConnection();
			RedisClusterAsyncCommands<byte[], byte[]> commands = ((LettuceConnection) connection).getNativeConnection();
			synchronized (this) {
				if (this.connectionFactory.getShareNativeConnection()) {
					connection.close();
				}
				else {
					this.dedicated = connection;
				}
				this.commands = commands;
				this.connecting = null;
			}
			connecting.complete(commands);
		}
		catch (Throwable ex) {
			synchronized (this) {
				this.connecting = null;
			}
			connecting.completeExceptionally(ex);
		}
	}

	// Only the connection that failed: a caller that took it before it was replaced
	// fails late, and must not close its successor under every other caller's commands.
	private synchronized void reset(RedisClusterAsyncCommands<byte[], byte[]> failed) {
		if (this.commands != failed) {
			return;
		}
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
		return await(reply, this.timeoutNanos);
	}

	static <T> T await(RedisFuture<T> reply, long timeoutNanos) {
		return LettuceFutures.awaitOrCancel(reply, timeoutNanos, TimeUnit.NANOSECONDS);
	}

}
