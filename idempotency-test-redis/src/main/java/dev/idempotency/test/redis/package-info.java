/**
 * A real Redis for tests, found in the order of
 * {@link dev.idempotency.test.redis.TestRedis}: a URL, Testcontainers, or a
 * {@code redis-server} on the {@code PATH}; a Redis Cluster found the same way
 * ({@link dev.idempotency.test.redis.TestRedis#cluster()}); and servers that one test
 * starts for itself to stop, kill, freeze or fail over: a
 * {@link dev.idempotency.test.redis.RedisServer}, a
 * {@link dev.idempotency.test.redis.RedisReplicaSet}, a
 * {@link dev.idempotency.test.redis.RedisCluster} or
 * {@link dev.idempotency.test.redis.RedisSentinels}.
 */
@NullMarked
package dev.idempotency.test.redis;

import org.jspecify.annotations.NullMarked;
