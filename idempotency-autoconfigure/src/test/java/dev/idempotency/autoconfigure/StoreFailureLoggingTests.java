package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for what {@code on-store-failure=proceed} logs: one WARN with the stack trace per
 * outage (at most one a minute), not one per call, and an INFO when the store answers
 * again.
 */
@ExtendWith(OutputCaptureExtension.class)
class StoreFailureLoggingTests {

	// Either format: the plain one before any Spring Boot application in this JVM set up
	// logging, Spring Boot's after, which shortens the package as much as the width of
	// the
	// column the last application's pattern gave it demands
	private static final String WARNING = "WARN .*(dev|d)\\.(idempotency|i)\\.(engine|e)\\.IdempotencyEngine\\s+(--|:) "
			+ "Store unavailable";

	private static final String RECOVERED = Pattern.quote("Idempotency store answers again");

	private final OutageStore store = new OutageStore();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class))
		.withPropertyValues("idempotency.on-store-failure=proceed")
		.withBean(IdempotencyStore.class, () -> this.store);

	@Test
	void warnsOncePerOutageWithTheStackTraceAndSaysWhenTheStoreAnswersAgain(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			IdempotentExecutor executor = context.getBean(IdempotentExecutor.class);
			AtomicInteger runs = new AtomicInteger();
			assertThat(executor.execute("orders", "0", Integer.class, runs::incrementAndGet)).isEqualTo(1);
			this.store.down = true;
			for (int i = 1; i <= 3; i++) {
				assertThat(executor.execute("orders", Integer.toString(i), Integer.class, runs::incrementAndGet))
					.isEqualTo(i + 1);
			}
			assertThat(count(output, WARNING)).isOne();
			assertThat(output).contains("running the method WITHOUT idempotency protection")
				.contains("dev.idempotency.IdempotencyStoreException: store outage 1")
				.doesNotContain("store outage 2")
				.doesNotContain(RECOVERED);
			this.store.down = false;
			assertThat(executor.execute("orders", "4", Integer.class, runs::incrementAndGet)).isEqualTo(5);
			assertThat(executor.execute("orders", "4", Integer.class, runs::incrementAndGet)).isEqualTo(5);
			assertThat(count(output, RECOVERED)).isOne();
			// Within a minute of the last warning: see StoreOutageTests
			this.store.down = true;
			executor.execute("orders", "5", Integer.class, runs::incrementAndGet);
			assertThat(count(output, WARNING)).isOne();
			assertThat(output).doesNotContain("store outage 4");
		});
	}

	private static int count(CapturedOutput output, String pattern) {
		Matcher matcher = Pattern.compile(pattern).matcher(output.toString());
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	static class OutageStore implements IdempotencyStore {

		private final InMemoryIdempotencyStore delegate = new InMemoryIdempotencyStore();

		private final AtomicInteger failures = new AtomicInteger();

		volatile boolean down;

		@Override
		public AcquireResult acquire(RecordKey key, AcquireRequest request) {
			if (this.down) {
				throw new IdempotencyStoreException("store outage " + this.failures.incrementAndGet());
			}
			return this.delegate.acquire(key, request);
		}

		@Override
		public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
			return this.delegate.complete(key, owner, fence, result, retention);
		}

		@Override
		public boolean release(RecordKey key, String owner, long fence, Duration retention) {
			return this.delegate.release(key, owner, fence, retention);
		}

		@Override
		public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
			return this.delegate.renew(key, owner, fence, lease, retention);
		}

		@Override
		public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
			return CompletableFuture.completedFuture(false);
		}

		@Override
		public Optional<IdempotencyRecord> read(RecordKey key) {
			return this.delegate.read(key);
		}

		@Override
		public boolean evict(RecordKey key) {
			return this.delegate.evict(key);
		}

		@Override
		public String type() {
			return "outage";
		}

	}

}
