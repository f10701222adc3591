package dev.idempotency.store.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs commands on one node of a Redis Cluster, on the node connection of a cluster
 * connection of the store's own ({@link DedicatedConnections}), borrowed for each
 * command, never redirected: a node that does not serve the key's slot answers
 * {@code MOVED}. Health checks use it to ask each primary in turn, and wait for a node's
 * connection at most for the command timeout.
 */
final class LettuceNodeCommands implements ScriptCommands {

	private final DedicatedConnections connections;

	private final String host;

	private final int port;

	private final long timeoutNanos;

	LettuceNodeCommands(DedicatedConnections connections, String host, int port, long timeoutNanos) {
		this.connections = connections;
		this.host = host;
		this.port = port;
		this.timeoutNanos = timeoutNanos;
	}

	/**
	 * Return the {@code host:port} of a node, an IPv6 host in brackets.
	 * @param uri the node's URI
	 * @return its address
	 */
	static String address(RedisURI uri) {
		String host = uri.getHost();
		return (host.contains(":") ? "[" + host + "]" : host) + ":" + uri.getPort();
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		return call((commands) -> LettuceEval.evaluate(commands, script, key, args, this.timeoutNanos));
	}

	@Override
	public List<Boolean> scriptsExist(String... shas) {
		return call((commands) -> LettuceEval.await(commands.scriptExists(shas), this.timeoutNanos));
	}

	private <T> T call(Function<RedisAsyncCommands<byte[], byte[]>, T> command) {
		return this.connections.lend(this.timeoutNanos,
				(connection) -> command.apply(node((StatefulRedisClusterConnection<byte[], byte[]>) connection,
						this.host, this.port, this.timeoutNanos)
					.async()));
	}

	/**
	 * Return the node connection of a cluster connection, opening it if needed, within a
	 * timeout.
	 * @param cluster the cluster connection
	 * @param host the node's host
	 * @param port the node's port
	 * @param timeoutNanos how long to wait for it to open
	 * @return the node connection
	 * @throws RedisException when the node is not part of the cluster, or cannot be
	 * reached in time
	 */
	static StatefulRedisConnection<byte[], byte[]> node(StatefulRedisClusterConnection<byte[], byte[]> cluster,
			String host, int port, long timeoutNanos) {
		return within(cluster.getConnectionAsync(host, port), timeoutNanos,
				"connect to cluster node " + host + ":" + port);
	}

	/**
	 * Wait for a future of the client's, within a timeout.
	 * @param <T> the value type
	 * @param future the future
	 * @param timeoutNanos how long to wait
	 * @param what what it does, for the message of a failure
	 * @return its value
	 * @throws RedisException when it fails or does not complete in time
	 */
	static <T> T within(CompletableFuture<T> future, long timeoutNanos, String what) {
		try {
			return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw new RedisCommandTimeoutException(
					"Could not " + what + " within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			throw (cause instanceof RuntimeException runtime) ? runtime : new RedisException(cause);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisException("Interrupted while trying to " + what, ex);
		}
	}

}
