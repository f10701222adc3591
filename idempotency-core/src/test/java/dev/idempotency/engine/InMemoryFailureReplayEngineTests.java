package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

class InMemoryFailureReplayEngineTests extends FailureReplayEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return new InMemoryIdempotencyStore();
	}

}
