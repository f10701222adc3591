package dev.idempotency.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

/**
 * Tells the listeners of the outcome of every call, logging it at DEBUG under the
 * engine's name (the one the README tells users to configure), and makes the exception of
 * a call that a replay or another attempt answered.
 */
final class OutcomeReporter {

	private static final Log logger = LogFactory.getLog(IdempotencyEngine.class);

	private final Listeners listeners;

	OutcomeReporter(Listeners listeners) {
		this.listeners = listeners;
	}

	Listeners listeners() {
		return this.listeners;
	}

	void report(Call call, Operation operation, RecordKey record, Outcome outcome) {
		if (logger.isDebugEnabled()) {
			logger.debug("Idempotent call of '" + operation.name() + "': " + outcome.tag()
					+ (logger.isTraceEnabled() ? " (key '" + record.key() + "')" : ""));
		}
		this.listeners.onOutcome(call, operation.name(), outcome);
	}

	/**
	 * Report a replay, and return the failure it replays, if its record stores one.
	 * @return a new instance of the stored failure, or {@code null} when the record
	 * stores a result, for {@link Replay#decode} to decode
	 * @throws dev.idempotency.IdempotencyReplayException if the stored failure cannot be
	 * replayed
	 */
	@Nullable Throwable replayedFailure(Call call, Operation operation, RecordKey record, Completed completed) {
		// Counted before decoding: a duplicate whose result cannot be replayed
		// is still a duplicate that the method did not run for.
		report(call, operation, record, Outcome.REPLAYED);
		StoredResult stored = completed.result();
		return stored.isFailure() ? FailureReplays.replay(operation, record, stored) : null;
	}

	/**
	 * Report a call that another attempt holds, or whose key was reused.
	 * @return the exception to fail it with
	 */
	IdempotencyException refusal(Call call, Operation operation, RecordKey record, AcquireResult result) {
		if (result instanceof InProgress inProgress) {
			report(call, operation, record, Outcome.IN_PROGRESS);
			return new IdempotencyInProgressException(record.name(), record.key(), inProgress.leaseRemaining());
		}
		if (result instanceof KeyReused) {
			report(call, operation, record, Outcome.KEY_REUSE);
			return new IdempotencyKeyReuseException(record.name(), record.key());
		}
		throw new IllegalStateException("Unknown acquire result " + result);
	}

}
