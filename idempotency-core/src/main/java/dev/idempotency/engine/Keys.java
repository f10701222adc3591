package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.idempotency.IdempotencyKeyException;
import org.jspecify.annotations.Nullable;

/**
 * Turns an evaluated key into the stored one.
 * <p>
 * A key longer than the maximum is stored as {@value #HASHED} followed by the lowercase
 * hex SHA-256 of its UTF-8 bytes. So is a key that starts with {@value #HASHED} itself,
 * whatever its length: the two forms are then disjoint, and no literal key, such as a hex
 * digest a caller chose, can ever meet the record of a hashed one.
 */
final class Keys {

	/**
	 * The start of every hashed key, and of no literal one.
	 */
	static final String HASHED = "sha256:";

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
		return stored(key, maxLength);
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

	static String stored(String key, int maxLength) {
		return (key.length() > maxLength || key.startsWith(HASHED)) ? HASHED + sha256Hex(key) : key;
	}

	/**
	 * Return whether a key is in the stored form of a hashed key.
	 */
	static boolean isHashed(String key) {
		return key.length() == HASHED.length() + 64 && key.startsWith(HASHED)
				&& key.chars().skip(HASHED.length()).allMatch((c) -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
	}

	static String sha256Hex(String value) {
		try {
			MessageDigest digest = MessageDigest.getInstance("SHA-256");
			return HexFormat.of().formatHex(digest.digest(value.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
