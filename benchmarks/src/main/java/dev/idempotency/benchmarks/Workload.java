package dev.idempotency.benchmarks;

/**
 * What the callers do.
 */
enum Workload {

	/**
	 * Every call has a key never seen before: acquire, run, complete.
	 */
	NEW_KEYS("new keys"),

	/**
	 * Every call has the key of a completed record: acquire returns the stored result.
	 */
	REPLAYS("replays"),

	/**
	 * Batches of new keys through {@code executeAll}, against the per-call floor on raw
	 * Lettuce: see {@link BatchComparison}.
	 */
	BATCHES("batches");

	private final String label;

	Workload(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

	/**
	 * Return whether every side makes one call per record in this workload.
	 * @return whether the workload is measured side by side
	 */
	boolean isPerCall() {
		return this != BATCHES;
	}

}
