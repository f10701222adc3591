package dev.idempotency.crash;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.Invocation;
import dev.idempotency.engine.Operation;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.InProgress;
import dev.idempotency.test.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Crashes and freezes of real processes: a child JVM that takes a record is killed with
 * {@code kill -9}, or frozen with {@code SIGSTOP} past its lease and then thawed.
 */
class CrashRecoveryTests {

	private static final Duration DEADLINE = Duration.ofSeconds(30);

	private final String name = "crash-" + UUID.randomUUID();

	private final String key = "payment-" + UUID.randomUUID();

	private RedisIdempotencyStore store;

	private IdempotencyEngine engine;

	private Child child;

	@BeforeEach
	void setUp() {
		this.store = new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency:");
		this.engine = new IdempotencyEngine(this.store, IdempotencyDefaults.STANDARD, List.of());
	}

	@AfterEach
	void tearDown() {
		this.engine.close();
		if (this.child != null) {
			this.child.process.destroyForcibly();
		}
	}

	@Test
	void attemptKilledWithSigkillIsTakenOverAfterItsLeaseWithAHigherFence() throws Throwable {
		this.child = Child.start(this.name, this.key, "hang");
		assertThat(this.child.awaitLine("STARTED")).isEqualTo("STARTED 1");
		Operation operation = CrashChild.operation(this.name);
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> this.engine.execute(operation, this.key, null, () -> "too early"));

		signal("KILL", this.child.process.pid());
		assertThat(this.child.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.child.process.exitValue()).isEqualTo(128 + 9);

		AtomicLong fence = new AtomicLong();
		Object recovered = InProgress.retryUntilDone(DEADLINE,
				() -> this.engine.execute(operation, this.key, null, () -> {
					fence.set(IdempotencyContext.current().fence());
					return "recovered";
				}));
		assertThat(recovered).isEqualTo("recovered");
		assertThat(fence).hasValue(2);
		assertThat(this.engine.execute(operation, this.key, null, () -> "again")).isEqualTo("recovered");
	}

	@Test
	void frozenZombieNeverOverwritesItsSuccessor() throws Throwable {
		this.child = Child.start(this.name, this.key, "zombie");
		assertThat(this.child.awaitLine("STARTED")).isEqualTo("STARTED 1");
		Operation operation = CrashChild.operation(this.name);

		signal("STOP", this.child.process.pid());
		AtomicLong fence = new AtomicLong();
		Object successor = InProgress.retryUntilDone(DEADLINE,
				() -> this.engine.execute(operation, this.key, null, () -> {
					fence.set(IdempotencyContext.current().fence());
					return "successor's result";
				}));
		assertThat(successor).isEqualTo("successor's result");
		assertThat(fence).hasValue(2);

		signal("CONT", this.child.process.pid());
		this.child.send("go");
		assertThat(this.child.awaitLine("LOCK_LOST")).contains("fence 1");
		assertThat(this.child.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.child.process.exitValue()).isEqualTo(3);

		assertThat(this.engine.execute(operation, this.key, null, () -> "again")).isEqualTo("successor's result");
		IdempotencyRecord record = this.store.read(new RecordKey(this.name, this.key)).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.fence()).isEqualTo(2);
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).as("kill -" + signal + " " + pid).isZero();
	}

	private static final class Child {

		private final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private Child(Process process) {
			this.process = process;
			Thread reader = new Thread(this::readLines, "crash-child-output");
			reader.setDaemon(true);
			reader.start();
		}

		static Child start(String name, String key, String mode) throws IOException {
			TestRedis redis = TestRedis.get();
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			ProcessBuilder builder = new ProcessBuilder(java, "-Xshare:auto", "-cp",
					System.getProperty("java.class.path"), CrashChild.class.getName(), redis.host(),
					Integer.toString(redis.port()), name, key, mode);
			builder.redirectErrorStream(true);
			return new Child(builder.start());
		}

		private void readLines() {
			try (BufferedReader reader = new BufferedReader(
					new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = reader.readLine()) != null) {
					this.lines.add(line);
				}
			}
			catch (IOException ex) {
				this.lines.add("READ FAILED " + ex);
			}
		}

		String awaitLine(String prefix) throws InterruptedException {
			long deadline = System.nanoTime() + DEADLINE.toNanos();
			StringBuilder seen = new StringBuilder();
			while (true) {
				String line = this.lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
				assertThat(line).as("a line starting with %s from the child; it printed:%n%s", prefix, seen)
					.isNotNull();
				if (line.startsWith(prefix)) {
					return line;
				}
				seen.append(line).append(System.lineSeparator());
			}
		}

		void send(String line) throws IOException {
			OutputStream input = this.process.getOutputStream();
			input.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			input.flush();
		}

	}

}
