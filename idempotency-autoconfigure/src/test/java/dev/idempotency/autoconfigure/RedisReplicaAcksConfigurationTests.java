package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.ReplicaAcks;
import dev.idempotency.test.redis.RedisReplicaSet;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code idempotency.redis.replica-acks} on an application whose Redis has one replica
 * that stops answering.
 */
class RedisReplicaAcksConfigurationTests {

	private static RedisReplicaSet servers;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class,
				DataRedisAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + servers.primary().host(),
				"spring.data.redis.port=" + servers.primary().port(), "idempotency.key-prefix=acks-config:")
		.withBean(Payments.class);

	@BeforeAll
	static void startServers() {
		servers = TestRedis.startReplicaSet(1);
		// After a full synchronisation Redis streams nothing to a replica, WAIT's request
		// for an acknowledgement included, until the replica's first periodic one
		LettuceConnectionFactory factory = TestRedis.connectionFactory(servers.primary().host(),
				servers.primary().port());
		try {
			new RedisIdempotencyStore(factory, "acks-config:", Duration.ofSeconds(2),
					new ReplicaAcks(1, Duration.ofSeconds(10)))
				.acquire(new RecordKey("warm-up", "k"),
						new AcquireRequest("warm-up", Duration.ofSeconds(30), Duration.ofMinutes(1), null));
		}
		finally {
			factory.destroy();
		}
	}

	@AfterAll
	static void stopServers() {
		servers.close();
	}

	@Test
	void callFailsBeforeTheMethodRunsWhenTheReplicaDoesNotAcknowledge() {
		RedisServer replica = servers.replicas().get(0);
		this.contextRunner
			.withPropertyValues("idempotency.redis.replica-acks=1", "idempotency.redis.replica-ack-timeout=300ms")
			.run((context) -> {
				Payments payments = context.getBean(Payments.class);
				payments.charge("before");
				replica.freeze();
				try {
					assertThatExceptionOfType(IdempotencyStoreException.class)
						.isThrownBy(() -> payments.charge("while-frozen"))
						.withMessageContaining("Only 0 of 1 Redis replicas acknowledged the claim")
						.withMessageContaining("within 300 ms");
					assertThat(payments.calls()).isEqualTo(1);
				}
				finally {
					replica.thaw();
				}
				payments.charge("while-frozen");
				assertThat(payments.calls()).isEqualTo(2);
			});
		servers.awaitReplicasInSync();
	}

	@Test
	void callGoesOnWhileTheReplicaIsFrozenWithoutAcknowledgements() {
		RedisServer replica = servers.replicas().get(0);
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			replica.freeze();
			try {
				payments.charge("no-acks");
				payments.charge("no-acks");
				assertThat(payments.calls()).isEqualTo(1);
			}
			finally {
				replica.thaw();
			}
		});
		servers.awaitReplicasInSync();
	}

	static class Payments {

		private final AtomicInteger calls = new AtomicInteger();

		@Idempotent(key = "#id")
		public void charge(String id) {
			this.calls.incrementAndGet();
		}

		int calls() {
			return this.calls.get();
		}

	}

}
