package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Runs a transition script on one key: {@code EVALSHA}, and {@code EVAL} when Redis does
 * not have the script cached yet. Replies come back as the client decoded them, bulk
 * strings as {@code byte[]}, untouched; failures as the client's own exceptions. Also
 * sends the store's few commands that are not scripts, on the same connections, and the
 * {@code WAIT} of replica acknowledgements.
 */
interface ScriptRunner extends ScriptCommands {

	/**
	 * Run a script without waiting for its reply, where the client allows; this default
	 * runs it on the calling thread.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param args its arguments
	 * @return the reply, or the client's failure
	 */
	default <T> CompletableFuture<@Nullable T> runAsync(RedisScript<T> script, byte[] key, byte[]... args) {
		try {
			return CompletableFuture.completedFuture(run(script, key, args));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Run many scripts, where the client allows sending every one before any reply is
	 * awaited; this default sends each with {@link #runAsync}, and so takes calls on one
	 * key only (a runner that does not {@link #pipelines() pipeline} is never given a
	 * batch script).
	 * @param calls the scripts, each with its keys and arguments
	 * @return the reply or the client's failure of each call, in the order of the calls
	 */
	default List<CompletableFuture<@Nullable Object>> runAll(List<ScriptCall> calls) {
		List<CompletableFuture<@Nullable Object>> replies = new ArrayList<>(calls.size());
		for (ScriptCall call : calls) {
			Assert.isTrue(call.keys().length == 1, "A runner that does not pipeline runs scripts on one key");
			replies.add(runAsync(call.script(), call.keys()[0], call.args()).thenApply((reply) -> reply));
		}
		return replies;
	}

	/**
	 * Return the hash slot in which the server keeps a key: on Redis Cluster, the slot
	 * its hash tag or whole key hashes to, where the client tells; otherwise 0, since one
	 * server holds every key, so that a script may take any keys together.
	 * @param key the key
	 * @return its slot
	 */
	default int slot(byte[] key) {
		return 0;
	}

	/**
	 * Return whether {@link #runAll} writes every script at once without waiting for any
	 * reply, so that a batch costs one round trip; this default does not.
	 * @return whether scripts sent without waiting are pipelined
	 */
	default boolean pipelines() {
		return false;
	}

	/**
	 * Run a script, and have Redis wait on the same connection ({@code WAIT}, which
	 * counts only the writes of the connection it is sent on) until replicas acknowledged
	 * what it wrote, or the timeout passed. {@code WAIT} is written right after the
	 * script, before either reply is awaited, so it costs no round trip of its own.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param acks how many replicas to wait for, and how long
	 * @param args its arguments
	 * @return the reply, and how many replicas acknowledged
	 */
	<T> Acknowledged<T> runAndWait(RedisScript<T> script, byte[] key, ReplicaAcks acks, byte[]... args);

	/**
	 * Run a script and, only when its reply says that it wrote, have Redis wait on the
	 * same connection until replicas acknowledged that write ({@code WAIT}), or the
	 * timeout passed: a reply that wrote nothing costs no more than {@link #run}.
	 * <p>
	 * When the script's reply does not come (a timeout), the script may still run later:
	 * where the client can send on after such a failure, the undo follows it on the same
	 * connection, so that Redis runs it after the script, whenever that lands, and the
	 * connection is not used again until the undo has answered.
	 * @param <T> the reply type
	 * @param script the script
	 * @param key its only key
	 * @param acks how many replicas to wait for, and how long
	 * @param wrote whether a reply says the script wrote
	 * @param undo what takes back what the script may do, on the same key
	 * @param args its arguments
	 * @return the reply, and how many replicas acknowledged, if asked
	 */
	<T> Acknowledged<T> runThenWait(RedisScript<T> script, byte[] key, ReplicaAcks acks, Predicate<? super T> wrote,
			Undo undo, byte[]... args);

	/**
	 * Return the primaries of the Redis Cluster this runner sends to, as its client sees
	 * the cluster now, each with commands sent to that node alone; empty when Redis is
	 * not a cluster or the client cannot address one node (any but Lettuce).
	 * @return the primaries that serve slots, in the client's order
	 */
	default List<Primary> primaries() {
		return List.of();
	}

	/**
	 * Delete a key ({@code DEL}).
	 * @param key the key
	 * @return whether there was a value to delete
	 */
	boolean delete(byte[] key);

	/**
	 * A primary of a Redis Cluster.
	 *
	 * @param address its {@code host:port}
	 * @param commands commands sent to it alone, never redirected
	 * @param servesSlot whether it serves a hash slot
	 */
	record Primary(String address, ScriptCommands commands, IntPredicate servesSlot) {

	}

	/**
	 * One script call of {@link #runAll}.
	 *
	 * @param script the script
	 * @param keys its keys, in one hash slot
	 * @param args its arguments
	 */
	record ScriptCall(RedisScript<?> script, byte[][] keys, byte[][] args) {

	}

	/**
	 * A script that takes back what another script may have done on the same key.
	 *
	 * @param script the script
	 * @param args its arguments
	 */
	record Undo(RedisScript<?> script, byte[][] args) {

	}

	/**
	 * The reply of a script and what {@code WAIT} answered after it.
	 *
	 * @param <T> the reply type
	 * @param reply the reply of the script
	 * @param replicas how many replicas acknowledged its writes, or {@link #NOT_ASKED}
	 */
	record Acknowledged<T>(@Nullable T reply, long replicas) {

		/**
		 * {@link #replicas()} of a reply after which no {@code WAIT} was sent.
		 */
		static final long NOT_ASKED = -1;

		boolean asked() {
			return this.replicas != NOT_ASKED;
		}

	}

	/**
	 * Return the fastest runner that a connection factory supports: one native connection
	 * of a Lettuce factory (the one it shares, or one of the runner's own), a connection
	 * per script for any other.
	 * @param connectionFactory the connection factory
	 * @param timeout how long a command may wait for its reply, where the client allows
	 * the runner to bound it
	 * @return the runner
	 */
	static ScriptRunner of(RedisConnectionFactory connectionFactory, Duration timeout) {
		if (ClassUtils.isPresent("io.lettuce.core.RedisClient", ScriptRunner.class.getClassLoader())
				&& LettuceScriptRunner.canRunOn(connectionFactory)) {
			return new LettuceScriptRunner(connectionFactory, timeout);
		}
		return new ConnectionScriptRunner(connectionFactory, timeout);
	}

}
