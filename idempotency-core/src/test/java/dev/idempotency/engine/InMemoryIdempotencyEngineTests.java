package dev.idempotency.engine;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

class InMemoryIdempotencyEngineTests extends IdempotencyEngineTests {

	@Override
	protected IdempotencyStore createStore() {
		return new InMemoryIdempotencyStore();
	}

}
