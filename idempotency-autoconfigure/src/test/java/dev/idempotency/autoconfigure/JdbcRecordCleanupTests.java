package dev.idempotency.autoconfigure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.store.jdbc.JdbcRecordCleaner;
import dev.idempotency.store.jdbc.JdbcSchema;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests of the deletion of expired JDBC records, by {@link JdbcRecordCleaner} and by the
 * scheduled {@link JdbcRecordCleanup}, on PostgreSQL and MariaDB: expired rows go, in
 * batches, and live ones stay.
 */
class JdbcRecordCleanupTests {

	private static final Map<DatabaseKind, HikariDataSource> dataSources = new EnumMap<>(DatabaseKind.class);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class));

	@AfterAll
	static void closeDataSources() {
		dataSources.values().forEach(HikariDataSource::close);
	}

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void deletesExpiredRowsInBatchesUntilABatchIsShortAndLeavesLiveOnes(DatabaseKind kind) throws SQLException {
		DataSource dataSource = dataSource(kind);
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		JdbcSchema.initialize(dataSource, table);
		insert(kind, dataSource, table, "expired-", 7, false);
		insert(kind, dataSource, table, "live-", 3, true);
		JdbcRecordCleaner cleaner = new JdbcRecordCleaner(dataSource, table);
		assertThat(cleaner.deleteExpired(5)).isEqualTo(5);
		assertThat(cleaner.deleteExpired(5)).isEqualTo(2);
		assertThat(cleaner.deleteExpired(5)).isZero();
		assertThat(keys(kind, dataSource, table)).containsExactlyInAnyOrder("live-0", "live-1", "live-2");
	}

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void scheduledCleanupDeletesExpiredRecordsAndStopsWithTheContext(DatabaseKind kind) throws SQLException {
		DataSource dataSource = dataSource(kind);
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		// Other tests' contexts (cached by the Spring TestContext framework) may run
		// theirs
		Set<Thread> others = cleanupThreads();
		List<Thread> ours = new ArrayList<>();
		this.contextRunner
			.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.cleanup-interval=100ms",
					"idempotency.jdbc.cleanup-batch-size=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				insert(kind, dataSource, table, "expired-", 10, false);
				insert(kind, dataSource, table, "live-", 2, true);
				await().atMost(Duration.ofSeconds(30))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> keys(kind, dataSource, table).size() == 2);
				assertThat(keys(kind, dataSource, table)).containsExactlyInAnyOrder("live-0", "live-1");
				Set<Thread> threads = cleanupThreads();
				threads.removeAll(others);
				assertThat(threads).hasSize(1);
				ours.addAll(threads);
			});
		await().atMost(Duration.ofSeconds(10)).until(() -> !ours.get(0).isAlive());
	}

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void zeroIntervalRunsNoCleanup(DatabaseKind kind) throws SQLException {
		DataSource dataSource = dataSource(kind);
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		Set<Thread> others = cleanupThreads();
		this.contextRunner
			.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=always", "idempotency.jdbc.cleanup-interval=0")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(JdbcRecordCleanup.class).isRunning()).isFalse();
				assertThat(cleanupThreads()).isSubsetOf(others);
			});
	}

	private static Set<Thread> cleanupThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals("idempotency-jdbc-cleanup") && thread.isAlive())
			.collect(Collectors.toCollection(HashSet::new));
	}

	private static synchronized DataSource dataSource(DatabaseKind kind) {
		return dataSources.computeIfAbsent(kind, (key) -> TestDatabases.get(key).createDatabase().dataSource(4));
	}

	// Rows as the store writes them, expired or live on the database's clock
	static void insert(DatabaseKind kind, DataSource dataSource, String table, String prefix, int count, boolean live)
			throws SQLException {
		boolean postgres = kind == DatabaseKind.POSTGRESQL;
		String now = postgres ? "clock_timestamp()" : "UTC_TIMESTAMP(6)";
		String expiry = postgres ? now + (live ? " + " : " - ") + "INTERVAL '1 hour'"
				: now + (live ? " + " : " - ") + "INTERVAL 1 HOUR";
		String sql = "INSERT INTO " + table + " (record_key, state, fence, owner, takeover, started_at, lease_until, "
				+ "completed_at, expires_at) VALUES (?, 'COMPLETED', 1, 'owner', FALSE, " + now + ", " + now + ", "
				+ now + ", " + expiry + ")";
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql)) {
			for (int i = 0; i < count; i++) {
				statement.setString(1, prefix + i);
				statement.executeUpdate();
			}
		}
	}

	static List<String> keys(DatabaseKind kind, DataSource dataSource, String table) throws SQLException {
		String column = (kind == DatabaseKind.POSTGRESQL) ? "record_key" : "CAST(record_key AS CHAR)";
		List<String> keys = new ArrayList<>();
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT " + column + " FROM " + table);
				ResultSet rs = statement.executeQuery()) {
			while (rs.next()) {
				keys.add(rs.getString(1));
			}
		}
		return keys;
	}

}
