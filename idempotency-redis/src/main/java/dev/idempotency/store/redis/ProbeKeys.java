package dev.idempotency.store.redis;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * The keys a {@link RedisServerCheck} writes and deletes to learn whether a server
 * accepts writes: {@code keyPrefix + "health-probe"}, which no record key can equal, or
 * on Redis Cluster one of {@code keyPrefix + "health-probe{n}"} that lands on a given
 * primary.
 */
final class ProbeKeys {

	private static final String PROBE_KEY = "health-probe";

	// Enough for any primary of a cluster: 16384 slots, each hit by about one tag in
	// 16384
	private static final int MAX_TAGS = 1 << 20;

	private ProbeKeys() {
	}

	static String of(String keyPrefix) {
		return keyPrefix + PROBE_KEY;
	}

	/**
	 * Return a probe key under a prefix whose hash slot a primary serves:
	 * {@code prefix + "health-probe"} or else {@code prefix + "health-probe{n}"} with the
	 * smallest {@code n} that lands there. A prefix with a hash tag of its own puts every
	 * key under it in one slot: a primary that does not serve it holds no records.
	 * @param keyPrefix the store's key prefix
	 * @param primary the primary
	 * @return the key, or {@code null} when no key under the prefix lands there
	 */
	static @Nullable String on(String keyPrefix, ScriptRunner.Primary primary) {
		String plain = of(keyPrefix);
		if (primary.servesSlot().test(ClusterSlotHashUtil.calculateSlot(plain))) {
			return plain;
		}
		if (ClusterSlotHashUtil.calculateSlot(tagged(keyPrefix, 0)) == ClusterSlotHashUtil
			.calculateSlot(tagged(keyPrefix, 1))) {
			return null;
		}
		for (int n = 0; n < MAX_TAGS; n++) {
			String candidate = tagged(keyPrefix, n);
			if (primary.servesSlot().test(ClusterSlotHashUtil.calculateSlot(candidate))) {
				return candidate;
			}
		}
		return null;
	}

	private static String tagged(String keyPrefix, int n) {
		return keyPrefix + PROBE_KEY + "{" + n + "}";
	}

}
