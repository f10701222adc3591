package dev.idempotency.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Settings of the JDBC store, bound from {@code idempotency.jdbc}.
 *
 * @see IdempotencyProperties#getJdbc()
 */
public class IdempotencyJdbcProperties {

	/**
	 * Table of the idempotency records, optionally qualified by its schema
	 * ('schema.table'): letters, digits and '_'.
	 */
	private String table = "idempotency_record";

	/**
	 * When to create the table (and its index) at startup, unless it exists, with the
	 * schema script of the database shipped in idempotency-jdbc. 'always' by default: the
	 * script only creates what is missing, and a user without the right to create tables
	 * needs none once the table exists. 'never' when migrations (Flyway, Liquibase)
	 * create it. 'embedded' as spring.sql.init.mode: only in an embedded database (such
	 * as H2), which the store does not run on, so that startup fails saying so; never in
	 * PostgreSQL, MariaDB or MySQL.
	 */
	private InitializeSchema initializeSchema = InitializeSchema.ALWAYS;

	/**
	 * Time between two runs of the cleanup of expired records, each run deleting batches
	 * until none is left. 0 to run no cleanup (expired records then stay until their key
	 * is used again).
	 */
	private Duration cleanupInterval = Duration.ofMinutes(1);

	/**
	 * Maximum number of expired records one statement of the cleanup deletes.
	 */
	private int cleanupBatchSize = 500;

	/**
	 * Maximum number of connections of the store's own pool, a copy of the application's
	 * HikariCP pool for the statements the store runs outside the caller's transactions
	 * (acquire, renew, release, reads, cleanup), so that callers holding every connection
	 * of the application's pool in transactions cannot starve it. Unset, as many as the
	 * application's pool may open. 0 to run them on the application's DataSource; with a
	 * DataSource that is not HikariCP's, they always are.
	 */
	private @Nullable Integer poolSize;

	public @Nullable Integer getPoolSize() {
		return this.poolSize;
	}

	public void setPoolSize(@Nullable Integer poolSize) {
		this.poolSize = poolSize;
	}

	public String getTable() {
		return this.table;
	}

	public void setTable(String table) {
		this.table = table;
	}

	public InitializeSchema getInitializeSchema() {
		return this.initializeSchema;
	}

	public void setInitializeSchema(InitializeSchema initializeSchema) {
		this.initializeSchema = initializeSchema;
	}

	public Duration getCleanupInterval() {
		return this.cleanupInterval;
	}

	public void setCleanupInterval(Duration cleanupInterval) {
		this.cleanupInterval = cleanupInterval;
	}

	public int getCleanupBatchSize() {
		return this.cleanupBatchSize;
	}

	public void setCleanupBatchSize(int cleanupBatchSize) {
		this.cleanupBatchSize = cleanupBatchSize;
	}

	/**
	 * When to create the table of the JDBC store, with the semantics of Spring Boot's
	 * {@code DatabaseInitializationMode}.
	 */
	public enum InitializeSchema {

		/**
		 * Only in an embedded database (H2, HSQLDB, Derby), as spring.sql.init.mode's
		 * default: never in PostgreSQL, MariaDB or MySQL.
		 */
		EMBEDDED,

		/**
		 * Always, unless it exists: the default.
		 */
		ALWAYS,

		/**
		 * Never: the application's migrations (Flyway, Liquibase) create it.
		 */
		NEVER

	}

}
