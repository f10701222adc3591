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
	REPLAYS("replays");

	private final String label;

	Workload(String label) {
		this.label = label;
	}

	String label() {
		return this.label;
	}

}
