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
