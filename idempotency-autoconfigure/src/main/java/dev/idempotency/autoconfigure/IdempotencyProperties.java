package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.StoreFailurePolicy;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.core.Ordered;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * Configuration properties of the idempotency starter.
 *
 * @see IdempotencyAutoConfiguration
 */
@ConfigurationProperties("idempotency")
public class IdempotencyProperties implements Validator {

	private static final Duration MAX_COMMAND_TIMEOUT = Duration.ofDays(36500);

	/**
	 * Whether to make @Idempotent methods idempotent. When disabled, no method is
	 * intercepted.
	 */
	private boolean enabled = true;

	/**
	 * Store of idempotency records. 'auto' uses Redis when the application configures it
	 * (a spring.data.redis connection property such as host or url, a Redis
	 * ConnectionDetails or RedisConnectionFactory bean of its own), and memory otherwise.
	 */
	private StoreType store = StoreType.AUTO;

	/**
	 * Prefix of the Redis keys of idempotency records. Must not be empty, so that records
	 * stay apart from other keys in the same database.
	 */
	private String keyPrefix = "idempotency:";

	/**
	 * Lease of an in-progress attempt. It is renewed while the method runs, so it bounds
	 * how long a crashed attempt blocks its key, not how long a method may take.
	 */
	private Duration lockTimeout = Duration.ofSeconds(30);

	/**
	 * How long a completed result is kept and replayed to duplicates.
	 */
	private Duration retention = Duration.ofHours(24);

	/**
	 * What a call does while another attempt for the same key holds a live lease.
	 */
	private InProgressPolicy onInProgress = InProgressPolicy.REJECT;

	/**
	 * Maximum time a call waits for another attempt when on-in-progress is 'wait'.
	 */
	private Duration waitTimeout = Duration.ofSeconds(10);

	/**
	 * What a call does when the store cannot be reached to acquire its record.
	 */
	private StoreFailurePolicy onStoreFailure = StoreFailurePolicy.FAIL;

	/**
	 * Maximum length of a key. A longer key is replaced by its SHA-256 hex digest.
	 */
	private int maxKeyLength = 200;

	/**
	 * Maximum size of an encoded result. A larger result completes its record without a
	 * replayable body, and duplicates fail instead of running again.
	 */
	private DataSize maxResultSize = DataSize.ofMegabytes(1);

	/**
	 * Order of the advisor that intercepts @Idempotent methods. The default runs it
	 * outside @Transactional (whose advisor has the lowest precedence by default), so
	 * that a record completes only after the transaction has committed.
	 */
	private int advisorOrder = Ordered.LOWEST_PRECEDENCE - 100;

	/**
	 * Settings of single operations, by operation name (such as 'PaymentService.charge'),
	 * overriding both the annotation and the global defaults.
	 */
	private final Map<String, Operation> operations = new LinkedHashMap<>();

	private final Memory memory = new Memory();

	private final Redis redis = new Redis();

	private final Http http = new Http();

	private final Messaging messaging = new Messaging();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public StoreType getStore() {
		return this.store;
	}

	public void setStore(StoreType store) {
		this.store = store;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public Duration getLockTimeout() {
		return this.lockTimeout;
	}

	public void setLockTimeout(Duration lockTimeout) {
		this.lockTimeout = lockTimeout;
	}

	public Duration getRetention() {
		return this.retention;
	}

	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	public InProgressPolicy getOnInProgress() {
		return this.onInProgress;
	}

	public void setOnInProgress(InProgressPolicy onInProgress) {
		this.onInProgress = onInProgress;
	}

	public Duration getWaitTimeout() {
		return this.waitTimeout;
	}

	public void setWaitTimeout(Duration waitTimeout) {
		this.waitTimeout = waitTimeout;
	}

	public StoreFailurePolicy getOnStoreFailure() {
		return this.onStoreFailure;
	}

	public void setOnStoreFailure(StoreFailurePolicy onStoreFailure) {
		this.onStoreFailure = onStoreFailure;
	}

	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	public DataSize getMaxResultSize() {
		return this.maxResultSize;
	}

	public void setMaxResultSize(DataSize maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	public Map<String, Operation> getOperations() {
		return this.operations;
	}

	public Memory getMemory() {
		return this.memory;
	}

	public Redis getRedis() {
		return this.redis;
	}

	public Http getHttp() {
		return this.http;
	}

	public Messaging getMessaging() {
		return this.messaging;
	}

	@Override
	public boolean supports(Class<?> type) {
		return IdempotencyProperties.class.isAssignableFrom(type);
	}

	/**
	 * Check the bound values that no type conversion catches, so that binding fails with
	 * the property, its value and where it came from.
	 * @param target the bound properties
	 * @param errors the errors to report to
	 */
	@Override
	public void validate(Object target, Errors errors) {
		IdempotencyProperties properties = (IdempotencyProperties) target;
		if (!StringUtils.hasText(properties.getKeyPrefix())) {
			errors.rejectValue("keyPrefix", "empty", "must not be empty (such as 'idempotency:'), or records "
					+ "would mix with every other key of the Redis database");
		}
		validateTimeout(properties.getRedis().getCommandTimeout(), "redis.commandTimeout",
				"idempotency.redis.command-timeout", errors);
		if (properties.getRedis().getReplicaAcks() < 0) {
			errors.rejectValue("redis.replicaAcks", "negative",
					"idempotency.redis.replica-acks must not be negative (0 waits for no replica)");
		}
		validateTimeout(properties.getRedis().getReplicaAckTimeout(), "redis.replicaAckTimeout",
				"idempotency.redis.replica-ack-timeout", errors);
		if (!StringUtils.hasText(properties.getHttp().getKeyHeader())) {
			errors.rejectValue("http.keyHeader", "empty",
					"idempotency.http.key-header must not be empty (such as 'Idempotency-Key')");
		}
		if (properties.getHttp().getMaxKeyLength() < 1) {
			errors.rejectValue("http.maxKeyLength", "notPositive",
					"idempotency.http.max-key-length must be at least 1 (such as 255)");
		}
		for (String name : properties.getHttp().getReplayedHeaders()) {
			if (!isToken(name)) {
				errors.rejectValue("http.replayedHeaders", "invalid", "idempotency.http.replayed-headers must hold "
						+ "header names (letters, digits and !#$%&'*+-.^_`|~), but holds '" + name + "'");
			}
		}
		try {
			properties.getMessaging().getInProgressRetry().toBackOff();
		}
		catch (IllegalArgumentException ex) {
			errors.rejectValue("messaging.inProgressRetry", "invalid",
					"idempotency.messaging.in-progress-retry is invalid: " + ex.getMessage());
		}
	}

	// An RFC 9110 token, as a field name is
	private static boolean isToken(@Nullable String name) {
		if (name == null || name.isEmpty()) {
			return false;
		}
		for (int i = 0; i < name.length(); i++) {
			char c = name.charAt(i);
			if (c > 127 || !(Character.isLetterOrDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0)) {
				return false;
			}
		}
		return true;
	}

	private static void validateTimeout(@Nullable Duration timeout, String field, String property, Errors errors) {
		if (timeout == null || timeout.toMillis() <= 0) {
			errors.rejectValue(field, "notPositive", property + " must be at least one millisecond");
		}
		else if (timeout.compareTo(MAX_COMMAND_TIMEOUT) > 0) {
			errors.rejectValue(field, "tooLong", property + " must be at most " + MAX_COMMAND_TIMEOUT.toDays()
					+ " days, as the Redis store measures it in nanoseconds");
		}
	}

	/**
	 * Store of idempotency records.
	 */
	public enum StoreType {

		/**
		 * Redis when the application configures it, memory otherwise.
		 */
		AUTO,

		/**
		 * Redis, through the RedisConnectionFactory bean, configured or not.
		 */
		REDIS,

		/**
		 * Memory of this JVM: records are neither shared with other instances nor kept
		 * across restarts.
		 */
		MEMORY

	}

	/**
	 * What a call does while another attempt for the same key holds a live lease.
	 */
	public enum InProgressPolicy {

		/**
		 * Fail at once with IdempotencyInProgressException.
		 */
		REJECT,

		/**
		 * Wait up to the wait timeout for the other attempt, then replay its result.
		 */
		WAIT

	}

	/**
	 * Settings of one operation. Each one left unset falls back to the annotation, then
	 * to the global default.
	 */
	public static class Operation {

		/**
		 * Lease of an in-progress attempt of this operation.
		 */
		private @Nullable Duration lockTimeout;

		/**
		 * How long a completed result of this operation is kept and replayed.
		 */
		private @Nullable Duration retention;

		/**
		 * What a call of this operation does while another attempt for the same key holds
		 * a live lease.
		 */
		private @Nullable InProgressPolicy onInProgress;

		/**
		 * Maximum time a call of this operation waits for another attempt.
		 */
		private @Nullable Duration waitTimeout;

		public @Nullable Duration getLockTimeout() {
			return this.lockTimeout;
		}

		public void setLockTimeout(@Nullable Duration lockTimeout) {
			this.lockTimeout = lockTimeout;
		}

		public @Nullable Duration getRetention() {
			return this.retention;
		}

		public void setRetention(@Nullable Duration retention) {
			this.retention = retention;
		}

		public @Nullable InProgressPolicy getOnInProgress() {
			return this.onInProgress;
		}

		public void setOnInProgress(@Nullable InProgressPolicy onInProgress) {
			this.onInProgress = onInProgress;
		}

		public @Nullable Duration getWaitTimeout() {
			return this.waitTimeout;
		}

		public void setWaitTimeout(@Nullable Duration waitTimeout) {
			this.waitTimeout = waitTimeout;
		}

	}

	/**
	 * Settings of the in-memory store.
	 */
	public static class Memory {

		/**
		 * Maximum number of records the in-memory store keeps.
		 */
		private int maxEntries = 100_000;

		public int getMaxEntries() {
			return this.maxEntries;
		}

		public void setMaxEntries(int maxEntries) {
			this.maxEntries = maxEntries;
		}

	}

	/**
	 * Settings of the Redis store.
	 */
	public static class Redis {

		/**
		 * How long a command of the Redis store, or of its health check, waits for its
		 * reply before the call fails, whatever the connection's own command timeout
		 * (spring.data.redis.timeout), which the application's other uses of Redis keep.
		 * With Lettuce, a new connection is waited for at most the connect timeout plus
		 * this.
		 */
		private Duration commandTimeout = Duration.ofSeconds(2);

		/**
		 * Number of replicas that must acknowledge a claim, a completion or the result a
		 * replay hands out (WAIT after the script, on the same connection) before the
		 * call goes on, so that a failover cannot silently forget it. Too few within
		 * replica-ack-timeout is a store error, and a claim is released first. 0 to wait
		 * for none.
		 */
		private int replicaAcks = 0;

		/**
		 * How long Redis waits for replica-acks replicas to acknowledge a write. The
		 * reply is waited for as long plus the command timeout.
		 */
		private Duration replicaAckTimeout = Duration.ofSeconds(1);

		public Duration getCommandTimeout() {
			return this.commandTimeout;
		}

		public void setCommandTimeout(Duration commandTimeout) {
			this.commandTimeout = commandTimeout;
		}

		public int getReplicaAcks() {
			return this.replicaAcks;
		}

		public void setReplicaAcks(int replicaAcks) {
			this.replicaAcks = replicaAcks;
		}

		public Duration getReplicaAckTimeout() {
			return this.replicaAckTimeout;
		}

		public void setReplicaAckTimeout(Duration replicaAckTimeout) {
			this.replicaAckTimeout = replicaAckTimeout;
		}

	}

	/**
	 * Settings of idempotent HTTP request handlers (Spring MVC and WebFlux).
	 */
	public static class Http {

		/**
		 * Name of the request header that carries the idempotency key of a request
		 * handler whose @Idempotent omits the key.
		 */
		private String keyHeader = "Idempotency-Key";

		/**
		 * Whose requests share idempotency keys: 'principal' scopes them, by default to
		 * each authenticated principal (the principal's name is part of the stored key;
		 * anonymous requests share one scope), or as the application's key scope resolver
		 * bean says; 'none' shares them between all callers.
		 */
		private Scope scope = Scope.PRINCIPAL;

		/**
		 * Longest idempotency key that a request may give in the key header, in
		 * characters (after removing the quotes of an sf-string). A longer key is refused
		 * as invalid.
		 */
		private int maxKeyLength = 255;

		/**
		 * Names of the response headers that a replay of a returned ResponseEntity
		 * carries, besides Content-Type, in any case. Other headers are neither stored
		 * nor replayed; Set-Cookie and Set-Cookie2 never are, even when listed.
		 */
		private List<String> replayedHeaders = new ArrayList<>(
				List.of("Location", "Content-Location", "Content-Language", "ETag", "Last-Modified", "Link"));

		/**
		 * Whether a returned ResponseEntity with a server error status (5xx) is stored
		 * and replayed like any other response. When disabled, its record is released as
		 * for a thrown exception, so that a retry runs the handler again.
		 */
		private boolean replayServerErrors;

		public String getKeyHeader() {
			return this.keyHeader;
		}

		public void setKeyHeader(String keyHeader) {
			this.keyHeader = keyHeader;
		}

		public Scope getScope() {
			return this.scope;
		}

		public void setScope(Scope scope) {
			this.scope = scope;
		}

		public int getMaxKeyLength() {
			return this.maxKeyLength;
		}

		public void setMaxKeyLength(int maxKeyLength) {
			this.maxKeyLength = maxKeyLength;
		}

		public List<String> getReplayedHeaders() {
			return this.replayedHeaders;
		}

		public void setReplayedHeaders(List<String> replayedHeaders) {
			this.replayedHeaders = replayedHeaders;
		}

		public boolean isReplayServerErrors() {
			return this.replayServerErrors;
		}

		public void setReplayServerErrors(boolean replayServerErrors) {
			this.replayServerErrors = replayServerErrors;
		}

		/**
		 * Whose requests share idempotency keys; kept apart from the web module's own
		 * type so that these properties bind without it.
		 */
		public enum Scope {

			/**
			 * Keys are scoped to the caller: its principal, or as the application's key
			 * scope resolver says.
			 */
			PRINCIPAL,

			/**
			 * Every caller shares the keys.
			 */
			NONE

		}

	}

	/**
	 * Settings of listener containers of message brokers (Kafka, RabbitMQ).
	 */
	public static class Messaging {

		/**
		 * Whether to turn on transaction synchronization in Kafka transaction managers
		 * that have none, so that an idempotent call made in a listener container's Kafka
		 * transaction completes its record only once that transaction has committed, and
		 * releases it once it has rolled back. When off, such a record completes when the
		 * method returns, and a rollback after that leaves it done.
		 */
		private boolean kafkaTransactionSynchronization = true;

		/**
		 * Whether the auto-configured Kafka error handler waits out the back-off of a
		 * record (in progress elsewhere, or meeting a store outage) by pausing only that
		 * record's partition, so that the consumer goes on with the other partitions it
		 * was assigned. When off, the consumer thread sleeps through each back-off,
		 * holding every partition of that consumer.
		 */
		private boolean kafkaPausePartitions = true;

		private final InProgressRetry inProgressRetry = new InProgressRetry();

		public boolean isKafkaTransactionSynchronization() {
			return this.kafkaTransactionSynchronization;
		}

		public void setKafkaTransactionSynchronization(boolean kafkaTransactionSynchronization) {
			this.kafkaTransactionSynchronization = kafkaTransactionSynchronization;
		}

		public boolean isKafkaPausePartitions() {
			return this.kafkaPausePartitions;
		}

		public void setKafkaPausePartitions(boolean kafkaPausePartitions) {
			this.kafkaPausePartitions = kafkaPausePartitions;
		}

		public InProgressRetry getInProgressRetry() {
			return this.inProgressRetry;
		}

	}

	/**
	 * Back-off before a message whose key another attempt holds is delivered again. Each
	 * delay is also never longer than the other attempt's lease has left.
	 */
	public static class InProgressRetry {

		/**
		 * Delay before the first redelivery.
		 */
		private Duration initialInterval = InProgressBackOff.DEFAULT.initialInterval();

		/**
		 * Factor by which each delay grows.
		 */
		private double multiplier = InProgressBackOff.DEFAULT.multiplier();

		/**
		 * Longest delay.
		 */
		private Duration maxInterval = InProgressBackOff.DEFAULT.maxInterval();

		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		public void setMaxInterval(Duration maxInterval) {
			this.maxInterval = maxInterval;
		}

		/**
		 * Return these settings as a back-off.
		 * @return the back-off
		 * @throws IllegalArgumentException if the settings contradict each other
		 */
		public InProgressBackOff toBackOff() {
			return new InProgressBackOff(this.initialInterval, this.multiplier, this.maxInterval);
		}

	}

}
