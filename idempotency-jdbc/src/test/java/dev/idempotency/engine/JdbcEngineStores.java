package dev.idempotency.engine;

import java.util.EnumMap;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcSchema;
import dev.idempotency.test.jdbc.DatabaseKind;
import dev.idempotency.test.jdbc.TestDatabases;

/**
 * The JDBC stores that the engine's tests run on: one database and one pool per kind for
 * the whole test JVM (the tests never share a record: each names its operations anew).
 */
final class JdbcEngineStores {

	private static final Map<DatabaseKind, HikariDataSource> dataSources = new EnumMap<>(DatabaseKind.class);

	private JdbcEngineStores() {
	}

	static synchronized IdempotencyStore store(DatabaseKind kind) {
		HikariDataSource dataSource = dataSources.computeIfAbsent(kind, (key) -> {
			HikariDataSource created = TestDatabases.get(key).createDatabase().dataSource(16);
			JdbcSchema.initialize(created, JdbcIdempotencyStore.DEFAULT_TABLE);
			Runtime.getRuntime().addShutdownHook(new Thread(created::close));
			return created;
		});
		return new JdbcIdempotencyStore(dataSource);
	}

}
