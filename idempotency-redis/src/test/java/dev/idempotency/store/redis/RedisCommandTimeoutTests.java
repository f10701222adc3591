package dev.idempotency.store.redis;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The store's own command timeout bounds every command against a server that does not
 * answer, on a connection factory configured as Spring Boot configures it by default,
 * whose command timeout is 60 seconds. The deadlines are correctness bounds: a call that
 * waited for the factory's timeout would take 60 seconds. Opening a connection may take
 * the client's connect timeout (10 seconds by default) plus the store's timeout.
 */
class RedisCommandTimeoutTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	private static final String PREFIX = "idempotency-timeout:";

	@Test
	void everyCommandOnAFrozenServerFailsWithinTheStoresTimeoutAndWorksAgainAfterwards() {
		withFrozenServer(true, (server, store) -> {
			RecordKey key = newKey();
			assertFailsInTime(() -> store.acquire(key, request()));
			assertFailsInTime(() -> store.read(key));
			assertFailsInTime(() -> store.evict(key));
			assertFailsInTime(() -> store.serverCheck().check());
			assertFailsInTime(store::scriptsLoaded);
			assertTimeoutPreemptively(DEADLINE,
					() -> assertThatExceptionOfType(ExecutionException.class)
						.isThrownBy(() -> store.renewAsync(key, "owner", 1, Duration.ofSeconds(30), Duration.ofHours(1))
							.toCompletableFuture()
							.get()));
			server.thaw();
			awaitAnswer(store);
		});
	}

	@Test
	void firstCallToAFrozenServerFailsWithinTheConnectAndStoresTimeoutWhileConnecting() {
		withFrozenServer(false, (server, store) -> {
			assertFailsInTime(() -> store.acquire(newKey(), request()));
			assertFailsInTime(() -> store.read(newKey()));
			server.thaw();
			awaitAnswer(store);
		});
	}

	@Test
	void callWhileTheServerIsStoppedFailsWithinTheStoresTimeoutAndWorksAgainAfterRestart() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = bootDefaultConnectionFactory(server);
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, TIMEOUT);
				awaitAnswer(store);
				server.stop();
				assertFailsInTime(() -> store.acquire(newKey(), request()));
				assertFailsInTime(() -> store.serverCheck().check());
				server.restart();
				await().atMost(Duration.ofSeconds(40)).ignoreExceptions().until(() -> store.read(newKey()).isEmpty());
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void renewalOfAClientWithoutAsyncCommandsIsGivenUpAfterTheStoresTimeout() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = bootDefaultConnectionFactory(server);
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX,
						new ConnectionScriptRunner(factory, TIMEOUT));
				RecordKey key = newKey();
				await().atMost(DEADLINE).ignoreExceptions().until(() -> store.acquire(key, request()) != null);
				server.freeze();
				assertTimeoutPreemptively(DEADLINE, () -> assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> store.renewAsync(key, "owner", 1, Duration.ofSeconds(30), Duration.ofHours(1))
						.toCompletableFuture()
						.get())
					.withRootCauseInstanceOf(java.util.concurrent.TimeoutException.class));
			}
			finally {
				server.thaw();
				factory.destroy();
			}
		}
	}

	@Test
	void commandTimeoutMustBePositive() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new RedisIdempotencyStore(factory, PREFIX, Duration.ZERO))
			.withMessage("'commandTimeout' must be at least one millisecond");
	}

	@Test
	void commandTimeoutMustBeShortEnoughToMeasure() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> new RedisIdempotencyStore(factory, PREFIX, Duration.ofDays(1_000_000)))
			.withMessage("'commandTimeout' must be at most 36500 days, was PT24000000H");
	}

	private static void withFrozenServer(boolean connectFirst, FrozenServerTest test) {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = bootDefaultConnectionFactory(server);
			try {
				RedisIdempotencyStore store = new RedisIdempotencyStore(factory, PREFIX, TIMEOUT);
				if (connectFirst) {
					awaitAnswer(store);
				}
				server.freeze();
				test.run(server, store);
			}
			finally {
				server.thaw();
				factory.destroy();
			}
		}
	}

	// What Spring Boot builds from spring.data.redis.host and port alone
	private static LettuceConnectionFactory bootDefaultConnectionFactory(RedisServer server) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(server.host(), server.port()), client);
		factory.afterPropertiesSet();
		factory.start();
		assertThat(factory.getClientConfiguration().getCommandTimeout()).isEqualTo(Duration.ofSeconds(60));
		return factory;
	}

	// A cold JVM may take longer than the short timeout of these tests to connect
	private static void awaitAnswer(RedisIdempotencyStore store) {
		await().atMost(DEADLINE).ignoreExceptions().until(() -> store.read(newKey()).isEmpty());
	}

	private static void assertFailsInTime(Executable call) {
		assertTimeoutPreemptively(DEADLINE,
				() -> assertThatExceptionOfType(IdempotencyStoreException.class).isThrownBy(call::execute));
	}

	private static RecordKey newKey() {
		return new RecordKey("timeout", UUID.randomUUID().toString());
	}

	private static AcquireRequest request() {
		return new AcquireRequest("owner", Duration.ofSeconds(30), Duration.ofHours(1), null);
	}

	@FunctionalInterface
	private interface FrozenServerTest {

		void run(RedisServer server, RedisIdempotencyStore store);

	}

}
