package dev.idempotency.store.jdbc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotentExecutor;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Crashes and freezes of a real process whose idempotent call runs inside a transaction
 * on the store's database and inserts a business row: killed with {@code kill -9} between
 * the call and the commit, or frozen with {@code SIGSTOP} past its lease and thawed once
 * a successor has completed. Each time, exactly one business row.
 */
abstract class JdbcCrashRecoveryTests {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private final DatabaseKind kind;

	private TestDatabase database;

	private StoreDatabaseHandle handle;

	private Child child;

	JdbcCrashRecoveryTests(DatabaseKind kind) {
		this.kind = kind;
	}

	@BeforeEach
	void createDatabase() {
		this.database = TestDatabases.get(this.kind).createDatabase();
		this.handle = new StoreDatabaseHandle(this.database);
		this.handle.jdbc.execute("CREATE TABLE payment (id VARCHAR(100) NOT NULL, who VARCHAR(20) NOT NULL)");
	}

	@AfterEach
	void tearDown() {
		if (this.child != null) {
			this.child.process.destroyForcibly();
		}
		this.handle.close();
	}

	@Test
	void killedBetweenTheCallAndTheCommitLeavesNothingAndTheRedeliveryPaysOnce() throws Exception {
		String key = UUID.randomUUID().toString();
		this.child = Child.start(this.database, key, "hang");
		assertThat(this.child.awaitLine("RETURNED")).contains("fence 1");
		signal("KILL", this.child.process.pid());
		assertThat(this.child.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		String paid = redeliverUntilDone(key);
		assertThat(paid).isEqualTo("parent's payment, fence 2");
		assertThat(payments(key)).containsExactly("parent");
		IdempotencyRecord record = this.handle.store.read(new RecordKey(JdbcCrashChild.NAME, key)).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
	}

	@Test
	void zombieFrozenPastItsLeaseFailsItsCompletionAndItsRowNeverCommits() throws Exception {
		String key = UUID.randomUUID().toString();
		this.child = Child.start(this.database, key, "zombie");
		this.child.awaitLine("INSERTED");
		signal("STOP", this.child.process.pid());
		String paid = redeliverUntilDone(key);
		assertThat(paid).isEqualTo("parent's payment, fence 2");
		signal("CONT", this.child.process.pid());
		this.child.send("go");
		assertThat(this.child.awaitLine("LOCK_LOST")).contains("fence 1");
		assertThat(this.child.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.child.process.exitValue()).isEqualTo(3);
		assertThat(payments(key)).containsExactly("parent");
		IdempotencyRecord record = this.handle.store.read(new RecordKey(JdbcCrashChild.NAME, key)).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
		assertThat(record.fence()).isEqualTo(2);
	}

	// The broker's redelivery: again and again while the record is in progress, until
	// the lease of the attempt that crashed or froze has run out
	private String redeliverUntilDone(String key) {
		AtomicReference<String> paid = new AtomicReference<>();
		await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).until(() -> {
			try {
				paid.set(JdbcCrashChild.pay(this.handle.executor, this.handle.transactions, this.handle.jdbc, key,
						"parent", () -> {
						}));
				return true;
			}
			catch (IdempotencyInProgressException ex) {
				return false;
			}
		});
		return paid.get();
	}

	private java.util.List<String> payments(String key) {
		return this.handle.jdbc.queryForList("SELECT who FROM payment WHERE id = ?", String.class, key);
	}

	private static void signal(String signal, long pid) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
		assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
		assertThat(kill.exitValue()).as("kill -" + signal + " " + pid).isZero();
	}

	private static final class StoreDatabaseHandle implements AutoCloseable {

		private final com.zaxxer.hikari.HikariDataSource dataSource;

		private final JdbcTemplate jdbc;

		private final TransactionTemplate transactions;

		private final JdbcIdempotencyStore store;

		private final IdempotentExecutor executor;

		StoreDatabaseHandle(TestDatabase database) {
			this.dataSource = database.dataSource(4);
			JdbcSchema.initialize(this.dataSource, JdbcIdempotencyStore.DEFAULT_TABLE);
			this.jdbc = new JdbcTemplate(this.dataSource);
			this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
			this.store = new JdbcIdempotencyStore(this.dataSource);
			this.executor = JdbcCrashChild.executor(this.store);
		}

		@Override
		public void close() {
			this.dataSource.close();
		}

	}

	private static final class Child {

		private final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private Child(Process process) {
			this.process = process;
			Thread reader = new Thread(this::readLines, "jdbc-crash-child-output");
			reader.setDaemon(true);
			reader.start();
		}

		static Child start(TestDatabase database, String key, String mode) throws IOException {
			String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
			ProcessBuilder builder = new ProcessBuilder(java, "-Xshare:auto", "-cp",
					System.getProperty("java.class.path"), JdbcCrashChild.class.getName(), database.url(),
					database.username(), (database.password() != null) ? database.password() : "", key, mode);
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
			Writer writer = new OutputStreamWriter(this.process.getOutputStream(), StandardCharsets.UTF_8);
			writer.write(line + System.lineSeparator());
			writer.flush();
		}

	}

}
