package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;

/**
 * Turns the replies of {@code acquire.lua} and {@code read.lua} into SPI values. The
 * reply shapes are documented in the header of each script.
 */
final class RedisReplies {

	private static final RecordState[] STATES = { RecordState.IN_PROGRESS, RecordState.COMPLETED, RecordState.FAILED };

	private static final AcquireResult KEY_REUSED = new AcquireResult.KeyReused();

	private RedisReplies() {
	}

	static AcquireResult acquireResult(List<Object> reply) {
		int code = (int) number(reply, 0);
		return switch (code) {
			case 1 -> new AcquireResult.Acquired(number(reply, 1), number(reply, 2) == 1);
			case 2 -> new AcquireResult.InProgress(number(reply, 1), Duration.ofMillis(number(reply, 2)));
			case 3 -> new AcquireResult.Completed(number(reply, 1), storedResult(reply));
			case 4 -> KEY_REUSED;
			default -> throw new IllegalStateException("Unexpected reply code " + code + " from acquire.lua");
		};
	}

	/**
	 * Return whether a reply of {@code acquire.lua}, sent with acknowledgements asked
	 * for, wrote the record: it took it (a claim), or found it completed and wrote its
	 * expiry again so that a {@code WAIT} covers the result it replays.
	 * @param reply the reply
	 * @return whether the record was acquired or is replayed
	 */
	static boolean isClaimOrReplay(List<Object> reply) {
		long status = number(reply, 0);
		return status == 1 || status == 3;
	}

	static Optional<IdempotencyRecord> record(RecordKey key, List<Object> reply) {
		if (reply.isEmpty()) {
			return Optional.empty();
		}
		long completed = number(reply, 4);
		long now = number(reply, 6);
		long ttl = number(reply, 7);
		return Optional.of(new IdempotencyRecord(key, STATES[(int) number(reply, 0) - 1], number(reply, 1),
				Instant.ofEpochMilli(number(reply, 2)), Instant.ofEpochMilli(number(reply, 3)),
				(completed != 0) ? Instant.ofEpochMilli(completed) : null, number(reply, 5) == 1,
				(ttl >= 0) ? Instant.ofEpochMilli(now + ttl) : null));
	}

	/**
	 * Return the outcome in a reply of {@code acquire.lua} that found a completed record.
	 * @throws IllegalArgumentException if the record holds a failure that does not
	 * decode, saying why
	 */
	private static StoredResult storedResult(List<Object> reply) {
		byte[] reason = (byte[]) reply.get(3);
		if (RedisFailures.isFailure(reason)) {
			return RedisFailures.decode((byte[]) reply.get(2));
		}
		if (reason.length > 0) {
			return StoredResult.unreplayable(new String(reason, StandardCharsets.UTF_8));
		}
		return StoredResult.of((byte[]) reply.get(2));
	}

	private static long number(List<Object> reply, int index) {
		return (Long) reply.get(index);
	}

}
