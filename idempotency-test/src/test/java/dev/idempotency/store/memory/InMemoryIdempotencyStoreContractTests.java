package dev.idempotency.store.memory;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.store.IdempotencyStoreContractTests;

class InMemoryIdempotencyStoreContractTests extends IdempotencyStoreContractTests {

	@Override
	protected IdempotencyStore createStore() {
		return new InMemoryIdempotencyStore();
	}

}
