package dev.idempotency.test.store;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import org.junit.jupiter.api.BeforeEach;

/**
 * The contract every {@link IdempotencyStore} fulfils: every transition, ownership and
 * fencing, expiry on the store's clock, fingerprints, batches, and many threads racing
 * for one key. The tests of a store extend this class and create the store, which runs
 * every family of the contract: <pre class="code">
 * class MyIdempotencyStoreTests extends IdempotencyStoreContractTests {
 *
 *     &#064;Override
 *     protected IdempotencyStore createStore() {
 *         return new MyIdempotencyStore(...);
 *     }
 *
 * }
 * </pre> Every test uses keys of its own, so the store may be shared by all of them and
 * hold other records. Tests that wait for leases and retentions to run out use durations
 * of a fraction of a second and wait on the store's own clock, never sleeping.
 */
public abstract class IdempotencyStoreContractTests implements AcquireContract, CompleteAndReleaseContract,
		RenewContract, ExpiryContract, ReadAndEvictContract, FencingContract, BatchContract, ConcurrencyContract {

	private IdempotencyStore store;

	private RecordKey key;

	/**
	 * Create the store under test; called before each test.
	 * @return the store
	 */
	protected abstract IdempotencyStore createStore();

	@BeforeEach
	void createStoreAndKey() {
		this.store = createStore();
		this.key = newKey();
	}

	/**
	 * Return the store of the running test.
	 * @return the store
	 */
	@Override
	public final IdempotencyStore store() {
		return this.store;
	}

	/**
	 * Return the key of the running test, which no other test uses.
	 * @return the key
	 */
	@Override
	public final RecordKey key() {
		return this.key;
	}

	/**
	 * Return a key no other test uses.
	 * @return a random key
	 */
	protected static RecordKey newKey() {
		return ContractFixtures.newKey();
	}

	/**
	 * Return a request with a long lease and retention and no fingerprint.
	 * @param owner the owner token
	 * @return the request
	 */
	protected static AcquireRequest request(String owner) {
		return ContractFixtures.request(owner);
	}

}
