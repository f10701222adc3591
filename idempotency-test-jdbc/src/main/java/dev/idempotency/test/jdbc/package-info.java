/**
 * Real PostgreSQL and MariaDB servers for tests, found in the order of
 * {@link dev.idempotency.test.jdbc.TestDatabases}, each test class taking an empty
 * database of its own on the shared server
 * ({@link dev.idempotency.test.jdbc.TestDatabaseServer#createDatabase()}).
 */
@NullMarked
package dev.idempotency.test.jdbc;

import org.jspecify.annotations.NullMarked;
