package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
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
 */
final class ConnectionScriptRunner implements ScriptRunner {

	private static final int ASYNC_THREADS = 8;

	private final RedisConnectionFactory connectionFactory;

	private final ThreadPoolExecutor asyncExecutor;

	ConnectionScriptRunner(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
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
			return CompletableFuture.supplyAsync(() -> run(script, key, args), this.asyncExecutor);
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

}
