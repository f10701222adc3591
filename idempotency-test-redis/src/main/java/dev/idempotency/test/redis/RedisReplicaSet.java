package dev.idempotency.test.redis;

import java.util.List;

/**
 * A primary and its replicas ({@code replicaof}), without sentinels, that one test
 * started for itself: for tests of replication, such as how many replicas acknowledged a
 * write. Every server can be stopped, killed, frozen and restarted on its own; a
 * restarted replica comes back as a replica of the same primary, a restarted primary
 * comes back empty and its replicas copy that.
 * <p>
 * Close it when done; servers still running when the JVM exits are stopped then.
 *
 * @see TestRedis#startReplicaSet(int)
 */
public interface RedisReplicaSet extends AutoCloseable {

	/**
	 * Return the primary.
	 * @return the primary
	 */
	RedisServer primary();

	/**
	 * Return the replicas of the primary, in the order they were started.
	 * @return the replicas
	 */
	List<RedisServer> replicas();

	/**
	 * Wait until every replica is connected to the primary
	 * ({@code master_link_status:up}) and has applied everything the primary has sent
	 * (its replication offset equals the primary's).
	 * @throws IllegalStateException if that does not happen within 30 seconds, for
	 * instance because a replica or the primary is stopped or frozen, naming the replica
	 * and what it reported
	 */
	void awaitReplicasInSync();

	/**
	 * Stop every server and free what it used.
	 */
	@Override
	void close();

}
