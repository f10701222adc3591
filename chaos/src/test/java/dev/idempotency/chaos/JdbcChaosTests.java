package dev.idempotency.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.PrivateDatabaseServer;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chaos run: three Spring Boot workers ({@link ChaosWorkerApplication}) consume
 * events from an at-least-once broker, each in a transaction around an idempotent call on
 * the JDBC store that inserts a payment row, while every few seconds one worker is killed
 * with {@code kill -9}, one is frozen with {@code SIGSTOP} past its lease and thawed
 * after its events went to others, or the database server is stopped at once and started
 * again. Every event must be paid exactly once: no duplicate row, no lost event.
 * <p>
 * It runs {@value #DEFAULT_SECONDS} s of chaos at {@value #DEFAULT_RATE} events per
 * second per database; {@code -Didempotency.chaos.seconds=600} (and
 * {@code -Didempotency.chaos.rate}) make a soak of it.
 */
class JdbcChaosTests {

	private static final int DEFAULT_SECONDS = 30;

	private static final int DEFAULT_RATE = 20;

	private static final String LEASE = "2s";

	private static final Duration FREEZE = Duration.ofSeconds(6);

	private static final Duration BETWEEN_ACTIONS = Duration.ofSeconds(3);

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void everyEventIsPaidExactlyOnceThroughKillsFreezesAndDatabaseRestarts(DatabaseKind kind) throws Exception {
		int seconds = Integer.getInteger("idempotency.chaos.seconds", DEFAULT_SECONDS);
		int rate = Integer.getInteger("idempotency.chaos.rate", DEFAULT_RATE);
		int events = seconds * rate;
		try (PrivateDatabaseServer server = TestDatabases.startPrivateServer(kind)) {
			TestDatabase database = server.createDatabase();
			try (HikariDataSource dataSource = database.dataSource(2)) {
				JdbcTemplate jdbc = new JdbcTemplate(dataSource);
				jdbc.execute("CREATE TABLE payment (id VARCHAR(64) NOT NULL, worker BIGINT NOT NULL)");
				Map<String, Integer> counts;
				int restarts = 0;
				try (ChaosBroker broker = new ChaosBroker(database, LEASE)) {
					broker.start(3, Duration.ofMinutes(2));
					Thread producer = new Thread(() -> publish(broker, events, rate), "chaos-producer");
					producer.start();
					for (int action = 0; producer.isAlive(); action++) {
						TimeUnit.MILLISECONDS.sleep(BETWEEN_ACTIONS.toMillis());
						// A restart only once the frozen worker has thawed, so that its
						// zombie calls meet their successors rather than a broken
						// connection
						switch (action % 4) {
							case 0 -> broker.freeze(FREEZE);
							case 1, 2 -> broker.kill();
							default -> {
								server.restart();
								restarts++;
							}
						}
					}
					producer.join();
					boolean drained = broker.awaitAllAcknowledged(Duration.ofMinutes(3));
					assertThat(drained)
						.as("every event acknowledged; not: %s; workers printed:%n%s", broker.unacknowledged(),
								broker.workersOutput())
						.isTrue();
					counts = broker.counts();
				}
				List<Map<String, Object>> duplicates = jdbc
					.queryForList("SELECT id, COUNT(*) AS n FROM payment GROUP BY id HAVING COUNT(*) > 1");
				Integer paid = jdbc.queryForObject("SELECT COUNT(DISTINCT id) FROM payment", Integer.class);
				Integer takeovers = jdbc.queryForObject("SELECT COUNT(*) FROM idempotency_record WHERE fence > 1",
						Integer.class);
				report(kind, events, paid, duplicates.size(), takeovers, restarts, counts);
				assertThat(duplicates).as("events paid more than once").isEmpty();
				assertThat(paid).as("events paid").isEqualTo(events);
				assertThat(counts).containsKeys("kills", "freezes");
				assertThat(restarts).isPositive();
			}
		}
	}

	private static void publish(ChaosBroker broker, int events, int rate) {
		long interval = TimeUnit.SECONDS.toNanos(1) / rate;
		for (int i = 0; i < events; i++) {
			broker.publish("evt-" + i);
			LockSupport.parkNanos(interval);
		}
	}

	private static void report(DatabaseKind kind, int events, Integer paid, int duplicated, Integer takeovers,
			int restarts, Map<String, Integer> counts) {
		StringBuilder table = new StringBuilder();
		table.append(String.format("%nChaos run on %s%n", kind.label()));
		table.append(String.format("| %-44s | %7s |%n", "events published", events));
		table.append(String.format("| %-44s | %7s |%n", "events paid", paid));
		table.append(String.format("| %-44s | %7s |%n", "events paid more than once", duplicated));
		table.append(String.format("| %-44s | %7s |%n", "records taken over (fence > 1)", takeovers));
		table.append(String.format("| %-44s | %7s |%n", "database restarts", restarts));
		counts.forEach((name, count) -> table.append(String.format("| %-44s | %7s |%n", name, count)));
		System.out.println(table);
	}

}
