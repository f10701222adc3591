package dev.idempotency.autoconfigure;

import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.aop.IdempotentOperation;
import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ClassUtils;

/**
 * Says at startup what the starter does: one INFO line with the store, where its records
 * are and how many {@code @Idempotent} operations there are, and a WARN for each name
 * under {@code idempotency.operations} that no {@code @Idempotent} method has, with the
 * closest name that one has.
 * <p>
 * Annotated methods are resolved while their beans are proxied, so this runs once every
 * singleton exists. Methods of lazy beans (or of beans created later) are not known then:
 * they are not counted, and a name configured for them alone is reported as matching
 * nothing. So is the name of an {@code IdempotentExecutor} operation, which is known only
 * when it is first used.
 */
final class IdempotencyStartupReport implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(IdempotencyAutoConfiguration.class);

	private static final String REDIS_STORE = "dev.idempotency.store.redis.RedisIdempotencyStore";

	private static final String JDBC_STORE = "dev.idempotency.store.jdbc.JdbcIdempotencyStore";

	private static final String DYNAMODB_STORE = "dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore";

	private final ObjectProvider<IdempotencyStore> store;

	private final ObjectProvider<IdempotentOperationSource> operations;

	private final ObjectProvider<IdempotencyDefaults> defaults;

	private final StoreType storeType;

	IdempotencyStartupReport(ObjectProvider<IdempotencyStore> store,
			ObjectProvider<IdempotentOperationSource> operations, ObjectProvider<IdempotencyDefaults> defaults,
			StoreType storeType) {
		this.store = store;
		this.operations = operations;
		this.defaults = defaults;
		this.storeType = storeType;
	}

	@Override
	public void afterSingletonsInstantiated() {
		IdempotentOperationSource source = this.operations.getIfUnique();
		Set<String> names = new TreeSet<>();
		if (source != null) {
			source.getOperations().stream().map(IdempotentOperation::name).forEach(names::add);
		}
		if (logger.isInfoEnabled()) {
			logger.info("Idempotency: " + describe(this.store.getIfUnique(), this.storeType) + ", " + names.size()
					+ " @Idempotent " + ((names.size() == 1) ? "operation" : "operations"));
		}
		IdempotencyDefaults defaults = this.defaults.getIfUnique();
		if (defaults != null) {
			defaults.operations()
				.keySet()
				.stream()
				.filter((name) -> !names.contains(name))
				.sorted()
				.forEach((name) -> logger.warn(unmatched(name, names)));
		}
	}

	private static String describe(@Nullable IdempotencyStore store, StoreType storeType) {
		if (store == null) {
			return "no single IdempotencyStore bean";
		}
		if (store.getClass().getName().equals(JDBC_STORE)) {
			return store + ((storeType == StoreType.AUTO)
					? " (idempotency.store=auto: no Redis is configured, and "
							+ "there is a DataSource and idempotency-jdbc)"
					: " (idempotency.store=" + storeType.name().toLowerCase(Locale.ROOT) + ")");
		}
		if (store.getClass().getName().equals(DYNAMODB_STORE)) {
			return store + " (idempotency.store=" + storeType.name().toLowerCase(Locale.ROOT) + ")";
		}
		// The stores of this starter describe where their records are.
		if (store instanceof InMemoryIdempotencyStore || store.getClass().getName().equals(REDIS_STORE)) {
			return store.toString();
		}
		return "store " + ClassUtils.getUserClass(store).getName();
	}

	private static String unmatched(String name, Collection<String> names) {
		String closest = closest(name, names);
		return "idempotency.operations[" + name + "] matches no @Idempotent method"
				+ ((closest != null) ? " (did you mean '" + closest + "'?)" : "")
				+ ". Its settings apply only to an operation of that name known later: one of IdempotentExecutor, "
				+ "or a method of a lazy bean.";
	}

	/**
	 * Return the known name closest to a name, ignoring case, if it is close enough to be
	 * a misspelling: at most a quarter of the name's characters (at least one) are added,
	 * removed or changed.
	 * @param name the configured name
	 * @param names the known names
	 * @return the closest name, or {@code null}
	 */
	static @Nullable String closest(String name, Collection<String> names) {
		String lower = name.toLowerCase(Locale.ROOT);
		int bound = Math.max(1, name.length() / 4);
		String closest = null;
		int best = Integer.MAX_VALUE;
		for (String candidate : names) {
			int distance = distance(lower, candidate.toLowerCase(Locale.ROOT));
			if (distance <= bound && distance < best) {
				closest = candidate;
				best = distance;
			}
		}
		return closest;
	}

	// Levenshtein distance, on two rows
	private static int distance(String a, String b) {
		int[] previous = new int[b.length() + 1];
		int[] current = new int[b.length() + 1];
		for (int j = 0; j <= b.length(); j++) {
			previous[j] = j;
		}
		for (int i = 1; i <= a.length(); i++) {
			current[0] = i;
			for (int j = 1; j <= b.length(); j++) {
				int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
				current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
			}
			int[] swap = previous;
			previous = current;
			current = swap;
		}
		return previous[b.length()];
	}

}
