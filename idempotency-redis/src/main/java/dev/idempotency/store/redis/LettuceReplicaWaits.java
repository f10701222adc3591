package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.redis.ScriptRunner.Acknowledged;
import dev.idempotency.store.redis.ScriptRunner.Undo;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs a script and then {@code WAIT} on a connection of the runner's own
 * ({@link DedicatedConnections}), never on the one the factory shares: {@code WAIT}
 * blocks the connection it is sent on, and every command of the application would queue
 * behind it.
 * <p>
 * On Redis Cluster, {@code WAIT} is not routed by key, so the script and the {@code WAIT}
 * both go on the node connection of the primary that serves the key's slot, the one the
 * cluster connection would route the script to. A node that no longer serves it answers
 * {@code MOVED} (the script did not run): the script is sent again to the node named,
 * after a refresh of the topology when the client does not know that node. An {@code ASK}
 * (the slot is being migrated) sends it to the node named, after {@code ASKING}. At most
 * {@value #MAX_REDIRECTS} redirections.
 * <p>
 * Each connection's own command timeout is set to the acknowledgement timeout plus the
 * store's command timeout, so that Lettuce does not cut {@code WAIT} short, and a reply
 * is awaited as long: {@code WAIT} answers after its timeout at the latest.
 */
final class LettuceReplicaWaits {

	private static final int MAX_REDIRECTS = 5;

	private final ClusterTopology topology;

	private final long timeoutNanos;

	private final DedicatedConnections connections;

	LettuceReplicaWaits(LettuceConnectionFactory connectionFactory, Duration timeout,
			DedicatedConnections connections) {
		this.timeoutNanos = timeout.toNanos();
		this.topology = new ClusterTopology(connectionFactory, this.timeoutNanos);
		this.connections = connections;
	}

	/**
	 * Run a script and {@code WAIT} after it.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param acks what to wait for
	 * @param wrote whether a reply says that the script wrote, then {@code WAIT} is sent
	 * after the reply; {@code null} to send {@code WAIT} with the script
	 * @param undo what to send after the script when its reply does not come, or
	 * {@code null}
	 * @param args its arguments
	 * @return the reply and what {@code WAIT} answered
	 */
	<T> Acknowledged<T> run(RedisScript<T> script, byte[] key, ReplicaAcks acks, @Nullable Predicate<? super T> wrote,
			@Nullable Undo undo, byte[][] args) {
		Call<T> call = new Call<>(script, key, acks, wrote, undo, args, this.timeoutNanos + acks.timeout().toNanos());
		// After an error reply with nothing suppressed every reply was read, the WAIT
		// sent with the script included: nothing is left pending on the connection
		return this.connections.lend(call.waitNanos,
				(connection, pending) -> (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)
						? onCluster(cluster, call, pending)
						: on((StatefulRedisConnection<byte[], byte[]>) connection, false, call, pending));
	}

	private <T> Acknowledged<T> onCluster(StatefulRedisClusterConnection<byte[], byte[]> cluster, Call<T> call,
			Consumer<CompletableFuture<?>> pending) {
		int slot = SlotHash.getSlot(call.key);
		RedisClusterNode primary = this.topology.primaryOf(cluster, slot);
		String host = primary.getUri().getHost();
		int port = primary.getUri().getPort();
		boolean asking = false;
		for (int redirects = 0;; redirects++) {
			try {
				return on(LettuceNodeCommands.node(cluster, host, port, this.timeoutNanos), asking, call, pending);
			}
			catch (RedisCommandExecutionException ex) {
				ClusterRedirect redirect = (ex.getSuppressed().length == 0) ? ClusterRedirect.of(ex.getMessage())
						: null;
				if (redirect == null || redirects == MAX_REDIRECTS) {
					throw ex;
				}
				asking = redirect.ask();
				if (asking || cluster.getPartitions().getPartition(redirect.host(), redirect.port()) != null) {
					host = redirect.host();
					port = redirect.port();
				}
				else {
					this.topology.refresh();
					primary = this.topology.primaryOf(cluster, slot);
					host = primary.getUri().getHost();
					port = primary.getUri().getPort();
				}
			}
		}
	}

	private <T> Acknowledged<T> on(StatefulRedisConnection<byte[], byte[]> connection, boolean asking, Call<T> call,
			Consumer<CompletableFuture<?>> pending) {
		connection.setTimeout(Duration.ofNanos(call.waitNanos));
		RedisAsyncCommands<byte[], byte[]> commands = connection.async();
		WaitDisconnection disconnection = new WaitDisconnection();
		RedisChannelHandler<?, ?> handler = (RedisChannelHandler<?, ?>) connection;
		handler.addListener(disconnection);
		try {
			return send(commands, asking, false, call, disconnection, pending);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex) || ex.getSuppressed().length > 0) {
				throw ex;
			}
			return send(commands, asking, true, call, disconnection, pending);
		}
		finally {
			handler.removeListener(disconnection);
		}
	}

	private <T> Acknowledged<T> send(RedisAsyncCommands<byte[], byte[]> commands, boolean asking, boolean full,
			Call<T> call, WaitDisconnection disconnection, Consumer<CompletableFuture<?>> pending) {
		if (asking) {
			// Lets the next command in on a node that imports the slot; its OK comes
			// first
			commands.asking();
		}
		ScriptOutputType type = LettuceEval.outputType(call.script);
		byte[][] keys = { call.key };
		RedisFuture<T> reply = full ? commands.eval(call.script.getScriptAsString(), type, keys, call.args)
				: commands.evalsha(call.script.getSha1(), type, keys, call.args);
		if (call.wrote == null) {
			RedisFuture<Long> waited = disconnection
				.fails(commands.waitForReplication(call.acks.replicas(), call.acks.timeout().toMillis()));
			T value;
			try {
				value = LettuceEval.await(reply, this.timeoutNanos);
			}
			catch (RuntimeException ex) {
				drain(waited, call.waitNanos, ex);
				throw ex;
			}
			return new Acknowledged<>(value, LettuceEval.await(waited, call.waitNanos));
		}
		T value;
		try {
			value = LettuceEval.await(reply, this.timeoutNanos);
		}
		catch (RuntimeException ex) {
			if (call.undo != null && !(ex instanceof RedisCommandExecutionException)) {
				pending.accept(undo(commands, asking, call.key, call.undo, call.waitNanos));
			}
			throw ex;
		}
		if (!call.wrote.test(value)) {
			return new Acknowledged<>(value, Acknowledged.NOT_ASKED);
		}
		return new Acknowledged<>(value,
				LettuceEval.await(
						disconnection
							.fails(commands.waitForReplication(call.acks.replicas(), call.acks.timeout().toMillis())),
						call.waitNanos));
	}

	// A script whose reply did not come may have run, or may still run, late: Lettuce
	// cancelled it, which only keeps it from being written if it was not yet, and from
	// being sent again after a reconnect. What takes it back goes after it on the same
	// connection, which Redis reads in order, so that it runs after the script whenever
	// that lands; Lettuce sends it again after a reconnect if its reply had not come. A
	// cluster node that imports the slot needs ASKING again. Sent in full, so that no
	// NOSCRIPT reply can come instead: this path is rare.
	private static CompletableFuture<?> undo(RedisAsyncCommands<byte[], byte[]> commands, boolean asking, byte[] key,
			Undo undo, long waitNanos) {
		if (asking) {
			commands.asking();
		}
		byte[][] keys = { key };
		return commands
			.eval(undo.script().getScriptAsString(), LettuceEval.outputType(undo.script()), keys, undo.args())
			.toCompletableFuture()
			.orTimeout(waitNanos, TimeUnit.NANOSECONDS);
	}

	// After an error reply, the WAIT sent with the script is read too, so that the
	// connection goes back with nothing pending; after any other failure it is dropped.
	private static void drain(RedisFuture<Long> waited, long waitNanos, RuntimeException failure) {
		if (failure instanceof RedisCommandExecutionException) {
			try {
				LettuceEval.await(waited, waitNanos);
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
			}
		}
	}

	private record Call<T>(RedisScript<T> script, byte[] key, ReplicaAcks acks, @Nullable Predicate<? super T> wrote,
			@Nullable Undo undo, byte[][] args, long waitNanos) {

	}

}
