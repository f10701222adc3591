package dev.idempotency.test.redis;

import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster for tests: three primaries with one replica each when the tests start
 * it, every node a {@link RedisServer} that a test can stop, kill or freeze (on a cluster
 * of its own, never on the shared one).
 * <p>
 * Roles change: after a primary fails, its replica takes over its slots, and when it
 * comes back it is a replica. Every method that names a role asks the cluster, so its
 * answer is the current one as the cluster sees it.
 *
 * @see TestRedis#startCluster()
 * @see TestRedis#cluster()
 */
public interface RedisCluster extends AutoCloseable {

	/**
	 * Return every node of the cluster, whatever its role and state.
	 * @return the nodes
	 */
	List<RedisServer> nodes();

	/**
	 * Return the nodes that serve slots now and that no node has seen fail, in the order
	 * of their first slot.
	 * @return the primaries
	 * @throws IllegalStateException if no node answers
	 */
	List<RedisServer> primaries();

	/**
	 * Return the node that serves the slot of a key now.
	 * @param key the key, as Redis sees it (a hash tag in braces decides the slot)
	 * @return the primary serving its slot
	 * @throws IllegalStateException if no node answers, or none serves the slot
	 */
	RedisServer primaryOf(byte[] key);

	/**
	 * Return a replica of a primary that no node has seen fail.
	 * @param primary the primary
	 * @return its replica
	 * @throws IllegalArgumentException if {@code primary} is not a node of this cluster
	 * @throws IllegalStateException if no node answers, or the primary has no healthy
	 * replica
	 */
	RedisServer replicaOf(RedisServer primary);

	/**
	 * Return the addresses of every node, as {@code spring.data.redis.cluster.nodes}
	 * takes them: {@code host:port,host:port,...}.
	 * @return the addresses
	 */
	String nodeAddresses();

	/**
	 * Wait until a primary that was stopped, killed or frozen has been replaced: one of
	 * its replicas serves its slots, every other running node agrees on that and says
	 * {@code cluster_state:ok}.
	 * @param formerPrimary the primary that failed
	 * @return the node that serves its slots now
	 * @throws IllegalArgumentException if {@code formerPrimary} is not a node of this
	 * cluster, or was not a primary when the cluster was last asked
	 * @throws IllegalStateException if the replacement does not happen within 30 seconds,
	 * with what the nodes reported last
	 */
	RedisServer awaitPromotion(RedisServer formerPrimary);

	/**
	 * Create a started connection factory for the cluster, configured with every node,
	 * with timeouts short enough for tests, that rejects commands for a node at once
	 * while disconnected from it, and refreshes its view of the cluster every second and
	 * on every redirection or reconnect, so that it follows a failover. The caller
	 * destroys it.
	 * @return the started factory
	 */
	LettuceConnectionFactory newConnectionFactory();

	/**
	 * Stop every node and free what it used. Does nothing on the shared cluster of
	 * {@link TestRedis#cluster()}, which lives as long as the JVM, nor on one given by
	 * {@value TestRedis#CLUSTER_NODES_VARIABLE}.
	 */
	@Override
	void close();

}
