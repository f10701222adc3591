package dev.idempotency.store.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.redis.ScriptRunner.Primary;

/**
 * The primaries of a Redis Cluster that can hold a store's records, for health checks of
 * each: those serving hash slots, or only the one serving the key prefix's slot when the
 * prefix has a hash tag of its own.
 */
final class ClusterPrimaries {

	private final ScriptRunner runner;

	private final String keyPrefix;

	ClusterPrimaries(ScriptRunner runner, String keyPrefix) {
		this.runner = runner;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Return the primaries as the client sees the cluster now.
	 * @return the primaries; empty when Redis is not a cluster, or its client cannot
	 * address one node
	 * @throws IdempotencyStoreException when the client fails
	 */
	List<Primary> all() {
		List<Primary> primaries;
		try {
			primaries = this.runner.primaries();
		}
		catch (RuntimeException ex) {
			throw new IdempotencyStoreException("Redis failed to tell the primaries of its cluster", ex);
		}
		return primaries.stream().filter((primary) -> probeKey(primary) != null).toList();
	}

	/**
	 * Return one primary.
	 * @param address its {@code host:port}
	 * @return the primary
	 * @throws IdempotencyStoreException when it is not such a primary now, or the client
	 * fails
	 */
	Primary get(String address) {
		for (Primary primary : all()) {
			if (primary.address().equals(address)) {
				return primary;
			}
		}
		throw new IdempotencyStoreException("'" + address + "' is not a primary of the Redis Cluster that can hold "
				+ "idempotency records under prefix '" + this.keyPrefix + "' now");
	}

	/**
	 * Return a key under the prefix whose slot a primary serves, for a probe write.
	 * @param primary the primary
	 * @return the key, or {@code null} when no key under the prefix lands there
	 * @see ProbeKeys#on(String, Primary)
	 */
	@Nullable String probeKey(Primary primary) {
		return ProbeKeys.on(this.keyPrefix, primary);
	}

}
