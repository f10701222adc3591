package dev.idempotency.engine;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

final class RecordingListener implements IdempotencyListener {

	private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

	private final List<StoreOperation> storeOperations = new CopyOnWriteArrayList<>();

	@Override
	public void onStoreOperation(StoreOperation operation, String store, long nanos, boolean succeeded) {
		if (operation != StoreOperation.RENEW) {
			this.storeOperations.add(operation);
		}
	}

	List<StoreOperation> storeOperations() {
		return this.storeOperations;
	}

	@Override
	public void onOutcome(String name, Outcome outcome) {
		this.outcomes.add(outcome);
	}

	List<Outcome> outcomes() {
		return this.outcomes;
	}

	long count(Outcome outcome) {
		return this.outcomes.stream().filter(outcome::equals).count();
	}

}
