/**
 * Helpers for tests of applications that use {@code @Idempotent}: concurrent duplicates
 * ({@link dev.idempotency.test.ConcurrentCalls}) and attempts that crashed or lost their
 * lease ({@link dev.idempotency.test.StoreScenarios}).
 */
@NullMarked
package dev.idempotency.test;

import org.jspecify.annotations.NullMarked;
