package dev.idempotency.engine;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.util.Assert;

/**
 * Runs the batches of {@link IdempotencyEngine#executeAll}: checks every item's key and
 * payload, admits the batch, and runs it as a {@link BatchCall}; holds what the steps of
 * its batches use.
 */
final class BatchCalls {

	private final IdempotencyStore store;

	private final CallRequests requests;

	private final CallAdmission admission;

	private final Acquirer acquirer;

	private final StoreFailures failures;

	private final OutcomeReporter reporter;

	private final AttemptStarter starter;

	private final MethodOutcomes outcomes;

	private final BatchRecorder recorder;

	BatchCalls(IdempotencyStore store, CallRequests requests, CallAdmission admission, Acquirer acquirer,
			StoreFailures failures, OutcomeReporter reporter, AttemptStarter starter, MethodOutcomes outcomes,
			BatchRecorder recorder) {
		this.store = store;
		this.requests = requests;
		this.admission = admission;
		this.acquirer = acquirer;
		this.failures = failures;
		this.reporter = reporter;
		this.starter = starter;
		this.outcomes = outcomes;
		this.recorder = recorder;
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
		BatchItems<I> batch = new BatchItems<>(this.reporter.listeners(), items,
				(item) -> this.requests.recordKey(operation, keyFunction.apply(item)), fingerprinted,
				(fingerprint) -> CallRequests.request(operation, fingerprint));
		if (!batch.admit(this.admission.inFlight())) {
			throw this.admission.refused(operation, batch);
		}
		try {
			return new BatchCall<>(this, operation, batch, work).run();
		}
		finally {
			batch.leave();
		}
	}

	IdempotencyStore store() {
		return this.store;
	}

	CallAdmission admission() {
		return this.admission;
	}

	Acquirer acquirer() {
		return this.acquirer;
	}

	StoreFailures failures() {
		return this.failures;
	}

	OutcomeReporter reporter() {
		return this.reporter;
	}

	AttemptStarter starter() {
		return this.starter;
	}

	MethodOutcomes outcomes() {
		return this.outcomes;
	}

	BatchRecorder recorder() {
		return this.recorder;
	}

}
