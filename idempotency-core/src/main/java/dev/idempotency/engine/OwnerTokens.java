package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Owner tokens: 96 random bits, unique per attempt across processes, in 16 characters of
 * the URL-safe Base64 alphabet. They only tell attempts apart (they guard against
 * mistakes, not attackers), so the contention-free {@link ThreadLocalRandom} is enough.
 */
final class OwnerTokens {

	private static final byte[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
		.getBytes(StandardCharsets.US_ASCII);

	private static final int CHARS_PER_LONG = 8;

	private OwnerTokens() {
	}

	// 48 bits of each of two random longs, six to a character, straight into the token's
	// characters: encoding 12 random bytes with Base64.Encoder took two arrays more
	static String next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		byte[] chars = new byte[2 * CHARS_PER_LONG];
		fill(chars, 0, random.nextLong());
		fill(chars, CHARS_PER_LONG, random.nextLong());
		return new String(chars, StandardCharsets.US_ASCII);
	}

	private static void fill(byte[] chars, int from, long bits) {
		for (int i = 0; i < CHARS_PER_LONG; i++) {
			chars[from + i] = ALPHABET[(int) (bits >>> (6 * i)) & 0x3f];
		}
	}

}
