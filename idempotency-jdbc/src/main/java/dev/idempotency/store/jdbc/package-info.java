/**
 * The JDBC store: records in one table of the application's PostgreSQL or MariaDB/MySQL
 * database, judged on the database's clock, completed inside the caller's Spring
 * transaction when one is active on the same {@link javax.sql.DataSource}.
 */
@NullMarked
package dev.idempotency.store.jdbc;

import org.jspecify.annotations.NullMarked;
