package dev.idempotency.test.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * What the tests ask a test database: its name, its tables, a row written and read back.
 */
final class Databases {

	private Databases() {
	}

	static Connection connect(TestDatabase database) throws SQLException {
		return DriverManager.getConnection(database.url(), database.username(), database.password());
	}

	static String name(TestDatabase database) throws SQLException {
		String function = (database.kind() == DatabaseKind.POSTGRESQL) ? "current_database()" : "database()";
		return query(database, "SELECT " + function).get(0);
	}

	static List<String> tables(TestDatabase database) throws SQLException {
		String schema = (database.kind() == DatabaseKind.POSTGRESQL) ? "current_schema()" : "database()";
		return query(database, "SELECT table_name FROM information_schema.tables WHERE table_schema = " + schema);
	}

	static void execute(TestDatabase database, String... statements) throws SQLException {
		try (Connection connection = connect(database); Statement statement = connection.createStatement()) {
			for (String sql : statements) {
				statement.execute(sql);
			}
		}
	}

	static List<String> query(TestDatabase database, String sql) throws SQLException {
		try (Connection connection = connect(database);
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(sql)) {
			List<String> values = new ArrayList<>();
			while (rows.next()) {
				values.add(rows.getString(1));
			}
			return values;
		}
	}

}
