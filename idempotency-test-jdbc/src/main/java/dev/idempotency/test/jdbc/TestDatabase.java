package dev.idempotency.test.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import org.springframework.util.Assert;

/**
 * One empty database of its own on a test server, for one test class.
 *
 * @param kind the kind of database
 * @param url its JDBC URL, without user or password
 * @param username the user to connect as
 * @param password the user's password, empty when none
 */
public record TestDatabase(DatabaseKind kind, String url, String username, String password) {

	/**
	 * Create a pool of connections to this database, which the caller closes.
	 * @param maxPoolSize the largest number of connections the pool opens
	 * @return the pool
	 */
	public HikariDataSource dataSource(int maxPoolSize) {
		Assert.isTrue(maxPoolSize > 0, "'maxPoolSize' must be positive");
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(this.url);
		config.setUsername(this.username);
		config.setPassword(this.password);
		config.setMaximumPoolSize(maxPoolSize);
		config.setMinimumIdle(0);
		config.setPoolName("test-" + this.kind.name().toLowerCase(java.util.Locale.ROOT));
		return new HikariDataSource(config);
	}

}
