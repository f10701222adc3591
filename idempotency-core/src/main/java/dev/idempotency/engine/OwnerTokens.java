package dev.idempotency.engine;

import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Owner tokens: 96 random bits, unique per attempt across processes. They only tell
 * attempts apart (they guard against mistakes, not attackers), so the contention-free
 * {@link ThreadLocalRandom} is enough.
 */
final class OwnerTokens {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private OwnerTokens() {
	}

	static String next() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		byte[] bytes = new byte[12];
		random.nextBytes(bytes);
		return ENCODER.encodeToString(bytes);
	}

}
