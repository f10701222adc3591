package dev.idempotency.autoconfigure;

/**
 * Settings of the in-memory store, bound from {@code idempotency.memory}.
 *
 * @see IdempotencyProperties#getMemory()
 */
public class IdempotencyMemoryProperties {

	/**
	 * Maximum number of records the in-memory store keeps.
	 */
	private int maxEntries = 100_000;

	public int getMaxEntries() {
		return this.maxEntries;
	}

	public void setMaxEntries(int maxEntries) {
		this.maxEntries = maxEntries;
	}

}
