package dev.idempotency.sample.demo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the demo as {@code --demo} runs it with the {@code redis} profile, against a
 * real Redis.
 */
@SpringBootTest
@ActiveProfiles({ "redis", "demo" })
@ExtendWith(OutputCaptureExtension.class)
class PaymentDemoTests {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> TestRedis.get().host());
		registry.add("spring.data.redis.port", () -> TestRedis.get().port());
	}

	@Autowired
	private PaymentDemo demo;

	@Test
	void chargesEveryEventOnceInRedisAndReportsPass(@Autowired IdempotencyStore store,
			@Autowired StringRedisTemplate redis, CapturedOutput output) {
		assertThat(store).isInstanceOf(RedisIdempotencyStore.class);
		DemoReport report = this.demo.report();
		assertThat(report).isNotNull();
		assertThat(report.uniqueEvents()).isEqualTo(200);
		assertThat(report.sideEffects()).isEqualTo(report.uniqueEvents());
		assertThat(report.deliveries()).isGreaterThan(report.uniqueEvents());
		assertThat(report.replays()).isEqualTo(report.deliveries() - report.sideEffects());
		assertThat(report.conflicts()).isPositive();
		assertThat(report.unfinished()).isZero();
		assertThat(report.errors()).isEmpty();
		assertThat(this.demo.getExitCode()).isZero();
		assertThat(redis.keys("idempotency:payments.charge:*")).hasSizeGreaterThanOrEqualTo(200);
		assertThat(output).contains("| side effects (ledger entries) | 200 |")
			.contains("PASS: side effects == unique events");
	}

}
