package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;

/**
 * What the steps of every batch of an engine use, shared by {@link BatchCall} and
 * {@link BatchWork}: made once per engine by {@link BatchCalls}.
 *
 * @param store the store, which acquires a batch's keys at once
 * @param admission the admission of calls, which refuses them once a shutdown began
 * @param acquirer the acquirer, which abandons the claims of a batch whose store failed
 * @param failures what a store failure does to an item
 * @param reporter the reporter of each item's outcome
 * @param starter the starter of each taken item's attempt
 * @param outcomes what the work of an item did
 * @param recorder the recorder of a batch's outcomes at once
 */
record BatchSteps(IdempotencyStore store, CallAdmission admission, Acquirer acquirer, StoreFailures failures,
		OutcomeReporter reporter, AttemptStarter starter, MethodOutcomes outcomes, BatchRecorder recorder) {

}
