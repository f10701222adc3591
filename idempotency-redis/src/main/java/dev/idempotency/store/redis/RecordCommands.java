package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.ScriptRunner.Acknowledged;

import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Sends the transition scripts of a {@link RedisIdempotencyStore} on one record's key,
 * and reports every failure as an {@link IdempotencyStoreException} that names the key:
 * what the transitions of every family share, with the encoding of their arguments.
 */
final class RecordCommands {

	static final byte[] NONE = {};

	// Waits are measured in nanoseconds, a long of which holds 292 years
	private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofDays(36500);

	// The reply of a script that did what it was asked
	static final long TRUE = 1L;

	private final ScriptRunner runner;

	private final RedisScripts scripts;

	private final String keyPrefix;

	private final ReplicaAcks replicaAcks;

	// The encoded prefix of the last operation's keys; racing callers may each replace it
	private volatile KeyHead head = new KeyHead("", NONE);

	RecordCommands(ScriptRunner runner, String keyPrefix, ReplicaAcks replicaAcks) {
		this.runner = runner;
		this.scripts = RedisScripts.load();
		this.keyPrefix = keyPrefix;
		this.replicaAcks = replicaAcks;
	}

	ScriptRunner runner() {
		return this.runner;
	}

	RedisScripts scripts() {
		return this.scripts;
	}

	ReplicaAcks replicaAcks() {
		return this.replicaAcks;
	}

	String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Describe the key prefix and the replica acknowledgements asked for, if any.
	 * @return a description for logs
	 */
	String describe() {
		String acks = "";
		if (this.replicaAcks.enabled()) {
			int replicas = this.replicaAcks.replicas();
			acks = ", waits for " + replicas + ((replicas == 1) ? " replica" : " replicas") + " within "
					+ this.replicaAcks.timeout().toMillis() + " ms";
		}
		return "key prefix '" + this.keyPrefix + "'" + acks;
	}

	<T> T execute(String operation, RecordKey key, RedisScript<T> script, byte[]... args) {
		T reply;
		try {
			reply = this.runner.run(script, redisKey(key), args);
		}
		catch (RuntimeException ex) {
			throw failure(operation, key, ex);
		}
		// Not Assert.state with a message supplier: its lambda would be built on every
		// call
		if (reply == null) {
			throw new IllegalStateException("No reply from Redis to " + operation);
		}
		return reply;
	}

	<T> Acknowledged<T> executeAcknowledged(String operation, RecordKey key, Supplier<Acknowledged<T>> command) {
		Acknowledged<T> reply;
		try {
			reply = command.get();
		}
		catch (RuntimeException ex) {
			throw failure(operation, key, ex);
		}
		Assert.state(reply.reply() != null, () -> "No reply from Redis to " + operation);
		return reply;
	}

	<T> CompletionStage<T> executeAsync(String operation, RecordKey key, RedisScript<T> script, byte[]... args) {
		return this.runner.runAsync(script, redisKey(key), args).handle((reply, ex) -> {
			if (ex != null) {
				Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
				throw failure(operation, key,
						(cause instanceof RuntimeException runtime) ? runtime : new IllegalStateException(cause));
			}
			Assert.state(reply != null, () -> "No reply from Redis to " + operation);
			return reply;
		});
	}

	IdempotencyStoreException failure(String operation, RecordKey key, RuntimeException ex) {
		String redisKey = redisKeyString(key);
		if (RedisErrors.isCorrupt(ex)) {
			return new IdempotencyStoreException("Value under Redis key '" + redisKey
					+ "' is not an idempotency record; evict it or use another key prefix", ex);
		}
		return new IdempotencyStoreException(
				"Redis failed to " + operation + " the idempotency record under key '" + redisKey + "'", ex);
	}

	String tooFewAcksMessage(String write, RecordKey key, long acknowledged, String consequence) {
		return "Only " + Math.max(acknowledged, 0) + " of " + this.replicaAcks.replicas()
				+ " Redis replicas acknowledged " + write + " the idempotency record under key '" + redisKeyString(key)
				+ "' within " + this.replicaAcks.timeout().toMillis()
				+ " ms (idempotency.redis.replica-acks, idempotency.redis.replica-ack-timeout)" + consequence;
	}

	/**
	 * Return a record's Redis key in UTF-8. An ASCII key (a UUID, a number, a hash) is
	 * copied after its name's encoded prefix, which is kept from the call before: that
	 * takes one array per call, where building the key as a String and encoding it took
	 * three objects and two copies.
	 * @param key the record
	 * @return the key's bytes
	 */
	byte[] redisKey(RecordKey key) {
		KeyHead head = this.head;
		if (!head.name().equals(key.name())) {
			head = new KeyHead(key.name(), utf8(this.keyPrefix + key.name() + ':'));
			this.head = head;
		}
		byte[] prefix = head.bytes();
		String suffix = key.key();
		byte[] bytes = new byte[prefix.length + suffix.length()];
		System.arraycopy(prefix, 0, bytes, 0, prefix.length);
		for (int i = 0; i < suffix.length(); i++) {
			char c = suffix.charAt(i);
			if (c >= 0x80) {
				return utf8(redisKeyString(key));
			}
			bytes[prefix.length + i] = (byte) c;
		}
		return bytes;
	}

	List<byte[]> redisKeys(List<RecordKey> keys) {
		return keys.stream().map(this::redisKey).toList();
	}

	String redisKeyString(RecordKey key) {
		return this.keyPrefix + key.name() + ':' + key.key();
	}

	/**
	 * Check the command timeout a store is created with.
	 * @param commandTimeout the timeout
	 * @return the timeout
	 * @throws IllegalArgumentException when it is under a millisecond or over a century
	 */
	static Duration checkTimeout(Duration commandTimeout) {
		Assert.notNull(commandTimeout, "'commandTimeout' must not be null");
		Assert.isTrue(commandTimeout.toMillis() > 0, "'commandTimeout' must be at least one millisecond");
		Assert.isTrue(commandTimeout.compareTo(MAX_COMMAND_TIMEOUT) <= 0, () -> "'commandTimeout' must be at most "
				+ MAX_COMMAND_TIMEOUT.toDays() + " days, was " + commandTimeout);
		return commandTimeout;
	}

	static byte[] millis(Duration duration, String name) {
		long millis = duration.toMillis();
		Assert.isTrue(millis > 0, () -> "'" + name + "' must be at least one millisecond");
		return number(millis);
	}

	/**
	 * Return a number in decimal ASCII, as Redis reads it: one array, without the String
	 * that {@link Long#toString(long)} would build on the way.
	 * @param value the number
	 * @return its digits
	 */
	static byte[] number(long value) {
		if (value < 0) {
			return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
		}
		int digits = 1;
		for (long rest = value / 10; rest != 0; rest /= 10) {
			digits++;
		}
		byte[] bytes = new byte[digits];
		long rest = value;
		for (int i = digits - 1; i >= 0; i--) {
			bytes[i] = (byte) ('0' + (rest % 10));
			rest /= 10;
		}
		return bytes;
	}

	static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * The encoded start of an operation's Redis keys.
	 *
	 * @param name the operation's name
	 * @param bytes the key prefix, the name and {@code :}, in UTF-8
	 */
	private record KeyHead(String name, byte[] bytes) {
	}

}
