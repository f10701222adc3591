package dev.idempotency.actuate.endpoint;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonInclude.Include;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordState;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * Description of one idempotency record, as {@link IdempotencyEndpoint} shows it. Every
 * time is on the store's clock. Absent times are written as {@code null} rather than left
 * out, so that clients always see the same fields.
 *
 * @param name the operation name
 * @param key the key as stored
 * @param keyHashed whether the requested key was stored hashed (too long, or starting
 * with {@code sha256:}) and {@code key} is {@code sha256:} followed by its SHA-256 digest
 * @param state {@code IN_PROGRESS}, {@code COMPLETED} or {@code FAILED}
 * @param fence the fence number of the current or last attempt
 * @param startedAt when that attempt started
 * @param leaseExpiresAt when its lease runs or ran out
 * @param completedAt when it completed, or {@code null}
 * @param resultStored whether a duplicate can replay a stored result
 * @param expiresAt when the record expires, or {@code null} if it does not
 */
@JsonInclude(Include.ALWAYS)
public record RecordDescriptor(String name, String key, boolean keyHashed, RecordState state, long fence,
		Instant startedAt, Instant leaseExpiresAt, @Nullable Instant completedAt, boolean resultStored,
		@Nullable Instant expiresAt) implements OperationResponseBody {

	static RecordDescriptor of(IdempotencyRecord record, boolean keyHashed) {
		return new RecordDescriptor(record.key().name(), record.key().key(), keyHashed, record.state(), record.fence(),
				record.startedAt(), record.leaseExpiresAt(), record.completedAt(), record.resultStored(),
				record.expiresAt());
	}

}
