package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;

/**
 * Turns what a call was made with into what the store is asked: its record key, checked
 * and hashed, and its acquire request with the payload fingerprint. A call refused for
 * its key or payload is counted {@link Outcome#INVALID}, but not observed.
 */
final class CallRequests {

	private final Listeners listeners;

	private final int maxKeyLength;

	CallRequests(Listeners listeners, int maxKeyLength) {
		this.listeners = listeners;
		this.maxKeyLength = maxKeyLength;
	}

	/**
	 * Return the record of a call.
	 * @param rawKey the evaluated key, before validation and hashing
	 * @throws dev.idempotency.IdempotencyKeyException if the key is invalid
	 */
	RecordKey recordKey(Operation operation, @Nullable Object rawKey) {
		try {
			return new RecordKey(operation.name(), Keys.normalize(operation, rawKey, this.maxKeyLength));
		}
		catch (IdempotencyException ex) {
			this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
			throw ex;
		}
	}

	/**
	 * Compute the payload fingerprint of a call.
	 * @return the fingerprint, or {@code null} when the call has none
	 * @throws IdempotencyPayloadException if it cannot be computed
	 */
	byte @Nullable [] fingerprinted(Operation operation, @Nullable Fingerprint fingerprint) {
		if (fingerprint == null) {
			return null;
		}
		try {
			return fingerprint(operation, fingerprint);
		}
		catch (IdempotencyException ex) {
			this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
			throw ex;
		}
	}

	private static byte[] fingerprint(Operation operation, Fingerprint fingerprint) {
		try {
			return fingerprint.compute();
		}
		catch (IdempotencyException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new IdempotencyPayloadException("Could not fingerprint the payload of operation '" + operation.name()
					+ "'; the method was not called: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Return the acquire request of a new attempt, with a new owner token.
	 */
	static AcquireRequest request(Operation operation, byte @Nullable [] fingerprint) {
		OperationSettings settings = operation.settings();
		return new AcquireRequest(OwnerTokens.next(), settings.lockTimeout(), settings.retention(), fingerprint);
	}

}
