package dev.idempotency.test.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared server of each kind, from whichever source the environment gives, gives each
 * caller an empty database of its own.
 */
class TestDatabasesTests {

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void eachCreatedDatabaseIsEmptyAndItsOwn(DatabaseKind kind) throws SQLException {
		TestDatabaseServer server = TestDatabases.get(kind);
		assertThat(TestDatabases.get(kind)).isSameAs(server);
		TestDatabase first = server.createDatabase();
		TestDatabase second = server.createDatabase();
		assertThat(first.kind()).isEqualTo(kind);
		assertThat(Databases.name(first)).isNotEqualTo(Databases.name(second));
		assertThat(Databases.tables(first)).isEmpty();
		assertThat(Databases.tables(second)).isEmpty();
		Databases.execute(first, "CREATE TABLE only_here (id INT PRIMARY KEY)");
		assertThat(Databases.tables(first)).containsExactly("only_here");
		assertThat(Databases.tables(second)).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void dataSourceConnectsToItsDatabase(DatabaseKind kind) throws SQLException {
		TestDatabase database = TestDatabases.get(kind).createDatabase();
		Databases.execute(database, "CREATE TABLE marker (id INT PRIMARY KEY)", "INSERT INTO marker VALUES (7)");
		try (HikariDataSource dataSource = database.dataSource(2);
				Connection connection = dataSource.getConnection();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT id FROM marker")) {
			assertThat(rows.next()).isTrue();
			assertThat(rows.getInt(1)).isEqualTo(7);
		}
	}

}
