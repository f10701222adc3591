package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

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
 * ({@link SharedLettuceConnection}) is looked up once instead, and again after any
 * failure other than an error reply, so that it follows the factory when the factory
 * resets, stops or replaces it. A script that Lettuce refused to send because that
 * connection was closed is sent once more on the one looked up again: it never reached
 * Redis. The shared connection is never in a transaction of the application's: the
 * factory runs those on dedicated connections.
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

	private final SharedLettuceConnection connection;

	// Connections of the runner's own, for WAIT and the health of a cluster's primaries
	private final DedicatedConnections ownConnections;

	private final LettuceReplicaWaits waits;

	LettuceScriptRunner(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = (LettuceConnectionFactory) connectionFactory;
		this.timeoutNanos = timeout.toNanos();
		Duration connectTimeout = this.connectionFactory.getClientConfiguration()
			.getClientOptions()
			.map((options) -> options.getSocketOptions().getConnectTimeout())
			.orElse(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION)
			.plus(timeout);
		this.connection = new SharedLettuceConnection(this.connectionFactory, connectTimeout);
		this.ownConnections = DedicatedConnections.of(this.connectionFactory, connectTimeout.toNanos());
		this.waits = new LettuceReplicaWaits(this.connectionFactory, timeout, this.ownConnections);
	}

	static boolean canRunOn(RedisConnectionFactory connectionFactory) {
		return connectionFactory instanceof LettuceConnectionFactory;
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.connection.commands();
		try {
			return LettuceEval.evaluate(commands, script, key, args, this.timeoutNanos);
		}
		catch (RuntimeException ex) {
			if (ex instanceof RedisCommandExecutionException) {
				throw ex;
			}
			this.connection.reset(commands);
			if (!(ex instanceof RedisException) || !CLOSED.equals(ex.getMessage())) {
				throw ex;
			}
			return LettuceEval.evaluate(this.connection.commands(), script, key, args, this.timeoutNanos);
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
		this.connection.commands();
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
		return send(script, new byte[][] { key }, args);
	}

	private <T> CompletableFuture<@Nullable T> send(RedisScript<T> script, byte[][] keys, byte[][] args) {
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = this.connection.commands();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		ScriptOutputType type = LettuceEval.outputType(script);
		CompletableFuture<@Nullable T> reply = commands.<T>evalsha(script.getSha1(), type, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				if (RedisErrors.isNoScript(cause)) {
					return commands.<T>eval(script.getScriptAsString(), type, keys, args).toCompletableFuture();
				}
				if (!(cause instanceof RedisCommandExecutionException)) {
					this.connection.reset(commands);
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
	 * together, send each as {@link #runAsync} does.
	 */
	@Override
	public List<CompletableFuture<@Nullable Object>> runAll(List<ScriptCall> calls) {
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = this.connection.commands();
		}
		catch (RuntimeException ex) {
			return calls.stream().map((call) -> CompletableFuture.<@Nullable Object>failedFuture(ex)).toList();
		}
		LettuceBatches batches = LettuceBatches.of(commands, this.timeoutNanos, this.connection::reset);
		if (batches == null) {
			return calls.stream()
				.map((call) -> send(call.script(), call.keys(), call.args())
					.<@Nullable Object>thenApply((reply) -> reply))
				.toList();
		}
		return batches.run(calls);
	}

	/**
	 * Return the slot of a key on Redis Cluster, as Lettuce routes it; 0 elsewhere.
	 */
	@Override
	public int slot(byte[] key) {
		return this.connectionFactory.isClusterAware() ? SlotHash.getSlot(key) : 0;
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
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.connection.commands();
		try {
			return LettuceEval.await(command.apply(commands), this.timeoutNanos);
		}
		catch (RuntimeException ex) {
			if (!(ex instanceof RedisCommandExecutionException)) {
				this.connection.reset(commands);
			}
			throw ex;
		}
	}

}
