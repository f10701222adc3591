package dev.idempotency.actuate.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.RedisServerCheck;
import dev.idempotency.store.redis.RedisServerStatus;

import org.springframework.boot.health.contributor.Health;
import org.springframework.core.NestedExceptionUtils;

/**
 * Health of a Redis store beyond a read: whether the server accepts writes, how it keeps
 * records, and which scripts it holds. On Redis Cluster, the same for every primary that
 * can hold records, under {@code primaries} by address; one that refuses writes or does
 * not answer makes the store {@code DOWN}. A class of its own so that it is loaded only
 * when Spring Data Redis is on the class path.
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
		List<String> primaries = this.store.clusterPrimaries();
		if (primaries.isEmpty()) {
			if (describe(this.check.check(), builder::withDetail) != null) {
				builder.down();
			}
			builder.withDetail("scripts", this.store.scriptsLoaded());
			return;
		}
		Map<String, Map<String, Object>> nodes = new LinkedHashMap<>();
		List<String> refusals = new ArrayList<>();
		for (String primary : primaries) {
			Map<String, Object> node = new LinkedHashMap<>();
			try {
				String refusal = describe(this.check.check(primary), node::put);
				if (refusal != null) {
					refusals.add(primary + ": " + refusal);
				}
				node.put("scripts", this.store.scriptsLoaded(primary));
			}
			catch (IdempotencyStoreException ex) {
				Throwable cause = NestedExceptionUtils.getMostSpecificCause(ex);
				String error = ex.getMessage() + ((cause != ex) ? ": " + cause : "");
				node.put("error", error);
				refusals.add(primary + ": " + error);
			}
			nodes.put(primary, node);
		}
		builder.withDetail("primaries", nodes);
		if (!refusals.isEmpty()) {
			builder.down().withDetail("reason", String.join("; ", refusals));
		}
	}

	/**
	 * Put what a server said into details, with the reason it cannot hold records, if
	 * any.
	 * @param status what the server said
	 * @param details where to put it
	 * @return why records cannot be written there, or {@code null} when they can
	 */
	private @Nullable String describe(RedisServerStatus status, BiConsumer<String, Object> details) {
		details.accept("role", orUnknown(status.role()));
		details.accept("maxmemoryPolicy", orUnknown(status.maxmemoryPolicy()));
		if (status.maxmemory() != null) {
			details.accept("maxmemory", status.maxmemory());
		}
		if (status.usedMemory() != null) {
			details.accept("usedMemory", status.usedMemory());
		}
		String refusal = refusal(status);
		if (refusal != null) {
			details.accept("reason", refusal);
		}
		if (status.evictsRecords()) {
			details.accept("warning",
					"maxmemory-policy " + status.maxmemoryPolicy()
							+ " evicts records when Redis is full, and a duplicate of a call whose record was evicted "
							+ "runs again; use noeviction");
			logEvictionOnce(status);
		}
		return refusal;
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
