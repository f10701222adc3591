package dev.idempotency.store.redis;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for how stores describe where their records are. No connection is made.
 */
class RedisTargetsTests {

	@Test
	void standaloneServerIsItsHostAndPort() {
		assertThat(new RedisIdempotencyStore(new LettuceConnectionFactory("redis.internal", 6380), "idem:"))
			.hasToString("Redis store at redis.internal:6380 (key prefix 'idem:')");
	}

	@Test
	void databaseOtherThanZeroIsNamed() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("redis.internal", 6379);
		configuration.setDatabase(3);
		configuration.setPassword("secret");
		assertThat(RedisTargets.describe(new LettuceConnectionFactory(configuration)))
			.isEqualTo("redis.internal:6379 (database 3)");
	}

	@Test
	void clusterIsItsNodes() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(List.of("node-1:7000", "node-2:7001")));
		assertThat(RedisTargets.describe(factory)).startsWith("cluster nodes ")
			.contains("node-1:7000")
			.contains("node-2:7001");
	}

	@Test
	void sentinelSetIsItsMasterAndSentinels() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisSentinelConfiguration("mymaster", Set.of("sentinel-1:26379")));
		assertThat(RedisTargets.describe(factory)).isEqualTo("sentinel master 'mymaster' via sentinel-1:26379");
	}

	@Test
	void socketIsItsPath() {
		assertThat(RedisTargets.describe(new LettuceConnectionFactory(new RedisSocketConfiguration("/tmp/redis.sock"))))
			.isEqualTo("socket /tmp/redis.sock");
	}

	// Such as spring.data.redis.host or cluster.nodes given a URL with credentials by
	// mistake: Spring Boot passes the host on as it is
	@Test
	void credentialsWrittenIntoAHostAreNeverDescribed() {
		RedisClusterConfiguration cluster = new RedisClusterConfiguration();
		cluster.addClusterNode(new RedisNode("redis://user:s3cret@node-1", 7000));
		cluster.addClusterNode(new RedisNode("::1", 7001));
		RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
		sentinel.master("mymaster").addSentinel(new RedisNode(":s3cret@sentinel-1", 26379));
		assertThat(RedisTargets.describe(new LettuceConnectionFactory("user:s3cret@redis.internal", 6379)))
			.isEqualTo("***@redis.internal:6379");
		assertThat(RedisTargets.describe(new LettuceConnectionFactory(cluster)))
			.isEqualTo("cluster nodes ***@node-1:7000, [::1]:7001");
		assertThat(RedisTargets.describe(new LettuceConnectionFactory(sentinel)))
			.isEqualTo("sentinel master 'mymaster' via ***@sentinel-1:26379");
	}

	@Test
	void memoryStoreIsItsBound() {
		assertThat(new InMemoryIdempotencyStore(500)).hasToString("in-memory store (at most 500 records)");
	}

}
