/**
 * A real Redis for tests, found in the order of
 * {@link dev.idempotency.test.redis.TestRedis}: a URL, Testcontainers, or a
 * {@code redis-server} on the {@code PATH}.
 */
@NullMarked
package dev.idempotency.test.redis;

import org.jspecify.annotations.NullMarked;
