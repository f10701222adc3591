package dev.idempotency.engine;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.util.Assert;

/**
 * Runs the batches of {@link IdempotencyEngine#executeAll}: checks every item's key and
 * payload, admits the batch, and runs it as a {@link BatchCall} with the engine's
 * {@link BatchSteps}.
 */
final class BatchCalls {

	private final CallRequests requests;

	private final BatchSteps steps;

	BatchCalls(IdempotencyStore store, CallRequests requests, CallAdmission admission, Acquirer acquirer,
			StoreFailures failures, OutcomeReporter reporter, AttemptStarter starter, MethodOutcomes outcomes,
			BatchRecorder recorder) {
		this.requests = requests;
		this.steps = new BatchSteps(store, admission, acquirer, failures, reporter, starter, outcomes, recorder);
	}

	/**
	 * Run a batch, as {@link IdempotencyEngine#executeAll} describes.
	 */
	<I> List<BatchOutcome<I, @Nullable Object>> execute(Operation operation, List<? extends I> items,
			Function<? super I, ?> keyFunction, @Nullable Function<? super I, @Nullable Fingerprint> fingerprints,
			Function<? super I, ?> work) {
		Assert.notNull(items, "'items' must not be null");
		Assert.notNull(keyFunction, "'keyFunction' must not be null");
		Assert.notNull(work, "'work' must not be null");
		if (items.isEmpty()) {
			return List.of();
		}
		Function<? super I, byte @Nullable []> fingerprinted = null;
		if (fingerprints != null) {
			fingerprinted = (item) -> this.requests.fingerprinted(operation, fingerprints.apply(item));
		}
		BatchItems<I> batch = new BatchItems<>(this.steps.reporter().listeners(), items,
				(item) -> this.requests.recordKey(operation, keyFunction.apply(item)), fingerprinted,
				(fingerprint) -> CallRequests.request(operation, fingerprint));
		if (!batch.admit(this.steps.admission().inFlight())) {
			throw this.steps.admission().refused(operation, batch);
		}
		try {
			return new BatchCall<>(this.steps, operation, batch, work).run();
		}
		finally {
			batch.leave();
		}
	}

}
