package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.Idempotent;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.engine.IdempotencyShutdownLifecycle;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An application context closed while idempotent calls run, on a real Redis: the engine
 * stops before the connection factory, within Spring Boot's shutdown phase timeout.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyShutdownTests {

	private static final String PREFIX = "idempotency-shutdown-test:";

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private static final String WARNING = "1 idempotent call(s) still running";

	private final Payments payments = new Payments();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final RedisIdempotencyStore redis = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), PREFIX);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class, DataRedisAutoConfiguration.class,
				IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("idempotency.store=redis", "idempotency.key-prefix=" + PREFIX,
				"spring.data.redis.host=" + TestRedis.get().host(), "spring.data.redis.port=" + TestRedis.get().port())
		.withBean(Payments.class, () -> this.payments);

	@AfterEach
	void stopThreads() {
		this.payments.releaseAll();
		this.threads.shutdownNow();
	}

	private IdempotencyRecord record(String name, String key) {
		return this.redis.read(new RecordKey(name, key)).orElseThrow();
	}

	private Future<?> closeOnAnotherThread(AssertableApplicationContext context) throws InterruptedException {
		IdempotencyShutdownLifecycle lifecycle = context.getBean(IdempotencyShutdownLifecycle.class);
		Future<?> closing = this.threads.submit(context::close);
		await().atMost(DEADLINE).until(() -> !lifecycle.isRunning());
		return closing;
	}

	@Test
	void callInFlightWhenTheContextClosesCompletesItsRecordAndANewContextReplaysIt() {
		String key = UUID.randomUUID().toString();
		String refusedKey = UUID.randomUUID().toString();
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			CountDownLatch release = this.payments.hold(key);
			Future<String> call = this.threads.submit(() -> payments.charge(key));
			this.payments.awaitStarted(key);
			Future<?> closing = closeOnAnotherThread(context);
			assertThatExceptionOfType(IdempotencyShutdownException.class).isThrownBy(() -> payments.charge(refusedKey));
			assertThat(this.redis.read(new RecordKey("Payments.charge", refusedKey))).isEmpty();
			assertThat(closing).isNotDone();
			assertThat(record("Payments.charge", key).state()).isEqualTo(RecordState.IN_PROGRESS);
			release.countDown();
			assertThat(call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEqualTo("receipt-" + key + "-1");
			closing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
		});
		assertThat(record("Payments.charge", key).state()).isEqualTo(RecordState.COMPLETED);
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(Payments.class).charge(key)).isEqualTo("receipt-" + key + "-1");
			assertThat(context.getBean(Payments.class).charge(refusedKey)).isEqualTo("receipt-" + refusedKey + "-2");
		});
		assertThat(this.payments.runs()).isEqualTo(2);
	}

	@Test
	void callStillRunningAtThePhaseTimeoutIsLeftToItsLeaseAndLoggedOnce(CapturedOutput output) {
		String key = UUID.randomUUID().toString();
		this.contextRunner
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=1s", "idempotency.lock-timeout=2s")
			.run((context) -> {
				Payments payments = context.getBean(Payments.class);
				CountDownLatch release = this.payments.hold(key);
				Future<Object> call = this.threads.submit(() -> {
					try {
						return payments.charge(key);
					}
					catch (RuntimeException ex) {
						return ex;
					}
				});
				this.payments.awaitStarted(key);
				long fence = record("Payments.charge", key).fence();
				closeOnAnotherThread(context).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				assertThat(count(output, WARNING)).isOne();
				assertThat(output).contains("released the records of 0 whose method had not started")
					.contains("left the records of the other 1 to their leases");
				IdempotencyRecord record = record("Payments.charge", key);
				assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
				assertThat(record.fence()).isEqualTo(fence);
				release.countDown();
				assertThat(call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(RuntimeException.class);
				assertThat(record("Payments.charge", key).state()).isEqualTo(RecordState.IN_PROGRESS);
			});
		this.contextRunner.run((context) -> {
			Payments payments = context.getBean(Payments.class);
			String receipt = await().atMost(DEADLINE)
				.ignoreException(IdempotencyInProgressException.class)
				.until(() -> payments.charge(key), (value) -> true);
			assertThat(receipt).isEqualTo("receipt-" + key + "-2");
		});
		assertThat(count(output, WARNING)).isOne();
	}

	@Test
	void batchItemNotStartedAtThePhaseTimeoutReleasesItsRecordAndNeverRuns() {
		String slow = UUID.randomUUID().toString();
		String waiting = UUID.randomUUID().toString();
		this.contextRunner
			.withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=1s", "idempotency.lock-timeout=2s")
			.run((context) -> {
				IdempotentExecutor executor = context.getBean(IdempotentExecutor.class);
				CountDownLatch release = this.payments.hold(slow);
				Future<List<BatchOutcome<String, String>>> batch = this.threads.submit(() -> executor
					.executeAll("payments.batch", List.of(slow, waiting), (item) -> item, String.class, (item) -> {
						this.payments.awaitRelease(item);
						return "done-" + item + "-" + this.payments.runs.incrementAndGet();
					}));
				this.payments.awaitStarted(slow);
				closeOnAnotherThread(context).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				assertThat(record("payments.batch", waiting).state()).isEqualTo(RecordState.FAILED);
				assertThat(record("payments.batch", slow).state()).isEqualTo(RecordState.IN_PROGRESS);
				release.countDown();
				List<BatchOutcome<String, String>> outcomes = batch.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
				assertThat(outcomes.get(0)).isInstanceOfSatisfying(Failed.class,
						(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyCompletionException.class));
				assertThat(outcomes.get(1)).isInstanceOfSatisfying(Failed.class,
						(failed) -> assertThat(failed.exception()).isInstanceOf(IdempotencyShutdownException.class));
			});
		assertThat(this.payments.runs()).isOne();
		this.contextRunner.run((context) -> {
			IdempotentExecutor executor = context.getBean(IdempotentExecutor.class);
			assertThat(executor.execute("payments.batch", waiting, String.class, () -> "ran")).isEqualTo("ran");
		});
	}

	private static int count(CapturedOutput output, String text) {
		Matcher matcher = Pattern.compile(Pattern.quote(text)).matcher(output.getOut());
		int count = 0;
		while (matcher.find()) {
			count++;
		}
		return count;
	}

	static class Payments {

		private final AtomicInteger runs = new AtomicInteger();

		private final Map<String, CountDownLatch> started = new ConcurrentHashMap<>();

		private final Map<String, CountDownLatch> releases = new ConcurrentHashMap<>();

		@Idempotent(key = "#id")
		public String charge(String id) {
			awaitRelease(id);
			return "receipt-" + id + "-" + this.runs.incrementAndGet();
		}

		CountDownLatch hold(String id) {
			this.started.put(id, new CountDownLatch(1));
			return this.releases.computeIfAbsent(id, (key) -> new CountDownLatch(1));
		}

		void awaitRelease(String id) {
			CountDownLatch started = this.started.get(id);
			CountDownLatch release = this.releases.get(id);
			if (started == null || release == null) {
				return;
			}
			started.countDown();
			try {
				assertThat(release.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void awaitStarted(String id) throws InterruptedException {
			assertThat(this.started.get(id).await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}

		void releaseAll() {
			this.releases.values().forEach(CountDownLatch::countDown);
		}

		int runs() {
			return this.runs.get();
		}

	}

}
