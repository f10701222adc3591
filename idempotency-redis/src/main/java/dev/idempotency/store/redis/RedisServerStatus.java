package dev.idempotency.store.redis;

import org.jspecify.annotations.Nullable;

/**
 * What the Redis server that holds a store's records answered to a
 * {@link RedisServerCheck}. Each setting is {@code null} when the server did not tell,
 * which happens where the client may not run {@code INFO} (an ACL, or a managed service
 * that renames it).
 *
 * @param role replication role, {@code master} or {@code replica}
 * @param writeRefusal the server's error reply to the probe write, such as
 * {@code READONLY You can't write against a read only replica.}; {@code null} when it
 * accepted the write
 * @param maxmemoryPolicy {@code maxmemory-policy}, such as {@code noeviction}
 * @param maxmemory {@code maxmemory} in bytes, {@code 0} for no limit
 * @param usedMemory memory the server has allocated, in bytes ({@code used_memory})
 */
public record RedisServerStatus(@Nullable String role, @Nullable String writeRefusal, @Nullable String maxmemoryPolicy,
		@Nullable Long maxmemory, @Nullable Long usedMemory) {

	/**
	 * Replication role of a primary.
	 */
	public static final String MASTER = "master";

	/**
	 * Replication role of a replica (Redis itself says {@code slave}).
	 */
	public static final String REPLICA = "replica";

	/**
	 * The only {@code maxmemory-policy} under which Redis never evicts a record.
	 */
	public static final String NO_EVICTION = "noeviction";

	/**
	 * Return whether the server accepted the probe write, and so would accept the write
	 * of a transition now.
	 * @return whether writes are accepted
	 */
	public boolean acceptsWrites() {
		return this.writeRefusal == null;
	}

	/**
	 * Return whether the server is a replica. A replica that accepts writes
	 * ({@code replica-read-only no}) keeps them to itself: they never reach its master
	 * and are lost when it resynchronises.
	 * @return whether it is a replica
	 */
	public boolean isReplica() {
		return REPLICA.equals(this.role);
	}

	/**
	 * Return whether the server may evict records when it reaches {@code maxmemory}: a
	 * limit is set and the policy is not {@code noeviction}. Every record has a TTL, so
	 * the {@code volatile-*} policies evict records as well as the {@code allkeys-*}
	 * ones; a duplicate of a call whose record was evicted runs the method again.
	 * @return whether records may be evicted; {@code false} when the settings are unknown
	 */
	public boolean evictsRecords() {
		return this.maxmemory != null && this.maxmemory > 0 && this.maxmemoryPolicy != null
				&& !NO_EVICTION.equals(this.maxmemoryPolicy);
	}

}
