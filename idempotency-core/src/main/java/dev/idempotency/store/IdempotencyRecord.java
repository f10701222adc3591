package dev.idempotency.store;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A record as {@link IdempotencyStore#read} sees it, for operators.
 *
 * @param key the record's identity
 * @param state its state
 * @param fence its fence number
 * @param startedAt when the current or last attempt started, on the store's clock
 * @param leaseExpiresAt when the lease of that attempt runs or ran out
 * @param completedAt when it completed, or {@code null}
 * @param resultStored whether a replayable result is stored; {@code false} for a stored
 * failure, which duplicates get as an exception rather than as a value
 * @param expiresAt when the record expires, or {@code null} if it does not
 */
public record IdempotencyRecord(RecordKey key, RecordState state, long fence, Instant startedAt, Instant leaseExpiresAt,
		@Nullable Instant completedAt, boolean resultStored, @Nullable Instant expiresAt) {

}
