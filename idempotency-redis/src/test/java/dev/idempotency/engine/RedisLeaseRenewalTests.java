package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Lease renewal and acquire on Redis under reconnects, re-sent commands and clients that
 * share no native connection, against a real redis-server.
 */
class RedisLeaseRenewalTests {

	private static final Duration RETENTION = Duration.ofHours(1);

	/**
	 * Lettuce's defaults (Boot's too): auto-reconnect, and commands issued while
	 * disconnected are buffered and sent after the reconnect. A renewal that timed out on
	 * {@code orTimeout} is still in that buffer, because nothing cancelled it; it reaches
	 * Redis after the reconnect and starts the lease of an attempt whose owner has long
	 * given up (and told its caller the record stays IN_PROGRESS until its lease runs
	 * out). The synchronous transitions cancel on timeout ({@code awaitOrCancel}); the
	 * asynchronous ones do not.
	 */
	@Test
	void renewalsThatTimedOutWhileDisconnectedDoNotRenewTheLeaseAfterTheReconnect() throws Throwable {
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.constant(Duration.ofSeconds(4)))
			.build();
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					LettuceConnectionFactory.createRedisConfiguration(RedisURI.create(server.host(), server.port())),
					LettuceClientConfiguration.builder()
						.commandTimeout(Duration.ofMillis(200))
						.clientResources(resources)
						.build());
			factory.afterPropertiesSet();
			factory.start();
			RedisClient admin = RedisClient.create(RedisURI.create(server.host(), server.port()));
			try (StatefulRedisConnection<String, String> adminConnection = admin.connect()) {
				IdempotencyStore store = new RedisIdempotencyStore(factory, "idempotency:");
				Operation operation = new Operation("reconnect-" + UUID.randomUUID(),
						new OperationSettings(Duration.ofMillis(900), RETENTION, OnInProgress.REJECT,
								Duration.ofSeconds(1)),
						new JacksonResultCodec(JsonMapper.builder().build())
							.forType(ResolvableType.forClass(String.class)),
						"the test's key");
				try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
					assertThatExceptionOfType(IdempotencyCompletionException.class)
						.isThrownBy(() -> engine.execute(operation, "k", null, () -> {
							IdempotencyContext context = IdempotencyContext.current();
							// A network blip: the store's connection drops, Redis keeps
							// its data and scripts, Lettuce reconnects 4 s later.
							adminConnection.sync().clientKill(KillArgs.Builder.typeNormal().skipme());
							await().atMost(Duration.ofSeconds(3)).until(() -> !context.isLeaseHeld());
							return "effect done";
						}));
				}
				// The owner gave up, its lease ran out long ago: the next delivery takes
				// the record over. The first command through runs after the buffered
				// ones.
				AcquireRequest next = new AcquireRequest("next-delivery", Duration.ofMillis(900), RETENTION, null);
				RecordKey key = new RecordKey(operation.name(), "k");
				AcquireResult result = await().atMost(Duration.ofSeconds(20))
					.pollInterval(Duration.ofMillis(50))
					.ignoreExceptions()
					.until(() -> store.acquire(key, next), (acquired) -> acquired != null);
				assertThat(result).isEqualTo(new AcquireResult.Acquired(2, true));
			}
			finally {
				admin.shutdown();
				factory.destroy();
			}
		}
		finally {
			resources.shutdown();
		}
	}

	/**
	 * With a factory that shares no native connection (Jedis, or Lettuce with
	 * {@code shareNativeConnection=false}), renewAsync falls back to a blocking call on
	 * the sweeper thread, each on a connection of its own: renewals queue behind one
	 * another again, as before the change, and a crowd of attempts loses live leases.
	 */
	@Test
	void crowdOfRunningAttemptsKeepsItsLeasesOnAFactoryThatSharesNoConnection() {
		LettuceConnectionFactory factory = TestRedis.get().newConnectionFactory();
		factory.setShareNativeConnection(false);
		IdempotencyStore store = new RedisIdempotencyStore(factory, "idempotency:");
		IdempotencyStore setup = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
		Duration lease = Duration.ofSeconds(2);
		String name = "crowd-unshared-" + UUID.randomUUID();
		try (LeaseRenewer renewer = new LeaseRenewer(store);
				LeaseCrowd crowd = LeaseCrowd.start(setup, renewer, name, 3_000, lease, RETENTION)) {
			awaitStoreTime(setup, name, lease.multipliedBy(2));
			crowd.assertEveryLeaseHeld(setup);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void reSentAcquireOfATakeoverIsStillReportedAsATakeover() {
		IdempotencyStore store = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
		String name = "resent-" + UUID.randomUUID();
		RecordKey key = new RecordKey(name, "k");
		Duration lease = Duration.ofMillis(200);
		store.acquire(key, new AcquireRequest("crashed", lease, RETENTION, null));
		awaitStoreTime(store, name, lease.multipliedBy(2));
		AcquireRequest successor = new AcquireRequest("successor", Duration.ofSeconds(30), RETENTION, null);
		assertThat(store.acquire(key, successor)).isEqualTo(new AcquireResult.Acquired(2, true));
		// Lettuce re-sends a command whose reply was lost in a reconnect
		assertThat(store.acquire(key, successor)).isEqualTo(new AcquireResult.Acquired(2, true));
	}

	private static void awaitStoreTime(IdempotencyStore store, String name, Duration duration) {
		RecordKey probe = new RecordKey(name, "probe-" + UUID.randomUUID());
		store.acquire(probe, new AcquireRequest("probe", duration, RETENTION, null));
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> store.acquire(probe, new AcquireRequest("prober", Duration.ofSeconds(1), RETENTION,
					null)) instanceof AcquireResult.Acquired);
	}

}
