/**
 * Test support of this module's own tests. The Redis they run against comes from
 * {@code idempotency-test-redis}.
 */
@NullMarked
package dev.idempotency.test;

import org.jspecify.annotations.NullMarked;
