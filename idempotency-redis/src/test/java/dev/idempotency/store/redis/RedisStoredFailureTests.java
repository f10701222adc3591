package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How the Redis store keeps a failure in the record format the scripts already have, and
 * what it does with failure data it did not write.
 */
class RedisStoredFailureTests {

	private static final String PREFIX = "idempotency-failure-test:";

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final IdempotencyStore store = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), PREFIX);

	@Test
	void failureIsKeptInReasonAndBodyOfTheRecord() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		this.store.complete(key, "a", 1, StoredResult.failure("com.example.Declined", "no funds"), RETENTION);
		byte[] record = get(key);
		assertThat(new String(record, StandardCharsets.ISO_8859_1)).contains("\0failure")
			.contains("com.example.Declined")
			.contains("no funds");
	}

	@Test
	void encodingRoundTripsEveryMessage() {
		for (String message : new String[] { null, "", "x", "line\nline\r\n", "\0", "ünïcødé 🃏",
				"a".repeat(70_000) }) {
			StoredResult failure = StoredResult.failure("com.example.Declined", message);
			assertThat(RedisFailures.decode(RedisFailures.encode(failure))).isEqualTo(failure);
		}
	}

	@Test
	void recordWrittenLikeBeforeFailuresExistedReadsAsBefore() {
		RecordKey result = newKey();
		RecordKey unreplayable = newKey();
		set(result, pack(new byte[] { 1, 2, 3 }, ""));
		set(unreplayable, pack(new byte[0], "its result is too large"));
		StoredResult replayed = ((Completed) this.store.acquire(result, request("b"))).result();
		assertThat(replayed.body()).containsExactly(1, 2, 3);
		assertThat(replayed.isReplayable()).isTrue();
		assertThat(replayed.isFailure()).isFalse();
		StoredResult notReplayed = ((Completed) this.store.acquire(unreplayable, request("b"))).result();
		assertThat(notReplayed.unreplayableReason()).isEqualTo("its result is too large");
		assertThat(notReplayed.isFailure()).isFalse();
	}

	@Test
	void foreignFailureDataIsAStoreExceptionSayingWhy() {
		assertCorrupt(new byte[0], "is not of format version 1");
		assertCorrupt(new byte[] { 2, 0, 0, 0, 1, 'x', 0 }, "is not of format version 1");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 9, 'x', 0 }, "has a type name of 9 bytes");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 0, 0 }, "has a type name of 0 bytes");
		assertCorrupt(new byte[] { 1, (byte) 0xff, 0, 0, 0, 'x', 0 }, "has a type name of -16777216 bytes");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 1, 'x', 7 }, "no valid message flag (7)");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 1, 'x', 0, 'y' }, "has no message but 1 bytes after its flag");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 1, (byte) 0xc3, 0 }, "the type name of its stored failure is not UTF-8");
		assertCorrupt(new byte[] { 1, 0, 0, 0, 1, 'x', 1, (byte) 0xff },
				"the message of its stored failure is not UTF-8");
	}

	@Test
	void unreplayableReasonThatIsTheFailureMarkerIsRefused() {
		RecordKey key = newKey();
		this.store.acquire(key, request("a"));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.store.complete(key, "a", 1, StoredResult.unreplayable("\0failure"), RETENTION));
	}

	private void assertCorrupt(byte[] body, String why) {
		RecordKey key = newKey();
		set(key, pack(body, "\0failure"));
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(key, request("b")))
			.withMessageContaining("Value under Redis key '" + PREFIX + key.name() + ":" + key.key()
					+ "' is not an idempotency record")
			.withMessageContaining(why)
			.withCauseInstanceOf(IllegalArgumentException.class);
		assertThat(get(key)).as("left untouched").isEqualTo(pack(body, "\0failure"));
	}

	// A completed record in the format of record.lua, packed by Redis itself
	private static byte[] pack(byte[] body, String reason) {
		try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
			return connection.scriptingCommands()
				.eval(bytes("return cmsgpack.pack(1, 2, 1, 'a', 1000, 2000, 1500, '', ARGV[1], ARGV[2])"),
						ReturnType.VALUE, 0, bytes(reason), body);
		}
	}

	private static void set(RecordKey key, byte[] value) {
		try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
			connection.stringCommands().set(redisKey(key), value);
		}
	}

	private static byte[] get(RecordKey key) {
		try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
			return connection.stringCommands().get(redisKey(key));
		}
	}

	private static byte[] redisKey(RecordKey key) {
		return bytes(PREFIX + key.name() + ":" + key.key());
	}

	private static RecordKey newKey() {
		return new RecordKey("failures", UUID.randomUUID().toString());
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, Duration.ofSeconds(30), RETENTION, null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
