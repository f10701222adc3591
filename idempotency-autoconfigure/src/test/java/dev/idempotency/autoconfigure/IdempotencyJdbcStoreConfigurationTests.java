package dev.idempotency.autoconfigure;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.autoconfigure.IdempotencyJdbcProperties.InitializeSchema;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the JDBC store's auto-configuration, on a real PostgreSQL: when it is chosen,
 * what it fails with when something is missing, its properties and the creation of its
 * table.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyJdbcStoreConfigurationTests {

	private static TestDatabase database;

	private static HikariDataSource dataSource;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class));

	private final ApplicationContextRunner withDataSource = this.contextRunner.withBean(DataSource.class,
			() -> dataSource, (definition) -> definition.setDestroyMethodName(""));

	@BeforeAll
	static void createDatabase() {
		database = TestDatabases.postgres().createDatabase();
		dataSource = database.dataSource(4);
	}

	@AfterAll
	static void closeDataSource() {
		dataSource.close();
	}

	@Test
	void defaultsOfTheJdbcProperties() {
		this.contextRunner.withPropertyValues("idempotency.store=memory").run((context) -> {
			IdempotencyJdbcProperties jdbc = context.getBean(IdempotencyProperties.class).getJdbc();
			assertThat(jdbc.getTable()).isEqualTo("idempotency_record");
			assertThat(jdbc.getInitializeSchema()).isEqualTo(InitializeSchema.ALWAYS);
			assertThat(jdbc.getCleanupInterval()).isEqualTo(Duration.ofMinutes(1));
			assertThat(jdbc.getCleanupBatchSize()).isEqualTo(500);
		});
	}

	@Test
	void bindsTheJdbcProperties() {
		this.contextRunner
			.withPropertyValues("idempotency.store=memory", "idempotency.jdbc.table=app.records",
					"idempotency.jdbc.initialize-schema=never", "idempotency.jdbc.cleanup-interval=30s",
					"idempotency.jdbc.cleanup-batch-size=100")
			.run((context) -> {
				IdempotencyJdbcProperties jdbc = context.getBean(IdempotencyProperties.class).getJdbc();
				assertThat(jdbc.getTable()).isEqualTo("app.records");
				assertThat(jdbc.getInitializeSchema()).isEqualTo(InitializeSchema.NEVER);
				assertThat(jdbc.getCleanupInterval()).isEqualTo(Duration.ofSeconds(30));
				assertThat(jdbc.getCleanupBatchSize()).isEqualTo(100);
			});
	}

	@Test
	void rejectsBadJdbcPropertiesWithTheirNames() {
		this.contextRunner
			.withPropertyValues("idempotency.store=memory", "idempotency.jdbc.table=records; DROP TABLE x",
					"idempotency.jdbc.cleanup-interval=-1s", "idempotency.jdbc.cleanup-batch-size=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.jdbc.table must be an SQL identifier")
				.hasMessageContaining("idempotency.jdbc.cleanup-interval must not be negative")
				.hasMessageContaining("idempotency.jdbc.cleanup-batch-size must be at least 1"));
	}

	@Test
	void jdbcUsesTheDataSourceAndSaysSoAtStartup(CapturedOutput output) {
		String table = newTable();
		this.withDataSource
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(JdbcIdempotencyStore.class);
				assertThat(context).hasSingleBean(JdbcRecordCleanup.class);
				assertThat(context.getBean(IdempotencyStore.class).type()).isEqualTo("jdbc");
			});
		assertThat(output).contains("Idempotency: JDBC store on a database not yet reached, table " + table
				+ " (idempotency.store=jdbc), 0 @Idempotent operations");
	}

	@Test
	void autoPicksJdbcWhenThereIsADataSourceAndNoRedisIsConfigured(CapturedOutput output) {
		this.withDataSource.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(JdbcIdempotencyStore.class)
				.doesNotHaveBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains("(idempotency.store=auto: no Redis is configured, and there is a DataSource and "
				+ "idempotency-jdbc)");
	}

	@Test
	void autoPrefersAConfiguredRedisToTheDataSource() {
		this.withDataSource.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=redis.internal")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RedisIdempotencyStore.class)
				.doesNotHaveBean(JdbcIdempotencyStore.class)
				.doesNotHaveBean(JdbcRecordCleanup.class));
	}

	@Test
	void autoPicksMemoryWithoutADataSource() {
		this.contextRunner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(InMemoryIdempotencyStore.class)
			.doesNotHaveBean(JdbcRecordCleanup.class));
	}

	@Test
	void autoPicksMemoryWithADataSourceButWithoutTheModule() {
		this.withDataSource.withClassLoader(new FilteredClassLoader("dev.idempotency.store.jdbc"))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class));
	}

	@Test
	void jdbcFailsStartupWithoutADataSource() {
		this.contextRunner.withPropertyValues("idempotency.store=jdbc")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessage("idempotency.store=jdbc but there is no single DataSource bean (0 found)"));
	}

	@Test
	void jdbcFailsStartupWithoutTheModule() {
		this.withDataSource.withPropertyValues("idempotency.store=jdbc")
			.withClassLoader(new FilteredClassLoader("dev.idempotency.store.jdbc"))
			.run((context) -> {
				assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(FailureAnalyzedException.class)
					.hasMessage("idempotency.store=jdbc but the JDBC store (idempotency-jdbc) is not on the classpath");
				FailureAnalyzedException failure = (FailureAnalyzedException) rootCause(context.getStartupFailure());
				assertThat(failure.analysis().getAction()).contains("Add dev.idempotency:idempotency-jdbc");
			});
	}

	@Test
	void backsOffFromTheApplicationsStore() {
		IdempotencyStore store = new InMemoryIdempotencyStore(10);
		this.withDataSource.withPropertyValues("idempotency.store=jdbc")
			.withBean(IdempotencyStore.class, () -> store)
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(JdbcIdempotencyStore.class);
				assertThat(context).doesNotHaveBean(JdbcRecordCleanup.class);
				assertThat(context.getBean(IdempotencyStore.class)).isSameAs(store);
			});
	}

	@Test
	void alwaysByDefaultCreatesTheTableAndAgainIsHarmless() throws SQLException {
		String table = newTable();
		ApplicationContextRunner runner = this.withDataSource.withPropertyValues("idempotency.store=jdbc",
				"idempotency.jdbc.table=" + table);
		runner.run((context) -> assertThat(context).hasNotFailed());
		assertThat(tableExists(table)).isTrue();
		runner.run((context) -> assertThat(context).hasNotFailed());
		assertThat(tableExists(table)).isTrue();
	}

	@Test
	void embeddedDoesNotCreateTheTableInPostgres() throws SQLException {
		String table = newTable();
		this.withDataSource
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=embedded")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(JdbcIdempotencyStore.class));
		assertThat(tableExists(table)).isFalse();
	}

	@Test
	void neverDoesNotCreateTheTable() throws SQLException {
		String table = newTable();
		this.withDataSource
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=never")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(tableExists(table)).isFalse();
	}

	@ParameterizedTest
	@ValueSource(strings = { "embedded", "always" })
	void startupFailsOnAnEmbeddedDatabaseWhichTheStoreDoesNotRunOn(String mode) {
		this.contextRunner.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.initialize-schema=" + mode)
			.withBean(DataSource.class,
					() -> new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
						.setName("idem-" + UUID.randomUUID())
						.build())
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessage("The JDBC idempotency store does not run on H2, an embedded database"));
	}

	@Test
	void theStoreWorksOnTheCreatedTable() {
		String table = newTable();
		this.withDataSource
			.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
					"idempotency.jdbc.initialize-schema=always")
			.withUserConfiguration(CountingPayments.PaymentsConfiguration.class)
			.run((context) -> {
				CountingPayments payments = context.getBean(CountingPayments.class);
				assertThat(payments.pay("p-1")).isEqualTo(payments.pay("p-1"));
				assertThat(payments.runs()).isOne();
				assertThat(rows(table)).isOne();
			});
	}

	static String newTable() {
		return "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

	private static boolean tableExists(String table) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection
					.prepareStatement("SELECT count(*) FROM information_schema.tables WHERE table_name = ?")) {
			statement.setString(1, table);
			try (ResultSet rs = statement.executeQuery()) {
				rs.next();
				return rs.getInt(1) > 0;
			}
		}
	}

	private static int rows(String table) throws SQLException {
		try (Connection connection = dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT count(*) FROM " + table);
				ResultSet rs = statement.executeQuery()) {
			rs.next();
			return rs.getInt(1);
		}
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
