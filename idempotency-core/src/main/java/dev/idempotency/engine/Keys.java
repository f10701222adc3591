package dev.idempotency.engine;

import dev.idempotency.IdempotencyKeyException;
import org.jspecify.annotations.Nullable;

/**
 * Turns an evaluated key into the stored one: refuses a key that is null, blank, unstable
 * or not Unicode text, and hashes a long one as {@link HashedKeys} says.
 */
final class Keys {

	private Keys() {
	}

	static String normalize(Operation operation, @Nullable Object raw, int maxLength) {
		if (raw == null) {
			throw new IdempotencyKeyException("Key of operation '" + operation.name() + "' is null (from "
					+ operation.keySource() + "); the method was not called");
		}
		if (!(raw instanceof String)) {
			String unstable = StableKeys.problem(raw);
			if (unstable != null) {
				throw new IdempotencyKeyException("Key of operation '" + operation.name() + "' (from "
						+ operation.keySource() + ") is " + unstable
						+ ": idempotency would silently be off. Key on a stable value such as an id, a String, "
						+ "a number or a record; the method was not called");
			}
		}
		String key = raw.toString();
		if (key == null || key.isBlank()) {
			throw new IdempotencyKeyException("Key of operation '" + operation.name() + "' is blank (from "
					+ operation.keySource() + "); the method was not called");
		}
		int surrogate = unpairedSurrogate(key);
		if (surrogate >= 0) {
			throw new IdempotencyKeyException("Key of operation '" + operation.name() + "' (from "
					+ operation.keySource() + ") holds an unpaired surrogate at index " + surrogate
					+ ", which is not Unicode text: stored as UTF-8 it would become '?' and meet other keys; "
					+ "the method was not called");
		}
		return HashedKeys.stored(key, maxLength);
	}

	/**
	 * Return where a string holds a surrogate that is not half of a pair, or -1.
	 */
	static int unpairedSurrogate(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.isSurrogate(c)) {
				if (Character.isHighSurrogate(c) && i + 1 < value.length()
						&& Character.isLowSurrogate(value.charAt(i + 1))) {
					i++;
				}
				else {
					return i;
				}
			}
		}
		return -1;
	}

}
