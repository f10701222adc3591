package dev.idempotency.test.store;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

/**
 * What every family of the store contract runs against: the store of the running test and
 * a key of its own. Each family is an interface whose tests are default methods, so that
 * {@link IdempotencyStoreContractTests} runs them all by implementing them.
 */
interface StoreContract {

	/**
	 * Return the store of the running test.
	 * @return the store
	 */
	IdempotencyStore store();

	/**
	 * Return a key of the running test that no other test uses.
	 * @return the key
	 */
	RecordKey key();

}
