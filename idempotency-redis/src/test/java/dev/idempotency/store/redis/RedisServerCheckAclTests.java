package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotentExecutor;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The transitions need only SET, GET, PTTL and TIME inside scripts; the health probe must
 * work for a user who may do no more, and leave nothing behind.
 */
class RedisServerCheckAclTests {

	private static final String PREFIX = "idempotency:";

	@Test
	void storeUserWithoutDelIsHealthyAndTheProbeLeavesNothingBehind() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory admin = TestRedis.connectionFactory(server.host(), server.port());
			LettuceConnectionFactory restricted = null;
			try {
				try (RedisConnection connection = admin.getConnection()) {
					connection.execute("ACL", bytes("SETUSER"), bytes("app"), bytes("on"), bytes(">secret"),
							bytes("~idempotency:*"), bytes("+@all"), bytes("-del"));
				}
				RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(),
						server.port());
				configuration.setUsername("app");
				configuration.setPassword("secret");
				restricted = new LettuceConnectionFactory(configuration);
				restricted.afterPropertiesSet();
				restricted.start();
				RedisIdempotencyStore store = new RedisIdempotencyStore(restricted, PREFIX);
				// The store itself works for this user
				try (IdempotencyEngine engine = new IdempotencyEngine(store, IdempotencyDefaults.STANDARD, List.of())) {
					IdempotentExecutor executor = new DefaultIdempotentExecutor(engine, new JacksonResultCodec(),
							new JacksonPayloadFingerprinter());
					assertThat(executor.execute("orders", "1", String.class, () -> "first")).isEqualTo("first");
					assertThat(executor.execute("orders", "1", String.class, () -> "second")).isEqualTo("first");
				}
				RedisServerStatus status = store.serverCheck().check();
				assertThat(status.acceptsWrites()).isTrue();
				await().atMost(Duration.ofSeconds(5)).until(() -> {
					try (RedisConnection connection = admin.getConnection()) {
						return !connection.keyCommands().exists(bytes(PREFIX + "health-probe"));
					}
				});
				assertThat(store.serverCheck().check().acceptsWrites()).isTrue();
			}
			finally {
				if (restricted != null) {
					restricted.destroy();
				}
				admin.destroy();
			}
		}
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
