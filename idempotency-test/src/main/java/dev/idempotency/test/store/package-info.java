/**
 * The contract tests that every idempotency store passes, for anyone writing a store.
 */
@NullMarked
package dev.idempotency.test.store;

import org.jspecify.annotations.NullMarked;
