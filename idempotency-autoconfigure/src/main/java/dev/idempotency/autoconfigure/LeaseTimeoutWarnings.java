package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.Idempotent;
import dev.idempotency.aop.IdempotentOperation;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.OperationOverrides;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

/**
 * Warns once at startup for each operation whose lock timeout a reply of the Redis store
 * may use up half of: {@code idempotency.redis.command-timeout}, or
 * {@code idempotency.redis.replica-ack-timeout} when replica acknowledgements are asked
 * for. A lease is counted from when its acquire was sent, and a method starts only with a
 * third of it left; an acquire answered that late fails with
 * {@code IdempotencyLockLostException} instead of running, unless a renewal confirms a
 * new lease in time. Such settings are not refused: short leases with the default
 * timeouts are legitimate, and the check at run time keeps them safe.
 * <p>
 * The operations checked are the {@code @Idempotent} methods known once every singleton
 * exists, and the names under {@code idempotency.operations} with a lock timeout of their
 * own (operations of the {@code IdempotentExecutor}, known only when used).
 */
final class LeaseTimeoutWarnings implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(IdempotencyAutoConfiguration.class);

	private final IdempotencyProperties properties;

	private final ObjectProvider<IdempotentOperationSource> operations;

	private final ObjectProvider<IdempotencyStore> store;

	private final ObjectProvider<IdempotencyDefaults> defaults;

	LeaseTimeoutWarnings(IdempotencyProperties properties, ObjectProvider<IdempotencyStore> store,
			ObjectProvider<IdempotentOperationSource> operations, ObjectProvider<IdempotencyDefaults> defaults) {
		this.properties = properties;
		this.store = store;
		this.operations = operations;
		this.defaults = defaults;
	}

	@Override
	public void afterSingletonsInstantiated() {
		IdempotencyDefaults defaults = this.defaults.getIfUnique();
		if (!(this.store.getIfUnique() instanceof RedisIdempotencyStore) || defaults == null) {
			return;
		}
		// Operation name to its lock timeout and the setting it comes from
		Map<String, LockTimeout> locks = new TreeMap<>();
		IdempotentOperationSource source = this.operations.getIfUnique();
		if (source != null) {
			for (IdempotentOperation operation : source.getOperations()) {
				locks.putIfAbsent(operation.name(),
						new LockTimeout(operation.operation().settings().lockTimeout(), origin(operation, defaults)));
			}
		}
		defaults.operations().forEach((name, overrides) -> {
			if (overrides.lockTimeout() != null) {
				locks.putIfAbsent(name, new LockTimeout(overrides.lockTimeout(), overridden(name)));
			}
		});
		IdempotencyRedisProperties redis = this.properties.getRedis();
		locks.forEach((name, lock) -> {
			warnIfSlow(name, lock, redis.getCommandTimeout(), "idempotency.redis.command-timeout");
			if (redis.getReplicaAcks() > 0) {
				warnIfSlow(name, lock, redis.getReplicaAckTimeout(), "idempotency.redis.replica-ack-timeout");
			}
		});
	}

	private static String origin(IdempotentOperation operation, IdempotencyDefaults defaults) {
		OperationOverrides overrides = defaults.operations().get(operation.name());
		if (overrides != null && overrides.lockTimeout() != null) {
			return overridden(operation.name());
		}
		Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(operation.method(), Idempotent.class);
		if (annotation == null) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(operation.targetClass(), Idempotent.class);
		}
		if (annotation != null && StringUtils.hasText(annotation.lockTimeout())) {
			return "@Idempotent(lockTimeout) on " + operation.method().getDeclaringClass().getSimpleName() + "."
					+ operation.method().getName();
		}
		return "idempotency.lock-timeout";
	}

	private static String overridden(String name) {
		return "idempotency.operations." + name + ".lock-timeout";
	}

	private static void warnIfSlow(String name, LockTimeout lock, Duration timeout, String property) {
		if (timeout.multipliedBy(2).compareTo(lock.value()) > 0) {
			logger.warn("Operation '" + name + "': " + property + " (" + timeout.toMillis()
					+ " ms) is longer than half its lock timeout (" + lock.value().toMillis() + " ms, from "
					+ lock.origin() + "). An acquire answered that late leaves less than the third of its lease "
					+ "a method needs to start: unless a renewal confirms a new lease in time, the call then fails with "
					+ "IdempotencyLockLostException instead of running, and the record is released. Raise "
					+ lock.origin() + " or lower " + property + ".");
		}
	}

	private record LockTimeout(Duration value, String origin) {
	}

}
