package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The native connection a {@link LettuceScriptRunner} sends on: the one a
 * {@link LettuceConnectionFactory} shares, or else one dedicated connection taken from
 * the factory and kept. It is looked up once, and again after {@link #reset}; it is
 * opened on a thread of its own, and a caller gives up waiting for it after the connect
 * timeout given, leaving it to finish there.
 */
final class SharedLettuceConnection {

	private final LettuceConnectionFactory connectionFactory;

	private final Duration connectTimeout;

	private final ThreadPoolExecutor connector;

	private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

	// The dedicated connection behind commands, when the factory shares none
	private volatile @Nullable RedisConnection dedicated;

	// The connection being opened, which every caller waits for: one at a time
	private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> connecting;

	SharedLettuceConnection(LettuceConnectionFactory connectionFactory, Duration connectTimeout) {
		this.connectionFactory = connectionFactory;
		this.connectTimeout = connectTimeout;
		// Its thread ends a second after a connect: nothing closes the store, and a
		// thread
		// left behind outlives a web application's undeployment (Tomcat reports it)
		this.connector = new ThreadPoolExecutor(1, 1, 1, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> {
			Thread thread = new Thread(task, "idempotency-redis-connect");
			thread.setDaemon(true);
			return thread;
		});
		this.connector.allowCoreThreadTimeOut(true);
	}

	/**
	 * Return the connection's commands, opening it if there is none yet.
	 * @return the commands
	 * @throws RedisConnectionFailureException when it cannot be opened in time
	 */
	RedisClusterAsyncCommands<byte[], byte[]> commands() {
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

	/**
	 * Forget a connection that failed, so that the next caller looks it up again, and
	 * close it if it was a dedicated one. Only the connection that failed: a caller that
	 * took it before it was replaced fails late, and must not close its successor under
	 * every other caller's commands.
	 * @param failed the commands of the connection that failed
	 */
	synchronized void reset(RedisClusterAsyncCommands<byte[], byte[]> failed) {
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

}
