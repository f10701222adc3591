package dev.idempotency.store.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The topology of a Redis Cluster as the Lettuce client of a factory knows it: which
 * primary serves a hash slot, refreshed from the cluster when none is known or a node
 * named in a redirection is not.
 */
final class ClusterTopology {

	private final LettuceConnectionFactory connectionFactory;

	private final long timeoutNanos;

	ClusterTopology(LettuceConnectionFactory connectionFactory, long timeoutNanos) {
		this.connectionFactory = connectionFactory;
		this.timeoutNanos = timeoutNanos;
	}

	/**
	 * Return the primary that serves a slot, refreshing the topology once if none does.
	 * @param cluster the connection to the cluster
	 * @param slot the hash slot
	 * @return the primary
	 * @throws RedisException when no primary serves the slot after the refresh
	 */
	RedisClusterNode primaryOf(StatefulRedisClusterConnection<byte[], byte[]> cluster, int slot) {
		RedisClusterNode primary = cluster.getPartitions().getMasterBySlot(slot);
		if (primary == null) {
			refresh();
			primary = cluster.getPartitions().getMasterBySlot(slot);
		}
		if (primary == null) {
			throw new RedisException("No primary of the Redis Cluster serves hash slot " + slot);
		}
		return primary;
	}

	/**
	 * Reload the topology from the cluster, waiting for it at most the timeout given.
	 */
	void refresh() {
		RedisClusterClient client = (RedisClusterClient) this.connectionFactory.getRequiredNativeClient();
		LettuceNodeCommands.within(client.refreshPartitionsAsync().toCompletableFuture(), this.timeoutNanos,
				"refresh the Redis Cluster topology");
	}

}
