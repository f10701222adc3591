package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.ClassUtils;

/**
 * Runs each script on a connection of its own from the factory, as {@code RedisTemplate}
 * would without its per-call proxy, but never on one bound to the caller's thread: a
 * transition must not be queued in the application's own {@code MULTI}. Works with any
 * client.
 * <p>
 * Such a client cannot send a command without waiting for its reply, so scripts run
 * without waiting ({@link #runAsync}, lease renewals) go to a few daemon threads of their
 * own, each waiting on one connection at a time: renewals do not queue behind one another
 * on the renewer's thread. The threads end when idle.
 * <p>
 * Such a client offers no way to stop waiting for one reply: a script run on the caller's
 * thread waits as long as the client's own timeout (Jedis: its read timeout,
 * {@code spring.data.redis.timeout}, 2 seconds by default). Only the reply of a script
 * run without waiting is given up after the runner's timeout, while its thread goes on
 * waiting for the client.
 */
final class ConnectionScriptRunner implements ScriptRunner {

	private static final int ASYNC_THREADS = 8;

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ConnectionScriptRunner.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final ThreadPoolExecutor asyncExecutor;

	private final long timeoutNanos;

	ConnectionScriptRunner(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeoutNanos = timeout.toNanos();
		AtomicInteger threads = new AtomicInteger();
		this.asyncExecutor = new ThreadPoolExecutor(ASYNC_THREADS, ASYNC_THREADS, 30, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "idempotency-redis-" + threads.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.asyncExecutor.allowCoreThreadTimeOut(true);
	}

	@Override
	public <T> CompletableFuture<@Nullable T> runAsync(RedisScript<T> script, byte[] key, byte[]... args) {
		try {
			return CompletableFuture.supplyAsync(() -> run(script, key, args), this.asyncExecutor)
				.orTimeout(this.timeoutNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public <T> @Nullable T run(RedisScript<T> script, byte[] key, byte[]... args) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return run(connection, script, key, args);
		}
	}

	@Override
	public <T> Acknowledged<T> runAndWait(RedisScript<T> script, byte[] key, ReplicaAcks acks, byte[]... args) {
		return runAcknowledged(script, key, acks, (reply) -> true, args);
	}

	/**
	 * Run the script and then {@code WAIT}, as {@link #runAndWait} does, only when the
	 * script wrote. Such a client sends nothing more on a connection whose reply did not
	 * come (Jedis marks it broken and drops it), so the undo is not sent.
	 */
	@Override
	public <T> Acknowledged<T> runThenWait(RedisScript<T> script, byte[] key, ReplicaAcks acks,
			Predicate<? super T> wrote, Undo undo, byte[]... args) {
		return runAcknowledged(script, key, acks, wrote, args);
	}

	/**
	 * Run the script and then {@code WAIT} on the same connection. Such a client sends a
	 * command only once it has the previous reply, so {@code WAIT} always costs a round
	 * trip of its own, and its reply waits as long as the client's own timeout allows. A
	 * cluster connection routes the script by its key but {@code WAIT} to any node, so
	 * acknowledgements are refused there.
	 */
	private <T> Acknowledged<T> runAcknowledged(RedisScript<T> script, byte[] key, ReplicaAcks acks,
			Predicate<? super T> wrote, byte[]... args) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection) {
				throw new InvalidDataAccessApiUsageException("Replica acknowledgements on Redis Cluster need Lettuce: "
						+ "WAIT must go to the node that ran the script, which other clients do not allow");
			}
			T reply = run(connection, script, key, args);
			if (!wrote.test(reply)) {
				return new Acknowledged<>(reply, Acknowledged.NOT_ASKED);
			}
			Object acknowledged = waitFor(connection, number(acks.replicas()), number(acks.timeout().toMillis()));
			if (!(acknowledged instanceof Number replicas)) {
				throw new IllegalStateException("Unexpected reply from Redis to WAIT: " + acknowledged);
			}
			return new Acknowledged<>(reply, replicas.longValue());
		}
	}

	@SuppressWarnings("unchecked")
	private static <T> @Nullable T run(RedisConnection connection, RedisScript<T> script, byte[] key, byte[]... args) {
		ReturnType type = ReturnType.fromJavaType(script.getResultType());
		byte[][] keysAndArgs = new byte[args.length + 1][];
		keysAndArgs[0] = key;
		System.arraycopy(args, 0, keysAndArgs, 1, args.length);
		RedisScriptingCommands commands = connection.scriptingCommands();
		try {
			return (T) commands.evalSha(script.getSha1(), type, 1, keysAndArgs);
		}
		catch (RuntimeException ex) {
			if (!RedisErrors.isNoScript(ex)) {
				throw ex;
			}
			return (T) commands.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), type, 1, keysAndArgs);
		}
	}

	private static @Nullable Object waitFor(RedisConnection connection, byte[]... args) {
		Object reply = LETTUCE_PRESENT ? LettuceConnectionWait.execute(connection, args) : null;
		return (reply != null) ? reply : connection.execute("WAIT", args);
	}

	private static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public List<Boolean> scriptsExist(String... shas) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<Boolean> exist = connection.scriptingCommands().scriptExists(shas);
			return (exist != null) ? exist : List.of();
		}
	}

	@Override
	public boolean delete(byte[] key) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long deleted = connection.keyCommands().del(key);
			return deleted != null && deleted > 0;
		}
	}

}
