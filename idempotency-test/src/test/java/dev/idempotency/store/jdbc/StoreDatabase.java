package dev.idempotency.store.jdbc;

import java.util.function.Consumer;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabase;
import dev.idempotency.test.jdbc.TestDatabases;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An empty database of its own for one test class, with the store's schema in it, and the
 * pools on it that the class opens.
 */
final class StoreDatabase implements AutoCloseable {

	private final TestDatabase database;

	private final HikariDataSource dataSource;

	private StoreDatabase(TestDatabase database, int poolSize) {
		this.database = database;
		this.dataSource = database.dataSource(poolSize);
		JdbcSchema.initialize(this.dataSource, JdbcIdempotencyStore.DEFAULT_TABLE);
	}

	static StoreDatabase create(DatabaseKind kind, int poolSize) {
		return new StoreDatabase(TestDatabases.get(kind).createDatabase(), poolSize);
	}

	DatabaseKind kind() {
		return this.database.kind();
	}

	HikariDataSource dataSource() {
		return this.dataSource;
	}

	JdbcTemplate jdbc() {
		return new JdbcTemplate(this.dataSource);
	}

	/**
	 * Open another pool on the same database, configured further by the caller, which
	 * closes it.
	 */
	HikariDataSource newDataSource(int poolSize, Consumer<HikariConfig> configuration) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.database.url());
		config.setUsername(this.database.username());
		config.setPassword(this.database.password());
		config.setMaximumPoolSize(poolSize);
		config.setMinimumIdle(0);
		configuration.accept(config);
		return new HikariDataSource(config);
	}

	@Override
	public void close() {
		this.dataSource.close();
	}

}
