package dev.idempotency.actuate.health;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link org.springframework.boot.health.contributor.HealthIndicator} of the idempotency
 * store: {@code UP} when a real read of a probe record succeeds and, for Redis, the
 * server accepts writes; {@code DOWN} with the error or the reason otherwise. Details
 * name the store type.
 * <p>
 * For Redis, each check also writes and deletes a probe key under the key prefix (see
 * {@link dev.idempotency.store.redis.RedisServerCheck}): a server that refuses it (a
 * read-only replica, {@code maxmemory} reached under {@code noeviction},
 * {@code min-replicas-to-write}, a failed background save) is {@code DOWN} with a
 * {@code reason} detail holding its error reply, and so is a writable replica, whose
 * records never reach its master. Details tell the server's {@code role},
 * {@code maxmemoryPolicy} ({@code unknown} where {@code INFO} is not allowed),
 * {@code maxmemory} and {@code usedMemory}, and which transition scripts it has cached
 * ({@code scripts}; one not cached is not a fault: it is sent in full on its next use).
 * An eviction policy that can evict records is a {@code warning} detail, and is logged
 * once as a WARN by the first check that finds it.
 * <p>
 * On Redis Cluster (with Lettuce), every primary that can hold records is checked so, and
 * these details are under {@code primaries}, by the primary's {@code host:port}; the
 * store is {@code DOWN} when any of them refuses the write or fails to answer (an
 * {@code error} detail of its own), with a {@code reason} naming each.
 * <p>
 * As a bean, the indicator checks a Redis store once in the background when the
 * application context has started, so that such a policy is logged at startup when Redis
 * is reachable then; it never delays or fails startup. With Lettuce, each command of a
 * Redis check waits at most for the store's command timeout
 * ({@code idempotency.redis.command-timeout}), whatever the connection's own, so a Redis
 * that does not answer is {@code DOWN} within a few of those; with Jedis, as long as the
 * client's own timeout.
 * <p>
 * For JDBC and DynamoDB, each check also makes a write to the store's table that changes
 * nothing; a missing table or a refused write is {@code DOWN} with a {@code reason}
 * detail that says so, and for a missing table how to create it.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator implements SmartInitializingSingleton {

	// Only ever read, so checking health leaves nothing in the store.
	private static final RecordKey PROBE = new RecordKey("idempotency-health", "probe");

	private static final boolean REDIS_PRESENT = ClassUtils.isPresent(
			"org.springframework.data.redis.connection.RedisConnectionFactory",
			IdempotencyHealthIndicator.class.getClassLoader())
			&& ClassUtils.isPresent("dev.idempotency.store.redis.RedisIdempotencyStore",
					IdempotencyHealthIndicator.class.getClassLoader());

	private static final boolean JDBC_PRESENT = ClassUtils.isPresent("dev.idempotency.store.jdbc.JdbcIdempotencyStore",
			IdempotencyHealthIndicator.class.getClassLoader());

	private static final boolean DYNAMODB_PRESENT = ClassUtils.isPresent(
			"dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore",
			IdempotencyHealthIndicator.class.getClassLoader());

	private final IdempotencyStore store;

	private final @Nullable Consumer<Health.Builder> storeDetails;

	// Redis is checked once at startup; JDBC and DynamoDB tell why a read failed (their
	// table missing)
	private final boolean redis;

	/**
	 * Create an indicator.
	 * @param store the store to check
	 */
	public IdempotencyHealthIndicator(IdempotencyStore store) {
		super("Idempotency store health check failed");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		Consumer<Health.Builder> details = REDIS_PRESENT ? RedisStoreHealth.of(store) : null;
		this.redis = details != null;
		if (details == null && JDBC_PRESENT) {
			details = JdbcStoreHealth.of(store);
		}
		if (details == null && DYNAMODB_PRESENT) {
			details = DynamoDbStoreHealth.of(store);
		}
		this.storeDetails = details;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("store", this.store.type());
		try {
			this.store.read(PROBE);
			builder.up();
			if (this.storeDetails != null) {
				this.storeDetails.accept(builder);
			}
		}
		catch (IdempotencyStoreException ex) {
			// The store's own message names the record; the cause says why it failed.
			builder.down(ex);
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
			if (cause != ex) {
				builder.withDetail("cause", cause.toString());
			}
			if (this.storeDetails != null && !this.redis) {
				tellWhy(builder, this.storeDetails);
			}
		}
	}

	private static void tellWhy(Health.Builder builder, Consumer<Health.Builder> storeDetails) {
		try {
			storeDetails.accept(builder);
		}
		catch (IdempotencyStoreException ex) {
			// Unreachable: the error of the read says so already
		}
	}

	/**
	 * Check a Redis store once on a daemon thread of its own, so that a setting that puts
	 * records at risk is logged at startup without waiting for the first health request.
	 * Nothing is logged when Redis is unreachable: the first check that reaches it logs
	 * instead.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		if (this.redis) {
			Thread check = new Thread(this::health, "idempotency-health-startup");
			check.setDaemon(true);
			check.start();
		}
	}

}
