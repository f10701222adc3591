package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

/**
 * Gives a duplicate the result of the attempt that completed, decoded to the declared
 * return type, or the reason it cannot have it.
 */
final class Replay {

	private Replay() {
	}

	static @Nullable Object decode(Operation operation, RecordKey record, StoredResult stored) {
		if (!stored.isReplayable()) {
			throw new IdempotencyReplayException("Operation '" + record.name() + "' already completed for key '"
					+ record.key() + "' but " + stored.unreplayableReason() + "; the method was not run again");
		}
		TypedCodec codec = operation.codec();
		if (codec == null) {
			return null;
		}
		try {
			return codec.decode(stored.body());
		}
		catch (RuntimeException ex) {
			throw new IdempotencyReplayException("Operation '" + record.name() + "' already completed for key '"
					+ record.key() + "' but its stored result does not decode to the declared return type; "
					+ "the method was not run again", ex);
		}
	}

}
