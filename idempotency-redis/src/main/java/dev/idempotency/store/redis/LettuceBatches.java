package dev.idempotency.store.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.redis.ScriptRunner.ScriptCall;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs many scripts on one native Lettuce connection, writing every command in one go
 * ({@link StatefulConnection#dispatch(java.util.Collection)}: one write and one flush,
 * where sending them one by one flushes each) before awaiting any reply, then awaiting
 * the replies in order, each within one command timeout of the reply before it (rather
 * than scheduling a timeout per command): a batch fails for a timeout only when Redis
 * stops answering for a whole command timeout, however long it takes to run. On Redis
 * Cluster, Lettuce routes each command to the connection of its keys' primary (they share
 * a slot), so the batch becomes one pipeline per primary, all in flight together. A
 * script that Redis does not have cached is loaded once and the calls that missed it sent
 * again together; if it is missing still, each is sent in full on its own.
 */
final class LettuceBatches {

	private final RedisClusterAsyncCommands<byte[], byte[]> commands;

	private final StatefulConnection<byte[], byte[]> connection;

	private final long timeoutNanos;

	private final Consumer<RedisClusterAsyncCommands<byte[], byte[]>> reset;

	private LettuceBatches(RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<byte[], byte[]> connection, long timeoutNanos,
			Consumer<RedisClusterAsyncCommands<byte[], byte[]>> reset) {
		this.commands = commands;
		this.connection = connection;
		this.timeoutNanos = timeoutNanos;
		this.reset = reset;
	}

	/**
	 * Return batches on the connection behind some commands.
	 * @param commands the commands of a standalone or cluster connection
	 * @param timeoutNanos how long the replies of a batch may take
	 * @param reset what to do with a connection that failed other than by an error reply
	 * @return the batches, or {@code null} when the commands' connection is not known
	 */
	// Spring Data hands out only the commands of its shared connection, and Lettuce's
	// deprecated getStatefulConnection is the one way to the connection behind them,
	// which
	// writes a whole batch in one go
	@SuppressWarnings("deprecation")
	static @Nullable LettuceBatches of(RedisClusterAsyncCommands<byte[], byte[]> commands, long timeoutNanos,
			Consumer<RedisClusterAsyncCommands<byte[], byte[]>> reset) {
		StatefulConnection<byte[], byte[]> connection = null;
		if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
			connection = standalone.getStatefulConnection();
		}
		else if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			connection = cluster.getStatefulConnection();
		}
		return (connection != null) ? new LettuceBatches(commands, connection, timeoutNanos, reset) : null;
	}

	/**
	 * Run many scripts.
	 * @param calls the scripts, each with its keys and arguments
	 * @return the reply or failure of each call, every one complete
	 */
	List<CompletableFuture<@Nullable Object>> run(List<ScriptCall> calls) {
		List<CompletableFuture<@Nullable Object>> replies = run(calls, true);
		List<Integer> missing = new ArrayList<>();
		for (int i = 0; i < replies.size(); i++) {
			if (replies.get(i).handle((reply, ex) -> ex != null && RedisErrors.isNoScript(ex)).join()) {
				missing.add(i);
			}
		}
		if (missing.isEmpty()) {
			return replies;
		}
		// Redis lost its scripts (a restart, a failover, SCRIPT FLUSH): every call of the
		// batch got NOSCRIPT. Each script is loaded once and the calls sent again in one
		// pipeline, rather than each in full, one round trip after the other.
		Map<String, RedisScript<?>> scripts = new LinkedHashMap<>();
		missing.forEach((i) -> scripts.putIfAbsent(calls.get(i).script().getSha1(), calls.get(i).script()));
		for (RedisScript<?> script : scripts.values()) {
			try {
				LettuceEval.await(this.commands.scriptLoad(script.getScriptAsString()), this.timeoutNanos);
			}
			catch (RuntimeException ex) {
				// Each call of it is then sent in full on its own
			}
		}
		List<CompletableFuture<@Nullable Object>> again = run(missing.stream().map(calls::get).toList(), false);
		List<CompletableFuture<@Nullable Object>> all = new ArrayList<>(replies);
		for (int i = 0; i < missing.size(); i++) {
			all.set(missing.get(i), again.get(i));
		}
		return all;
	}

	// With reload, a script missing from Redis fails its call with NOSCRIPT, for the
	// batch to load it once; without, the call is sent again in full
	private List<CompletableFuture<@Nullable Object>> run(List<ScriptCall> calls, boolean reload) {
		List<AsyncCommand<byte[], byte[], Object>> sent = new ArrayList<>(calls.size());
		for (ScriptCall call : calls) {
			CommandArgs<byte[], byte[]> commandArgs = new CommandArgs<>(ByteArrayCodec.INSTANCE)
				.add(call.script().getSha1())
				.add(call.keys().length)
				.addKeys(call.keys())
				.addValues(call.args());
			sent.add(new AsyncCommand<>(new Command<>(CommandType.EVALSHA, output(call.script()), commandArgs)));
		}
		this.connection.dispatch(sent);
		long deadline = System.nanoTime() + this.timeoutNanos;
		List<CompletableFuture<@Nullable Object>> replies = new ArrayList<>(calls.size());
		for (int i = 0; i < sent.size(); i++) {
			AsyncCommand<byte[], byte[], Object> command = sent.get(i);
			replies.add(settle(command, calls.get(i), deadline, reload));
			if (!command.isCancelled()) {
				// Redis answered (or the connection failed it): the next reply is waited
				// for one more command timeout, so that a batch that takes Redis longer
				// than one timeout to run does not time out while replies keep coming;
				// one that Redis stops answering times out as a single command would
				deadline = System.nanoTime() + this.timeoutNanos;
			}
		}
		return replies;
	}

	private CompletableFuture<@Nullable Object> settle(AsyncCommand<byte[], byte[], Object> command, ScriptCall call,
			long deadline, boolean reload) {
		try {
			try {
				return CompletableFuture.completedFuture(LettuceFutures.awaitOrCancel(command,
						Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			catch (RuntimeException ex) {
				if (!RedisErrors.isNoScript(ex)) {
					throw ex;
				}
				if (reload) {
					return CompletableFuture.failedFuture(ex);
				}
				RedisScript<?> script = call.script();
				return CompletableFuture
					.completedFuture(LettuceEval.await(this.commands.<Object>eval(script.getScriptAsString(),
							LettuceEval.outputType(script), call.keys(), call.args()), this.timeoutNanos));
			}
		}
		catch (RuntimeException ex) {
			if (!(ex instanceof RedisCommandExecutionException)) {
				this.reset.accept(this.commands);
			}
			return CompletableFuture.failedFuture(ex);
		}
	}

	// What Lettuce's own evalsha decodes the transitions' two reply types with
	@SuppressWarnings("unchecked")
	private static CommandOutput<byte[], byte[], Object> output(RedisScript<?> script) {
		if (LettuceEval.outputType(script) == ScriptOutputType.INTEGER) {
			return (CommandOutput<byte[], byte[], Object>) (CommandOutput<byte[], byte[], ?>) new IntegerOutput<>(
					ByteArrayCodec.INSTANCE);
		}
		return (CommandOutput<byte[], byte[], Object>) (CommandOutput<byte[], byte[], ?>) new NestedMultiOutput<>(
				ByteArrayCodec.INSTANCE);
	}

}
