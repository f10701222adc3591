package dev.idempotency.actuate.health;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link org.springframework.boot.health.contributor.HealthIndicator} of the idempotency
 * store: {@code UP} when a real read of a probe record succeeds, {@code DOWN} with the
 * error otherwise. Details name the store type; for Redis they also tell which transition
 * scripts the server has cached. A script that is not cached is not a fault (it is sent
 * in full on its next use), so it never makes the store {@code DOWN}.
 * <p>
 * An unreachable Redis answers within the client's command timeout
 * ({@code spring.data.redis.timeout}), so keep that below the health check's own
 * timeouts.
 */
public class IdempotencyHealthIndicator extends AbstractHealthIndicator {

	// Only ever read, so checking health leaves nothing in the store.
	private static final RecordKey PROBE = new RecordKey("idempotency-health", "probe");

	private static final boolean REDIS_PRESENT = ClassUtils.isPresent(
			"org.springframework.data.redis.connection.RedisConnectionFactory",
			IdempotencyHealthIndicator.class.getClassLoader());

	private final IdempotencyStore store;

	/**
	 * Create an indicator.
	 * @param store the store to check
	 */
	public IdempotencyHealthIndicator(IdempotencyStore store) {
		super("Idempotency store health check failed");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("store", this.store.type());
		try {
			this.store.read(PROBE);
			if (REDIS_PRESENT) {
				RedisStoreDetails.add(this.store, builder);
			}
		}
		catch (IdempotencyStoreException ex) {
			// The store's own message names the record; the cause says why it failed.
			builder.down(ex);
			Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
			if (cause != ex) {
				builder.withDetail("cause", cause.toString());
			}
			return;
		}
		builder.up();
	}

}
