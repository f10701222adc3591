/**
 * Test support shared through the core test-jar: a real Redis for tests.
 */
@NullMarked
package dev.idempotency.test;

import org.jspecify.annotations.NullMarked;
