package dev.idempotency.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.test.redis.RedisServer;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for how {@link LettuceScriptRunner} replaces its connection after a failure.
 */
class LettuceScriptRunnerTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	private static final RedisScript<Long> ONE = RedisScript.of("return 1", Long.class);

	private static final byte[] KEY = "idempotency-runner:k".getBytes(StandardCharsets.UTF_8);

	// A caller that took the connection before it was replaced, and fails on it
	// afterwards, must not close the connection that replaced it, under the commands of
	// every other caller.
	@Test
	void lateFailureOnAReplacedDedicatedConnectionLeavesItsSuccessorAlone() throws Exception {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()));
			factory.setShareNativeConnection(false);
			factory.afterPropertiesSet();
			factory.start();
			try {
				LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT);
				await().atMost(DEADLINE).ignoreExceptions().until(() -> runner.run(ONE, KEY) == 1L);
				GatedScript late = new GatedScript();
				CompletableFuture<Long> lateCall = CompletableFuture.supplyAsync(() -> runner.run(late, KEY));
				assertThat(late.holding.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
				server.freeze();
				assertThatRuntimeException().isThrownBy(() -> runner.run(ONE, KEY));
				server.thaw();
				assertThat(runner.run(ONE, KEY)).isEqualTo(1L);
				server.freeze();
				CompletableFuture<Long> inFlight = runner.runAsync(ONE, KEY);
				late.release.countDown();
				await().atMost(DEADLINE).until(() -> late.asked.get() == 2 || inFlight.isDone());
				server.thaw();
				assertThat(inFlight.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(1L);
				lateCall.handle((reply, ex) -> null).get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
			}
			finally {
				server.thaw();
				factory.destroy();
			}
		}
	}

	/**
	 * Holds the first caller that asks for its result type, which the runner does after
	 * it took its connection and before it sends the script.
	 */
	@Test
	void connectThreadEndsSoonAfterConnecting() {
		try (RedisServer server = TestRedis.startPrivateServer()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()));
			factory.afterPropertiesSet();
			factory.start();
			try {
				LettuceScriptRunner runner = new LettuceScriptRunner(factory, TIMEOUT);
				await().atMost(DEADLINE).ignoreExceptions().until(() -> runner.run(ONE, KEY) == 1L);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> Thread.getAllStackTraces()
						.keySet()
						.stream()
						.noneMatch((thread) -> thread.getName().equals("idempotency-redis-connect")));
				assertThat(runner.run(ONE, KEY)).isEqualTo(1L);
			}
			finally {
				factory.destroy();
			}
		}
	}

	static final class GatedScript implements RedisScript<Long> {

		final CountDownLatch holding = new CountDownLatch(1);

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger asked = new AtomicInteger();

		@Override
		public String getSha1() {
			return ONE.getSha1();
		}

		@Override
		public Class<Long> getResultType() {
			if (this.asked.incrementAndGet() == 1) {
				this.holding.countDown();
				try {
					this.release.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
			return Long.class;
		}

		@Override
		public String getScriptAsString() {
			return ONE.getScriptAsString();
		}

	}

}
