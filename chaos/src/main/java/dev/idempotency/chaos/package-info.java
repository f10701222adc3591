/**
 * The worker of the chaos runs: a Spring Boot application with the JDBC store, consuming
 * events from its standard input, each in a transaction around an idempotent call that
 * inserts a business row.
 */
@NullMarked
package dev.idempotency.chaos;

import org.jspecify.annotations.NullMarked;
