package dev.idempotency.engine;

import java.util.Locale;

/**
 * Transitions of the store that the engine times for metrics.
 */
public enum StoreOperation {

	/**
	 * Taking ownership of a record, or finding why not.
	 */
	ACQUIRE,

	/**
	 * Storing the outcome of an owned record.
	 */
	COMPLETE,

	/**
	 * Marking an owned record failed.
	 */
	RELEASE,

	/**
	 * Extending the lease of an owned record.
	 */
	RENEW;

	private final String tag = name().toLowerCase(Locale.ROOT);

	/**
	 * Return the lowercase name used as a metric tag, such as {@code acquire}.
	 * @return the tag value
	 */
	public String tag() {
		return this.tag;
	}

}
