package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The stored form of keys: a key longer than the maximum is stored as {@value #HASHED}
 * followed by the lowercase hex SHA-256 of its UTF-8 bytes. So is a key that starts with
 * {@value #HASHED} itself, whatever its length: the two forms are then disjoint, and no
 * literal key, such as a hex digest a caller chose, can ever meet the record of a hashed
 * one.
 */
final class HashedKeys {

	/**
	 * The start of every hashed key, and of no literal one.
	 */
	static final String HASHED = "sha256:";

	private HashedKeys() {
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
