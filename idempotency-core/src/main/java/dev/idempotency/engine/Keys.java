package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.idempotency.IdempotencyKeyException;
import org.jspecify.annotations.Nullable;

/**
 * Turns an evaluated key into the stored one.
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
		return stored(key, maxLength);
	}

	static String stored(String key, int maxLength) {
		return (key.length() > maxLength) ? sha256Hex(key) : key;
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
