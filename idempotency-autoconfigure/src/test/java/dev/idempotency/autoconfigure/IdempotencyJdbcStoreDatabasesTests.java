package dev.idempotency.autoconfigure;

import java.sql.SQLException;
import java.util.function.BiConsumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An application with {@code idempotency.store=jdbc} on each database the store runs on:
 * the table is created at startup, and an {@code @Idempotent} method runs once for its
 * duplicates, whose record is a row of that table.
 */
class IdempotencyJdbcStoreDatabasesTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withUserConfiguration(CountingPayments.PaymentsConfiguration.class);

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void idempotentMethodRunsOnceForItsDuplicates(DatabaseKind kind) throws SQLException {
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		try (HikariDataSource dataSource = TestDatabases.get(kind).createDatabase().dataSource(4)) {
			this.contextRunner
				.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
				.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
						"idempotency.jdbc.initialize-schema=always")
				.run((context) -> {
					CountingPayments payments = context.getBean(CountingPayments.class);
					CountingPayments.Receipt first = payments.pay("p-1");
					assertThat(payments.pay("p-1")).isEqualTo(first);
					assertThat(payments.pay("p-1")).isEqualTo(first);
					assertThat(payments.runs()).isOne();
					assertThat(JdbcRecordCleanupTests.keys(kind, dataSource, table))
						.containsExactly("CountingPayments.pay:p-1");
					assertThat(context.getBean(IdempotencyStore.class))
						.hasToString("JDBC store on " + kind.label() + ", table " + table);
				});
		}
	}

	/**
	 * The caller's transaction holds the one connection of the application's pool: the
	 * call's acquire takes one of the store's own pool (a copy of the application's), and
	 * its completion joins the transaction.
	 */
	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void callerHoldingTheApplicationsOnlyConnectionInATransactionStillGetsItsRecord(DatabaseKind kind) {
		runHoldingTheOnlyConnection(kind, (context, transaction) -> {
			CountingPayments payments = context.getBean(CountingPayments.class);
			CountingPayments.Receipt first = transaction.execute((status) -> payments.pay("p-1"));
			CountingPayments.Receipt second = transaction.execute((status) -> payments.pay("p-1"));
			assertThat(second).isEqualTo(first);
			assertThat(payments.runs()).isOne();
			JdbcStorePool pool = context.getBean(JdbcStorePool.class);
			assertThat(pool.isOwn()).isTrue();
			// As large as the application's pool, unless told otherwise
			assertThat(((HikariDataSource) pool.dataSource()).getMaximumPoolSize()).isOne();
			assertThat(((HikariDataSource) pool.dataSource()).getPoolName()).endsWith("-idempotency");
		});
	}

	/**
	 * Without a pool of its own, the same call waits for a connection that its own
	 * transaction holds, until the pool's connection timeout.
	 */
	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void withoutAPoolOfItsOwnTheStoreStarvesBehindTheCallersTransaction(DatabaseKind kind) {
		runHoldingTheOnlyConnection(kind, (context, transaction) -> {
			CountingPayments payments = context.getBean(CountingPayments.class);
			assertThatExceptionOfType(IdempotencyStoreException.class)
				.isThrownBy(() -> transaction.execute((status) -> payments.pay("p-1")));
			assertThat(payments.runs()).isZero();
			assertThat(context.getBean(JdbcStorePool.class).isOwn()).isFalse();
		}, "idempotency.jdbc.pool-size=0");
	}

	// An application on a pool of one connection (taken for at most a second), with
	// transactions on that pool
	private void runHoldingTheOnlyConnection(DatabaseKind kind,
			BiConsumer<AssertableApplicationContext, TransactionTemplate> assertions, String... properties) {
		String table = IdempotencyJdbcStoreConfigurationTests.newTable();
		try (HikariDataSource dataSource = singleConnection(TestDatabases.get(kind).createDatabase())) {
			TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
			this.contextRunner
				.withBean(DataSource.class, () -> dataSource, (definition) -> definition.setDestroyMethodName(""))
				.withPropertyValues("idempotency.store=jdbc", "idempotency.jdbc.table=" + table,
						"idempotency.jdbc.initialize-schema=always")
				.withPropertyValues(properties)
				.run((context) -> assertions.accept(context, transaction));
		}
	}

	private static HikariDataSource singleConnection(TestDatabase database) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database.url());
		config.setUsername(database.username());
		config.setPassword(database.password());
		config.setMaximumPoolSize(1);
		config.setConnectionTimeout(1000);
		return new HikariDataSource(config);
	}

}
