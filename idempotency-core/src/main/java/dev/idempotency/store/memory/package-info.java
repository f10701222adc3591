/**
 * The in-memory store: one JVM, bounded, for tests and local development.
 */
@NullMarked
package dev.idempotency.store.memory;

import org.jspecify.annotations.NullMarked;
