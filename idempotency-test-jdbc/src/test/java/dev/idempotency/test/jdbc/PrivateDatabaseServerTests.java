package dev.idempotency.test.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A server of its own that a test crashes and restarts keeps what was committed, loses
 * what was not, and is gone once closed.
 */
class PrivateDatabaseServerTests {

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void restartIsACrashThatKeepsCommittedRows(DatabaseKind kind) throws SQLException {
		try (PrivateDatabaseServer server = TestDatabases.startPrivateServer(kind)) {
			assertThat(server.kind()).isEqualTo(kind);
			TestDatabase database = server.createDatabase();
			Databases.execute(database, "CREATE TABLE rows_kept (id INT PRIMARY KEY)",
					"INSERT INTO rows_kept VALUES (1)");
			try (Connection open = Databases.connect(database); Statement statement = open.createStatement()) {
				open.setAutoCommit(false);
				statement.executeUpdate("INSERT INTO rows_kept VALUES (2)");
				server.restart();
				assertThatExceptionOfType(SQLException.class).isThrownBy(open::commit);
			}
			assertThat(Databases.query(database, "SELECT id FROM rows_kept")).containsExactly("1");
			Databases.execute(database, "INSERT INTO rows_kept VALUES (3)");
			assertThat(Databases.query(database, "SELECT id FROM rows_kept ORDER BY id")).containsExactly("1", "3");
		}
	}

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void closeStopsTheServerAndDeletesItsData(DatabaseKind kind) {
		ServerProcess server = (ServerProcess) TestDatabases.startPrivateServer(kind);
		TestDatabase database = server.createDatabase();
		server.close();
		assertThat(server.directory()).doesNotExist();
		assertThatExceptionOfType(SQLException.class).isThrownBy(() -> Databases.connect(database).close());
	}

}
