package dev.idempotency.store.redis;

import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Native connections of a runner's own, each lent to one caller at a time: for a script
 * followed by {@code WAIT}, which blocks the connection it is sent on until replicas
 * acknowledge or its timeout passes. On a connection shared with the application, every
 * other command would queue behind it meanwhile. Health checks of the primaries of a
 * cluster borrow them too, so as to bound how long they wait for a node's connection.
 * <p>
 * At most {@value #MAX_CONNECTIONS} exist at once; a caller beyond that waits for one to
 * be given back, up to a bound it chooses. One given back goes first to the next caller
 * (last in, first out), so that a burst leaves few connections in use afterwards; the
 * others stay open, idle, for the next burst. A connection is opened on a thread of this
 * pool's own, and a caller gives up waiting for it after the open timeout, leaving it to
 * be closed when it opens. A connection that a caller left a command pending on stays
 * lent, and counts against the bound, until that command's reply comes.
 */
final class DedicatedConnections {

	/**
	 * Most connections open at once: the number of calls that can wait for replicas at
	 * the same time.
	 */
	static final int MAX_CONNECTIONS = 16;

	private final Supplier<StatefulConnection<byte[], byte[]>> opener;

	private final long openTimeoutNanos;

	private final Semaphore permits = new Semaphore(MAX_CONNECTIONS, true);

	private final Deque<StatefulConnection<byte[], byte[]>> idle = new ConcurrentLinkedDeque<>();

	private final ThreadPoolExecutor opening;

	/**
	 * Return a pool of connections from a factory's native client, opened as Spring Data
	 * Redis opens a dedicated connection for blocking commands: to the same server or
	 * Sentinel master, with the same credentials, TLS, database and client options; on
	 * Redis Cluster, a cluster connection of its own. Lettuce opens none for a static
	 * master/replica configuration, whose client has no address of its own.
	 * @param connectionFactory the factory
	 * @param openTimeoutNanos how long a caller waits for a new connection
	 * @return the pool, with no connection open yet
	 */
	static DedicatedConnections of(LettuceConnectionFactory connectionFactory, long openTimeoutNanos) {
		return new DedicatedConnections(() -> open(connectionFactory), openTimeoutNanos);
	}

	private static StatefulConnection<byte[], byte[]> open(LettuceConnectionFactory connectionFactory) {
		AbstractRedisClient client = connectionFactory.getRequiredNativeClient();
		if (client instanceof RedisClusterClient cluster) {
			return cluster.connect(ByteArrayCodec.INSTANCE);
		}
		try {
			return ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
		}
		catch (IllegalStateException ex) {
			throw new InvalidDataAccessApiUsageException("Replica acknowledgements and cluster health checks need "
					+ "Redis connections of the idempotency store's own, which Lettuce opens for a standalone, "
					+ "socket, Sentinel or Cluster configuration, not for a static master/replica one", ex);
		}
	}

	DedicatedConnections(Supplier<StatefulConnection<byte[], byte[]>> opener, long openTimeoutNanos) {
		this.opener = opener;
		this.openTimeoutNanos = openTimeoutNanos;
		this.opening = new ThreadPoolExecutor(2, 2, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
			Thread thread = new Thread(task, "idempotency-redis-wait-connect");
			thread.setDaemon(true);
			return thread;
		});
		this.opening.allowCoreThreadTimeOut(true);
	}

	/**
	 * Lend a connection to the caller alone (an idle one, or a new one) for one use, and
	 * take it back after: for the next caller when the use returned or ended in an error
	 * reply after which every reply was read (an exception with nothing suppressed), else
	 * closed, since a reply may still be pending on it.
	 * @param <T> what the use returns
	 * @param waitNanos how long to wait when {@value #MAX_CONNECTIONS} are in use
	 * @param use what to do with it
	 * @return what the use returned
	 * @throws QueryTimeoutException when none is given back in time
	 * @throws RuntimeException when a new one cannot be opened, or the use fails
	 */
	<T> T lend(long waitNanos, Function<StatefulConnection<byte[], byte[]>, T> use) {
		return lend(waitNanos, (connection, pending) -> use.apply(connection));
	}

	/**
	 * Lend a connection as {@link #lend(long, Function)} does, to a use that may leave a
	 * command of its own pending on it when it fails (it hands that command's reply to
	 * the consumer it is given): the connection then stays lent, and open, until that
	 * reply comes, so that Redis runs the command after whatever the use sent before it.
	 * It goes back for the next caller when the reply came, an error reply included
	 * (every reply before it has been read), and is closed when it did not.
	 * @param <T> what the use returns
	 * @param waitNanos how long to wait when {@value #MAX_CONNECTIONS} are in use
	 * @param use what to do with it; the reply it leaves pending must be bounded in time
	 * @return what the use returned
	 * @throws QueryTimeoutException when none is given back in time
	 * @throws RuntimeException when a new one cannot be opened, or the use fails
	 */
	<T> T lend(long waitNanos, BiFunction<StatefulConnection<byte[], byte[]>, Consumer<CompletableFuture<?>>, T> use) {
		StatefulConnection<byte[], byte[]> connection = borrow(waitNanos);
		List<CompletableFuture<?>> pending = new ArrayList<>(1);
		boolean inOrder = false;
		try {
			T result = use.apply(connection, pending::add);
			inOrder = true;
			return result;
		}
		catch (RedisCommandExecutionException ex) {
			inOrder = ex.getSuppressed().length == 0;
			throw ex;
		}
		finally {
			if (!pending.isEmpty()) {
				CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]))
					.whenComplete((replied, ex) -> settle(connection, ex));
			}
			else if (inOrder) {
				giveBack(connection);
			}
			else {
				discard(connection);
			}
		}
	}

	private void settle(StatefulConnection<byte[], byte[]> connection, @Nullable Throwable failure) {
		Throwable cause = (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause()
				: failure;
		if (cause == null || cause instanceof RedisCommandExecutionException) {
			giveBack(connection);
		}
		else {
			discard(connection);
		}
	}

	private StatefulConnection<byte[], byte[]> borrow(long waitNanos) {
		acquirePermit(waitNanos);
		try {
			StatefulConnection<byte[], byte[]> connection;
			while ((connection = this.idle.pollFirst()) != null) {
				if (connection.isOpen()) {
					return connection;
				}
				connection.closeAsync();
			}
			return open();
		}
		catch (RuntimeException | Error ex) {
			this.permits.release();
			throw ex;
		}
	}

	// A connection with no command left waiting for its reply
	private void giveBack(StatefulConnection<byte[], byte[]> connection) {
		this.idle.offerFirst(connection);
		this.permits.release();
	}

	// A connection whose state is unknown (a reply that did not come in time) is closed,
	// so that no later caller's commands queue behind what it still waits for
	private void discard(StatefulConnection<byte[], byte[]> connection) {
		connection.closeAsync();
		this.permits.release();
	}

	private void acquirePermit(long waitNanos) {
		try {
			if (!this.permits.tryAcquire(waitNanos, TimeUnit.NANOSECONDS)) {
				throw new QueryTimeoutException("All " + MAX_CONNECTIONS + " connections that wait for replica "
						+ "acknowledgements stayed busy for " + TimeUnit.NANOSECONDS.toMillis(waitNanos) + " ms");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionFailureException("Interrupted while waiting for a Redis connection", ex);
		}
	}

	private StatefulConnection<byte[], byte[]> open() {
		CompletableFuture<StatefulConnection<byte[], byte[]>> opened;
		try {
			opened = CompletableFuture.supplyAsync(this.opener, this.opening);
		}
		catch (RejectedExecutionException ex) {
			throw new RedisConnectionFailureException("Could not start to connect to Redis", ex);
		}
		try {
			return opened.get(this.openTimeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			opened.thenAccept(StatefulConnection::closeAsync);
			throw new RedisConnectionFailureException(
					"Redis did not accept a connection within " + TimeUnit.NANOSECONDS.toMillis(this.openTimeoutNanos)
							+ " ms (the client's connect timeout and the idempotency command timeout)");
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new RedisConnectionFailureException("Could not connect to Redis", cause);
		}
		catch (InterruptedException ex) {
			opened.thenAccept(StatefulConnection::closeAsync);
			Thread.currentThread().interrupt();
			throw new RedisConnectionFailureException("Interrupted while connecting to Redis", ex);
		}
	}

}
