package dev.idempotency.amqp;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import org.jspecify.annotations.Nullable;

/**
 * An exception of this library that a listener threw, found in the cause chain of what
 * reached the container (which wraps it in a {@code ListenerExecutionFailedException}),
 * and what the container is to do with its message.
 *
 * @param kind what to do with the message
 * @param exception the exception found
 */
record ListenerFailure(Kind kind, IdempotencyException exception) {

	/**
	 * Find the exception of this library in a cause chain, if there is one that decides
	 * what happens to the message.
	 * @param thrown what the listener threw
	 * @return the failure, or {@code null} to leave the exception to the container
	 */
	static @Nullable ListenerFailure of(Throwable thrown) {
		for (Throwable cause = thrown; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof IdempotencyException exception) {
				Kind kind = Kind.of(exception);
				return (kind != null) ? new ListenerFailure(kind, exception) : null;
			}
		}
		return null;
	}

	/**
	 * What the container does with the message.
	 */
	enum Kind {

		/**
		 * Another attempt holds the key and may still fail: requeue after the in-progress
		 * back-off, never acknowledge.
		 */
		IN_PROGRESS,

		/**
		 * The store failed, or the attempt lost its record to a successor: requeue after
		 * a back-off; a later delivery runs, replays or finds the successor's result.
		 */
		REQUEUE,

		/**
		 * A delivery of this very message can never succeed (a missing or unusable key, a
		 * key reused with another payload, a payload that cannot be fingerprinted, a
		 * stored result that cannot be replayed): reject without requeue, so that a
		 * dead-letter exchange keeps it for an operator.
		 */
		REJECT;

		static @Nullable Kind of(IdempotencyException exception) {
			if (exception instanceof IdempotencyInProgressException) {
				return IN_PROGRESS;
			}
			if (exception instanceof IdempotencyStoreException || exception instanceof IdempotencyLockLostException) {
				return REQUEUE;
			}
			if (exception instanceof IdempotencyKeyException || exception instanceof IdempotencyKeyReuseException
					|| exception instanceof IdempotencyPayloadException
					|| exception instanceof IdempotencyReplayException) {
				return REJECT;
			}
			return null;
		}

	}

}
