package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.Collection;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Connection factories with timeouts short enough for tests, which reject commands at
 * once while disconnected instead of queueing them: for one server, a cluster or a
 * sentinel set.
 */
final class TestConnectionFactories {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(1);

	private TestConnectionFactories() {
	}

	static LettuceConnectionFactory standalone(RedisURI uri) {
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.clientOptions(ClientOptions.builder()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.socketOptions(socketOptions())
				.build());
		if (uri.isSsl()) {
			client.useSsl();
		}
		return started(LettuceConnectionFactory.createRedisConfiguration(uri), client.build());
	}

	static LettuceConnectionFactory cluster(Collection<? extends RedisServer> nodes) {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enableAllAdaptiveRefreshTriggers()
			.enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
			.build();
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.clientOptions(ClusterClientOptions.builder()
				.topologyRefreshOptions(refresh)
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.socketOptions(socketOptions())
				.build())
			.build();
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		nodes.forEach((node) -> configuration.addClusterNode(new RedisNode(node.host(), node.port())));
		return started(configuration, client);
	}

	static LettuceConnectionFactory sentinel(String masterName, Collection<? extends RedisServer> sentinels) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(COMMAND_TIMEOUT)
			.clientOptions(ClientOptions.builder()
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.socketOptions(socketOptions())
				.build())
			.build();
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(masterName);
		sentinels.forEach((sentinel) -> configuration.sentinel(sentinel.host(), sentinel.port()));
		return started(configuration, client);
	}

	private static SocketOptions socketOptions() {
		return SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build();
	}

	private static LettuceConnectionFactory started(RedisConfiguration configuration,
			LettuceClientConfiguration client) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
