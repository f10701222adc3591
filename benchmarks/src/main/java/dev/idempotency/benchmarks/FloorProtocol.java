package dev.idempotency.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.benchmarks.Contender.Protocol;
import dev.idempotency.benchmarks.Contender.Reference;

import org.springframework.util.StreamUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the floors share: the starter's own Lua scripts, loaded as its Redis store loads
 * them ({@code record.lua} in front of each transition, its single-key call after it),
 * and the keys and arguments the starter sends with them, so that a floor differs from
 * the starter only in what runs around the same commands.
 */
final class FloorProtocol {

	/**
	 * The empty argument: no payload fingerprint, no reason not to replay.
	 */
	static final byte[] NONE = {};

	/**
	 * Reply code of {@code acquire.lua} when the key is now owned by the caller.
	 */
	static final long ACQUIRED = 1;

	/**
	 * Reply code of {@code acquire.lua} when the key was completed: the stored body
	 * follows.
	 */
	static final long COMPLETED = 3;

	private static final String SCRIPTS = "dev/idempotency/store/redis/";

	private final byte[] keyPrefix;

	private final byte[] owner;

	private final byte[] lease;

	private final byte[] retention;

	private final Results results;

	/**
	 * Create the arguments of one floor.
	 * @param keyPrefix prefix of record keys, the operation's name and {@code :} included
	 * @param owner the floor's owner token, as long as the engine's tokens (16
	 * characters)
	 * @param lockTimeoutMillis lease the starter asks for
	 * @param retentionMillis retention the starter asks for
	 * @param results what the floor stores and does with what it replays
	 */
	FloorProtocol(String keyPrefix, String owner, long lockTimeoutMillis, long retentionMillis, Results results) {
		this.keyPrefix = keyPrefix.getBytes(StandardCharsets.UTF_8);
		this.owner = owner.getBytes(StandardCharsets.US_ASCII);
		this.lease = number(lockTimeoutMillis);
		this.retention = number(retentionMillis);
		this.results = results;
	}

	static String acquireScript() {
		return load("record.lua") + load("acquire.lua") + load("acquire-one.lua");
	}

	static String completeScript() {
		return load("record.lua") + load("complete.lua") + load("complete-one.lua");
	}

	private byte[] key(String id) {
		byte[] suffix = id.getBytes(StandardCharsets.UTF_8);
		byte[] key = new byte[this.keyPrefix.length + suffix.length];
		System.arraycopy(this.keyPrefix, 0, key, 0, this.keyPrefix.length);
		System.arraycopy(suffix, 0, key, this.keyPrefix.length, suffix.length);
		return key;
	}

	/**
	 * Run one call of the protocol: acquire and complete a new key, or replay a completed
	 * one.
	 * @param floor the floor, for messages
	 * @param id the idempotency key
	 * @param scripts how the floor sends the two scripts
	 * @return the stored body
	 */
	byte[] call(Side floor, String id, Scripts scripts) {
		byte[] key = key(id);
		List<Object> acquired = scripts.acquire(key, this.owner, this.lease, this.retention, NONE);
		long code = (Long) acquired.get(0);
		if (code == COMPLETED) {
			byte[] stored = (byte[]) acquired.get(2);
			this.results.replayed(id, stored);
			return stored;
		}
		if (code != ACQUIRED) {
			throw new IllegalStateException(floor.label() + " could not acquire " + id + ": reply code " + code);
		}
		byte[] body = this.results.result(id);
		Long completed = scripts.complete(key, this.owner, number((Long) acquired.get(1)), this.retention, body, NONE);
		if (completed == null || completed != 1) {
			throw new IllegalStateException(floor.label() + " could not complete " + id);
		}
		return body;
	}

	static byte[] number(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Check that a floor and the starter read each other's records: the floor replays the
	 * starter's bytes exactly, and the starter replays what the floor completed.
	 * @param floor the floor
	 * @param scripts how the floor sends the scripts
	 * @param reference a key the starter completed
	 */
	void check(Side floor, Scripts scripts, Reference reference) {
		byte[] replayed = call(floor, reference.id(), scripts);
		if (!Arrays.equals(replayed, reference.body())) {
			throw new IllegalStateException(floor.label() + " replays " + new String(replayed, StandardCharsets.UTF_8)
					+ " but the starter stores " + new String(reference.body(), StandardCharsets.UTF_8));
		}
		String fresh = Ids.unique(0, floor.ordinal(), 1);
		call(floor, fresh, scripts);
		if (!this.results.expected(reference.id(), fresh).equals(reference.starter().charge(fresh))) {
			throw new IllegalStateException("The starter does not replay what " + floor.label() + " stored");
		}
	}

	/**
	 * Describe a floor.
	 * @param what what the floor is
	 * @param replay what the floor does with a replayed result
	 * @return the protocol, the starter's minus what runs around it
	 */
	static Protocol protocol(String what, String replay) {
		return new Protocol(what, "2: `EVALSHA acquire`, `EVALSHA complete`", "1: `EVALSHA acquire`", replay,
				"the starter's records, leases and fences, but nothing around them: no lease renewal, no wait for "
						+ "a call in flight (it fails), no release on failure");
	}

	private static String load(String name) {
		try (InputStream in = FloorProtocol.class.getClassLoader().getResourceAsStream(SCRIPTS + name)) {
			if (in == null) {
				throw new IllegalStateException("Lua script " + SCRIPTS + name + " is not on the class path");
			}
			return StreamUtils.copyToString(in, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not read Lua script " + SCRIPTS + name, ex);
		}
	}

	/**
	 * What a floor stores for a key, and what it does with a replayed result.
	 */
	interface Results {

		/**
		 * The body of the starter's reference key for every key, encoded once up front,
		 * and replays returned as the stored bytes: no codec work at all, which the
		 * starter cannot skip.
		 * @param body the encoded result the starter stores
		 * @return the results
		 */
		static Results preEncoded(byte[] body) {
			byte[] copy = body.clone();
			return new Results() {

				@Override
				public byte[] result(String id) {
					// Not copied: returned on every completion, and nobody writes to it
					return copy;
				}

				@Override
				public void replayed(String id, byte[] stored) {
				}

				@Override
				public Receipt expected(String referenceId, String id) {
					return Receipt.settled(referenceId);
				}

			};
		}

		/**
		 * Each key's own {@link Receipt}, encoded with a plain {@link JsonMapper} on
		 * every completion, and every replay decoded to a {@code Receipt}: the codec work
		 * any application that stores results does, as the starter does it.
		 * @return the results
		 */
		static Results json() {
			JsonMapper mapper = JsonMapper.builder().build();
			return new Results() {

				@Override
				public byte[] result(String id) {
					return mapper.writeValueAsBytes(Receipt.settled(id));
				}

				@Override
				public void replayed(String id, byte[] stored) {
					// Read, so that the decoding cannot be left out
					Receipt receipt = mapper.readValue(stored, Receipt.class);
					if (!id.equals(receipt.paymentId())) {
						throw new IllegalStateException(
								"Replayed the receipt of " + receipt.paymentId() + " for " + id);
					}
				}

				@Override
				public Receipt expected(String referenceId, String id) {
					return Receipt.settled(id);
				}

			};
		}

		/**
		 * Return the encoded result to complete a key with.
		 * @param id the idempotency key
		 * @return the encoded result
		 */
		byte[] result(String id);

		/**
		 * Take a replayed result.
		 * @param id the idempotency key
		 * @param stored the stored bytes
		 */
		void replayed(String id, byte[] stored);

		/**
		 * Return what the starter replays for a key this floor completed.
		 * @param referenceId the starter's reference key
		 * @param id the key
		 * @return the result
		 */
		Receipt expected(String referenceId, String id);

	}

	/**
	 * How a floor sends the protocol's two scripts: {@code EVALSHA} with one key.
	 */
	interface Scripts {

		List<Object> acquire(byte[] key, byte[]... args);

		@Nullable Long complete(byte[] key, byte[]... args);

	}

}
