package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.UUID;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

class TestRedisTests {

	@Test
	void sharedRedisAnswersAndComesFromTheDemandedSource() {
		TestRedis redis = TestRedis.get();
		try (RedisConnection connection = redis.connectionFactory().getConnection()) {
			assertThat(connection.ping()).isEqualTo("PONG");
		}
		String demanded = System.getenv(TestRedis.SOURCE_VARIABLE);
		if (demanded != null && !demanded.isBlank()) {
			assertThat(redis.source()).isEqualTo(RedisSource.of(demanded));
		}
		assertThat(TestRedis.get()).isSameAs(redis);
	}

	@Test
	void containerThatDockerCannotStartFailsSayingHowToUseAnotherSource() {
		RedisDiscovery discovery = new RedisDiscovery((name) -> null, () -> true, () -> true, () -> true);
		RuntimeException cause = new RuntimeException("Container startup failed for image redis:7");
		assertThatIllegalStateException().isThrownBy(() -> TestRedisLocator.locate(discovery, () -> {
			throw cause;
		}))
			.withMessageContaining("a Docker daemon answers, but the " + TestRedis.IMAGE + " container did not start")
			.withMessageContaining(TestRedis.SOURCE_VARIABLE + "=binary")
			.withMessageContaining(TestRedis.URL_VARIABLE)
			.withCause(cause);
	}

	@Test
	void urlOfTheSharedRedisReachesIt() {
		String key = UUID.randomUUID().toString();
		try (RedisConnection connection = TestRedis.get().connectionFactory().getConnection()) {
			connection.stringCommands().set(key.getBytes(), "through the factory".getBytes());
		}
		RedisClient client = RedisClient.create(RedisURI.create(TestRedis.get().url()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			assertThat(connection.sync().get(key)).isEqualTo("through the factory");
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void privateServerStopsKillsAndRestartsOnItsOwnPort() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			int port = server.port();
			assertThat(server.isRunning()).isTrue();
			assertThat(RedisPing.answers(server.host(), port)).isTrue();
			assertThat(port).isNotEqualTo(TestRedis.get().port()).isNotEqualTo(6379);
			server.stop();
			assertThat(server.isRunning()).isFalse();
			assertThat(RedisPing.answers(server.host(), port)).isFalse();
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(RedisPing.answers(server.host(), port)).isTrue();
			server.kill();
			assertThat(server.isRunning()).isFalse();
			assertThat(RedisPing.answers(server.host(), port)).isFalse();
			server.restart();
			assertThat(RedisPing.answers(server.host(), port)).isTrue();
			assertThat(server.url()).isEqualTo("redis://" + server.host() + ":" + port);
		}
	}

	@Test
	void privateServerFreezesWithItsPortOpenThawsAndStopsWhileFrozen() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			server.freeze();
			assertThat(server.isRunning()).isTrue();
			assertThat(RedisPing.answers(server.host(), server.port())).isFalse();
			server.thaw();
			assertThat(RedisPing.answers(server.host(), server.port())).isTrue();
			server.freeze();
			server.stop();
			assertThat(server.isRunning()).isFalse();
			server.restart();
			assertThat(RedisPing.answers(server.host(), server.port())).isTrue();
		}
	}

	@Test
	void privateServerIsGoneOnceClosed() {
		RedisServer server = TestRedis.startPrivateServer();
		server.close();
		assertThat(server.isRunning()).isFalse();
		assertThat(RedisPing.answers(server.host(), server.port())).isFalse();
	}

	@Test
	void privateServersReachEachOtherAtTheAddressTheTestsUse() {
		try (RedisServer primary = TestRedis.startPrivateServer();
				RedisServer replica = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory primaryFactory = TestRedis.connectionFactory(primary.host(), primary.port());
			RedisClient client = RedisClient.create(RedisURI.create(replica.host(), replica.port()));
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				try (RedisConnection primaryConnection = primaryFactory.getConnection()) {
					primaryConnection.stringCommands().set("replicated".getBytes(), "yes".getBytes());
				}
				RedisCommands<String, String> commands = connection.sync();
				commands.replicaof(primary.host(), primary.port());
				await("replication").atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(commands.get("replicated")).isEqualTo("yes"));
			}
			finally {
				client.shutdown();
				primaryFactory.destroy();
			}
		}
	}

}
