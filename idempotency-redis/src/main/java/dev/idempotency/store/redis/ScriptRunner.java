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
	 * Run a script once per key, where the client allows sending every one before any
	 * reply is awaited; this default sends each with {@link #runAsync}.
	 * @param <T> the reply type
	 * @param script the script
	 * @param keys the only key of each run
	 * @param args the arguments of each run, in the order of the keys
	 * @return the reply or the client's failure of each run, in the order of the keys
	 */
	default <T> List<CompletableFuture<@Nullable T>> runAll(RedisScript<T> script, List<byte[]> keys,
			List<byte[][]> args) {
		List<CompletableFuture<@Nullable T>> replies = new ArrayList<>(keys.size());
		for (int i = 0; i < keys.size(); i++) {
			replies.add(runAsync(script, keys.get(i), args.get(i)));
		}
		return replies;
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
