package dev.idempotency.codec;

import org.jspecify.annotations.Nullable;

/**
 * Checks a value that must be of exactly one class, then possibly the properties it
 * holds.
 */
final class ExactClassCheck extends SubclassCheck {

	private final Class<?> type;

	private final String where;

	private final boolean root;

	private final @Nullable SubclassCheck properties;

	/**
	 * Create the check of a value.
	 * @param type the only class the value may have
	 * @param where where the class is declared, for the message
	 * @param root whether the value is the result itself
	 * @param properties the check of its properties, or {@code null}
	 */
	ExactClassCheck(Class<?> type, String where, boolean root, @Nullable SubclassCheck properties) {
		this.type = type;
		this.where = where;
		this.root = root;
		this.properties = properties;
	}

	@Override
	void check(Object value) {
		if (value.getClass() != this.type) {
			throw new UnreplayableResultException(reason(value.getClass()), value.getClass(), this.type);
		}
		if (this.properties != null) {
			this.properties.check(value);
		}
	}

	private String reason(Class<?> actual) {
		String found = (this.root ? "its result is a " : "its result holds a ") + actual.getName();
		if (!this.type.isAssignableFrom(actual)) {
			return found + ", not " + (this.root ? "" : "a ") + this.where;
		}
		return found + ", a subclass of " + this.where + ", whose extra fields would be lost on replay";
	}

}
