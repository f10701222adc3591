package dev.idempotency.store.redis;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.redis.ScriptRunner.Primary;

/**
 * Asks which transition scripts the Redis server, or each primary of a Redis Cluster that
 * can hold a store's records, holds in its script cache, for health checks.
 */
final class ScriptCacheChecks {

	private final RedisScripts scripts;

	private final ScriptRunner runner;

	private final ClusterPrimaries primaries;

	ScriptCacheChecks(RedisScripts scripts, ScriptRunner runner, String keyPrefix) {
		this.scripts = scripts;
		this.runner = runner;
		this.primaries = new ClusterPrimaries(runner, keyPrefix);
	}

	/**
	 * Return whether the server, or every primary of a cluster, holds each script.
	 * @return whether each script is cached, by transition name
	 * @throws IdempotencyStoreException when Redis fails
	 */
	Map<String, Boolean> loaded() {
		List<Primary> primaries = this.primaries.all();
		if (primaries.isEmpty()) {
			return this.scripts.loadedOn(this.runner, "Redis");
		}
		Map<String, Boolean> loaded = new LinkedHashMap<>();
		for (Primary primary : primaries) {
			this.scripts.loadedOn(primary.commands(), "Redis node " + primary.address())
				.forEach((transition, cached) -> loaded.merge(transition, cached, Boolean::logicalAnd));
		}
		return loaded;
	}

	/**
	 * Return whether one primary of a cluster holds each script.
	 * @param primary its {@code host:port}
	 * @return whether each script is cached there, by transition name
	 * @throws IdempotencyStoreException when it is no longer such a primary, or Redis
	 * fails
	 */
	Map<String, Boolean> loadedOn(String primary) {
		return this.scripts.loadedOn(this.primaries.get(primary).commands(), "Redis node " + primary);
	}

	/**
	 * Return the primaries of the cluster that can hold the store's records.
	 * @return their {@code host:port}, in the client's order; empty when Redis is not a
	 * cluster or its client cannot address one node
	 * @throws IdempotencyStoreException when the client cannot connect to Redis
	 */
	List<String> primaries() {
		return this.primaries.all().stream().map(Primary::address).toList();
	}

}
