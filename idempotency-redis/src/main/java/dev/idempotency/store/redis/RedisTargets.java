package dev.idempotency.store.redis;

import java.util.Collection;
import java.util.stream.Collectors;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Describes where a connection factory connects, for logs: never its credentials.
 */
final class RedisTargets {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			RedisTargets.class.getClassLoader());

	private RedisTargets() {
	}

	/**
	 * Describe where a connection factory connects.
	 * @param connectionFactory the connection factory
	 * @return the server's {@code host:port} (with its database when not 0), socket, the
	 * nodes of a cluster or the master and sentinels of a sentinel set; for a client
	 * other than Lettuce, the factory's class
	 */
	static String describe(RedisConnectionFactory connectionFactory) {
		if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return describe(lettuce);
		}
		return "the connections of " + connectionFactory.getClass().getName();
	}

	private static String describe(LettuceConnectionFactory factory) {
		RedisClusterConfiguration cluster = factory.getClusterConfiguration();
		if (factory.isClusterAware() && cluster != null) {
			return "cluster nodes " + nodes(cluster.getClusterNodes());
		}
		RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
		if (factory.isRedisSentinelAware() && sentinel != null && sentinel.getMaster() != null) {
			return "sentinel master '" + sentinel.getMaster().getName() + "' via " + nodes(sentinel.getSentinels());
		}
		RedisSocketConfiguration socket = factory.getSocketConfiguration();
		if (socket != null) {
			return "socket " + socket.getSocket();
		}
		int database = factory.getDatabase();
		return host(factory.getHostName()) + ":" + factory.getPort()
				+ ((database != 0) ? " (database " + database + ")" : "");
	}

	private static String nodes(Collection<? extends RedisNode> nodes) {
		return nodes.stream().map(RedisTargets::node).collect(Collectors.joining(", "));
	}

	private static String node(RedisNode node) {
		String host = node.getHost();
		if (host == null) {
			return node.asString();
		}
		String described = host(host);
		// As RedisNode.asString() writes an IPv6 address
		return (described.contains(":") ? "[" + described + "]" : described) + ":" + node.getPort();
	}

	// A host is passed on as configured: one written as a URL with credentials, by
	// mistake, must not put them in a log.
	private static String host(String address) {
		int credentialsEnd = address.lastIndexOf('@');
		return (credentialsEnd >= 0) ? "***" + address.substring(credentialsEnd) : address;
	}

}
