package dev.idempotency.engine;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.ResultEncoder.Encoded;
import dev.idempotency.store.StoredResult;

/**
 * Records what the method of an attempt did, and reports it: its value completes the
 * record, a failure the operation replays completes it too, and any other failure (or a
 * value the codec calls a failure) releases it for the next delivery.
 */
final class MethodOutcomes {

	private static final Log logger = LogFactory.getLog(IdempotencyEngine.class);

	private final OutcomeReporter reporter;

	private final OutcomeRecorder recorder;

	private final ResultEncoder encoder;

	MethodOutcomes(OutcomeReporter reporter, OutcomeRecorder recorder, ResultEncoder encoder) {
		this.reporter = reporter;
		this.recorder = recorder;
		this.encoder = encoder;
	}

	/**
	 * Record what the stage of an asynchronous method ended with: released when the
	 * caller gave up on the call, else as {@link #failed} or {@link #completed} do.
	 * @param failure what the stage failed with, or {@code null}
	 * @param gaveUp whether the stage ended with the caller's cancellation
	 */
	void stageEnded(Call call, Operation operation, Attempt attempt, boolean takeover, @Nullable Object value,
			@Nullable Throwable failure, boolean gaveUp) {
		if (gaveUp && failure != null) {
			released(call, operation, attempt, failure);
		}
		else if (failure != null) {
			failed(call, operation, attempt, failure);
		}
		else {
			completed(call, operation, attempt, takeover, value);
		}
	}

	/**
	 * Report the failure of a method and record it: as the outcome that duplicates get
	 * when its type is one of the operation's {@code replayFailures}, else by releasing
	 * the record for the next delivery.
	 * @throws IdempotencyLockLostException if a failure to store found the record taken
	 * over
	 * @throws IdempotencyCompletionException if the store kept failing to store it
	 */
	void failed(Call call, Operation operation, Attempt attempt, Throwable ex) {
		StoredResult replayed = FailureReplays.stored(operation, ex);
		if (replayed == null) {
			released(call, operation, attempt, ex);
			return;
		}
		completeWithFailure(call, operation, attempt, this.encoder.failure(attempt, replayed), ex);
		this.reporter.report(call, operation, attempt.record(), Outcome.FAILED);
	}

	/**
	 * Report an attempt that failed or never ran, and release its record for the next
	 * delivery, whatever the failure.
	 */
	void released(Call call, Operation operation, Attempt attempt, Throwable ex) {
		this.reporter.report(call, operation, attempt.record(), Outcome.FAILED);
		this.recorder.release(attempt, operation.settings().retention(), ex);
	}

	/**
	 * Release an attempt's record once the transaction that the store joins, and that its
	 * outcome is about to be recorded in, has ended without a commit.
	 */
	JoinedTransaction releaseAfterRollback(Operation operation, Attempt attempt) {
		return JoinedTransaction.releaseAfterRollback(this.recorder, operation, attempt);
	}

	/**
	 * Release an attempt's record once the calling thread's transaction has ended without
	 * a commit, when the store joins that transaction.
	 * @return what follows the transaction, or {@code null} when the store does not join
	 * one
	 */
	@Nullable JoinedTransaction joinedTransaction(Operation operation, Attempt attempt) {
		return AfterCommit.joins(this.recorder.store()) ? releaseAfterRollback(operation, attempt) : null;
	}

	/**
	 * Store the value of a method that ran, and report the outcome.
	 * @throws IdempotencyLockLostException if another attempt took the record over
	 * @throws IdempotencyCompletionException if the store kept failing
	 * @throws Error an error raised while encoding the value, once the record is complete
	 */
	void completed(Call call, Operation operation, Attempt attempt, boolean takeover, @Nullable Object value) {
		if (operation.codec() != null && operation.codec().isFailure(value)) {
			releasedReturnedFailure(call, operation, attempt);
			return;
		}
		Encoded encoded = this.encoder.encode(operation, attempt, value);
		try {
			this.recorder.complete(attempt, encoded.stored(), operation.settings().retention());
		}
		catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
			reportUnrecorded(call, operation, attempt, ex);
			if (encoded.error() != null) {
				ex.addSuppressed(encoded.error());
			}
			throw ex;
		}
		this.reporter.report(call, operation, attempt.record(), takeover ? Outcome.RECOVERED : Outcome.EXECUTED);
		if (encoded.error() != null) {
			throw encoded.error();
		}
	}

	// A value that the codec calls a failure, such as a returned 5xx response: released
	// and counted as a thrown failure would be, through the owner's fenced release. The
	// caller gets its value whatever the release does, so a store failure is only logged.
	private void releasedReturnedFailure(Call call, Operation operation, Attempt attempt) {
		Throwable failure = new IllegalStateException(attempt + " returned a failure");
		released(call, operation, attempt, failure);
		for (Throwable ex : failure.getSuppressed()) {
			logger.warn(attempt + " returned a failure and could not release its record, which stays IN_PROGRESS "
					+ "until its lease runs out: " + ex.getMessage(), ex);
		}
	}

	// A failure that duplicates get too: its record completes, fenced like a result
	private void completeWithFailure(Call call, Operation operation, Attempt attempt, StoredResult stored,
			Throwable failure) {
		try {
			this.recorder.complete(attempt, stored, operation.settings().retention());
		}
		catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
			reportUnrecorded(call, operation, attempt, ex);
			ex.addSuppressed(failure);
			throw ex;
		}
	}

	private void reportUnrecorded(Call call, Operation operation, Attempt attempt, RuntimeException ex) {
		this.reporter.report(call, operation, attempt.record(),
				(ex instanceof IdempotencyLockLostException) ? Outcome.LOCK_LOST : Outcome.STORE_ERROR);
	}

}
