package dev.idempotency.actuate.health;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.RedisServerCheck;
import dev.idempotency.store.redis.RedisServerStatus;

import org.springframework.boot.health.contributor.Health;

/**
 * Health of a Redis store beyond a read: whether the server accepts writes, how it keeps
 * records, and which scripts it holds. A class of its own so that it is loaded only when
 * Spring Data Redis is on the class path.
 */
final class RedisStoreHealth implements Consumer<Health.Builder> {

	// Under the indicator's name: the one users know and configure.
	private static final Log logger = LogFactory.getLog(IdempotencyHealthIndicator.class);

	private static final String UNKNOWN = "unknown";

	private final RedisIdempotencyStore store;

	private final RedisServerCheck check;

	private final AtomicBoolean evictionLogged = new AtomicBoolean();

	private RedisStoreHealth(RedisIdempotencyStore store) {
		this.store = store;
		this.check = store.serverCheck();
	}

	static @Nullable Consumer<Health.Builder> of(IdempotencyStore store) {
		return (store instanceof RedisIdempotencyStore redis) ? new RedisStoreHealth(redis) : null;
	}

	@Override
	public void accept(Health.Builder builder) {
		RedisServerStatus status = this.check.check();
		builder.withDetail("role", orUnknown(status.role()))
			.withDetail("maxmemoryPolicy", orUnknown(status.maxmemoryPolicy()));
		if (status.maxmemory() != null) {
			builder.withDetail("maxmemory", status.maxmemory());
		}
		if (status.usedMemory() != null) {
			builder.withDetail("usedMemory", status.usedMemory());
		}
		String refusal = refusal(status);
		if (refusal != null) {
			builder.down().withDetail("reason", refusal);
		}
		if (status.evictsRecords()) {
			builder.withDetail("warning",
					"maxmemory-policy " + status.maxmemoryPolicy()
							+ " evicts records when Redis is full, and a duplicate of a call whose record was evicted "
							+ "runs again; use noeviction");
			logEvictionOnce(status);
		}
		builder.withDetail("scripts", this.store.scriptsLoaded());
	}

	private static @Nullable String refusal(RedisServerStatus status) {
		if (!status.acceptsWrites()) {
			return "Redis refuses writes: " + status.writeRefusal();
		}
		if (status.isReplica()) {
			return "Redis is a replica: records written to it never reach its master and are lost when it "
					+ "resynchronises; point the store at the master";
		}
		return null;
	}

	private void logEvictionOnce(RedisServerStatus status) {
		if (this.evictionLogged.compareAndSet(false, true)) {
			logger.warn("The idempotency store's Redis has maxmemory-policy '" + status.maxmemoryPolicy()
					+ "' with maxmemory " + status.maxmemory() + " bytes: when it is full it evicts idempotency "
					+ "records (every one has a TTL) before their retention ends, and a duplicate of a call whose "
					+ "record was evicted runs the method again. Set maxmemory-policy to noeviction: a full Redis "
					+ "then refuses new records, and the idempotency health reports DOWN.");
		}
	}

	private static String orUnknown(@Nullable String value) {
		return (value != null) ? value : UNKNOWN;
	}

}
