package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.StoreFailurePolicy;
import dev.idempotency.messaging.InProgressBackOff;
import dev.idempotency.web.IdempotencyProblems;
import dev.idempotency.web.KeyScope;
import dev.idempotency.web.RequestKeys;
import dev.idempotency.web.ResponseEntityResultCodec;

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

	/**
	 * Return whether to make {@code @Idempotent} methods idempotent.
	 * @return whether to make {@code @Idempotent} methods idempotent
	 */
	public boolean isEnabled() {
		return this.enabled;
	}

	/**
	 * Set whether to make {@code @Idempotent} methods idempotent.
	 * @param enabled whether to make {@code @Idempotent} methods idempotent
	 */
	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	/**
	 * Return the store of idempotency records.
	 * @return the store type
	 */
	public StoreType getStore() {
		return this.store;
	}

	/**
	 * Set the store of idempotency records.
	 * @param store the store type
	 */
	public void setStore(StoreType store) {
		this.store = store;
	}

	/**
	 * Return the prefix of the Redis keys of idempotency records.
	 * @return the key prefix
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Set the prefix of the Redis keys of idempotency records.
	 * @param keyPrefix the key prefix
	 */
	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Return the lease of an in-progress attempt.
	 * @return the lease
	 */
	public Duration getLockTimeout() {
		return this.lockTimeout;
	}

	/**
	 * Set the lease of an in-progress attempt.
	 * @param lockTimeout the lease
	 */
	public void setLockTimeout(Duration lockTimeout) {
		this.lockTimeout = lockTimeout;
	}

	/**
	 * Return how long a completed result is kept and replayed to duplicates.
	 * @return the retention
	 */
	public Duration getRetention() {
		return this.retention;
	}

	/**
	 * Set how long a completed result is kept and replayed to duplicates.
	 * @param retention the retention
	 */
	public void setRetention(Duration retention) {
		this.retention = retention;
	}

	/**
	 * Return what a call does while another attempt for the same key holds a live lease.
	 * @return the in-progress policy
	 */
	public InProgressPolicy getOnInProgress() {
		return this.onInProgress;
	}

	/**
	 * Set what a call does while another attempt for the same key holds a live lease.
	 * @param onInProgress the in-progress policy
	 */
	public void setOnInProgress(InProgressPolicy onInProgress) {
		this.onInProgress = onInProgress;
	}

	/**
	 * Return the maximum time a call waits for another attempt.
	 * @return the wait timeout
	 */
	public Duration getWaitTimeout() {
		return this.waitTimeout;
	}

	/**
	 * Set the maximum time a call waits for another attempt.
	 * @param waitTimeout the wait timeout
	 */
	public void setWaitTimeout(Duration waitTimeout) {
		this.waitTimeout = waitTimeout;
	}

	/**
	 * Return what a call does when the store cannot be reached to acquire its record.
	 * @return the store failure policy
	 */
	public StoreFailurePolicy getOnStoreFailure() {
		return this.onStoreFailure;
	}

	/**
	 * Set what a call does when the store cannot be reached to acquire its record.
	 * @param onStoreFailure the store failure policy
	 */
	public void setOnStoreFailure(StoreFailurePolicy onStoreFailure) {
		this.onStoreFailure = onStoreFailure;
	}

	/**
	 * Return the maximum length of a key.
	 * @return the maximum key length
	 */
	public int getMaxKeyLength() {
		return this.maxKeyLength;
	}

	/**
	 * Set the maximum length of a key.
	 * @param maxKeyLength the maximum key length
	 */
	public void setMaxKeyLength(int maxKeyLength) {
		this.maxKeyLength = maxKeyLength;
	}

	/**
	 * Return the maximum size of an encoded result.
	 * @return the maximum result size
	 */
	public DataSize getMaxResultSize() {
		return this.maxResultSize;
	}

	/**
	 * Set the maximum size of an encoded result.
	 * @param maxResultSize the maximum result size
	 */
	public void setMaxResultSize(DataSize maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	/**
	 * Return the order of the advisor that intercepts {@code @Idempotent} methods.
	 * @return the advisor order
	 */
	public int getAdvisorOrder() {
		return this.advisorOrder;
	}

	/**
	 * Set the order of the advisor that intercepts {@code @Idempotent} methods.
	 * @param advisorOrder the advisor order
	 */
	public void setAdvisorOrder(int advisorOrder) {
		this.advisorOrder = advisorOrder;
	}

	/**
	 * Return the settings of single operations, by operation name.
	 * @return the settings by operation name
	 */
	public Map<String, Operation> getOperations() {
		return this.operations;
	}

	/**
	 * Return the settings of the in-memory store.
	 * @return the in-memory store settings
	 */
	public Memory getMemory() {
		return this.memory;
	}

	/**
	 * Return the settings of the Redis store.
	 * @return the Redis store settings
	 */
	public Redis getRedis() {
		return this.redis;
	}

	/**
	 * Return the settings of idempotent HTTP request handlers.
	 * @return the HTTP settings
	 */
	public Http getHttp() {
		return this.http;
	}

	/**
	 * Return the settings of listener containers of message brokers.
	 * @return the messaging settings
	 */
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

		/**
		 * Return the lease of an in-progress attempt of this operation.
		 * @return the lease, or {@code null} to fall back
		 */
		public @Nullable Duration getLockTimeout() {
			return this.lockTimeout;
		}

		/**
		 * Set the lease of an in-progress attempt of this operation.
		 * @param lockTimeout the lease, or {@code null} to fall back
		 */
		public void setLockTimeout(@Nullable Duration lockTimeout) {
			this.lockTimeout = lockTimeout;
		}

		/**
		 * Return how long a completed result of this operation is kept and replayed.
		 * @return the retention, or {@code null} to fall back
		 */
		public @Nullable Duration getRetention() {
			return this.retention;
		}

		/**
		 * Set how long a completed result of this operation is kept and replayed.
		 * @param retention the retention, or {@code null} to fall back
		 */
		public void setRetention(@Nullable Duration retention) {
			this.retention = retention;
		}

		/**
		 * Return what a call of this operation does while another attempt for the same
		 * key holds a live lease.
		 * @return the in-progress policy, or {@code null} to fall back
		 */
		public @Nullable InProgressPolicy getOnInProgress() {
			return this.onInProgress;
		}

		/**
		 * Set what a call of this operation does while another attempt for the same key
		 * holds a live lease.
		 * @param onInProgress the in-progress policy, or {@code null} to fall back
		 */
		public void setOnInProgress(@Nullable InProgressPolicy onInProgress) {
			this.onInProgress = onInProgress;
		}

		/**
		 * Return the maximum time a call of this operation waits for another attempt.
		 * @return the wait timeout, or {@code null} to fall back
		 */
		public @Nullable Duration getWaitTimeout() {
			return this.waitTimeout;
		}

		/**
		 * Set the maximum time a call of this operation waits for another attempt.
		 * @param waitTimeout the wait timeout, or {@code null} to fall back
		 */
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

		/**
		 * Return the maximum number of records the in-memory store keeps.
		 * @return the maximum number of records
		 */
		public int getMaxEntries() {
			return this.maxEntries;
		}

		/**
		 * Set the maximum number of records the in-memory store keeps.
		 * @param maxEntries the maximum number of records
		 */
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

		/**
		 * Return how long a command of the Redis store, or of its health check, waits for
		 * its reply.
		 * @return the command timeout
		 */
		public Duration getCommandTimeout() {
			return this.commandTimeout;
		}

		/**
		 * Set how long a command of the Redis store, or of its health check, waits for
		 * its reply.
		 * @param commandTimeout the command timeout
		 */
		public void setCommandTimeout(Duration commandTimeout) {
			this.commandTimeout = commandTimeout;
		}

		/**
		 * Return the number of replicas that must acknowledge a write of the Redis store.
		 * @return the number of replicas, 0 for none
		 */
		public int getReplicaAcks() {
			return this.replicaAcks;
		}

		/**
		 * Set the number of replicas that must acknowledge a write of the Redis store.
		 * @param replicaAcks the number of replicas, 0 for none
		 */
		public void setReplicaAcks(int replicaAcks) {
			this.replicaAcks = replicaAcks;
		}

		/**
		 * Return how long Redis waits for the replicas to acknowledge a write.
		 * @return the acknowledgement timeout
		 */
		public Duration getReplicaAckTimeout() {
			return this.replicaAckTimeout;
		}

		/**
		 * Set how long Redis waits for the replicas to acknowledge a write.
		 * @param replicaAckTimeout the acknowledgement timeout
		 */
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
		private String keyHeader = IdempotencyProblems.KEY_HEADER;

		/**
		 * Whose requests share idempotency keys: 'principal' scopes them, by default to
		 * each authenticated principal (the principal's name is part of the stored key;
		 * anonymous requests share one scope), or as the application's key scope resolver
		 * bean says; 'none' shares them between all callers.
		 */
		private KeyScope scope = KeyScope.PRINCIPAL;

		/**
		 * Longest idempotency key that a request may give in the key header, in
		 * characters (after removing the quotes of an sf-string). A longer key is refused
		 * as invalid.
		 */
		private int maxKeyLength = RequestKeys.DEFAULT_MAX_KEY_LENGTH;

		/**
		 * Names of the response headers that a replay of a returned ResponseEntity
		 * carries, besides Content-Type, in any case. Other headers are neither stored
		 * nor replayed; Set-Cookie and Set-Cookie2 never are, even when listed.
		 */
		private List<String> replayedHeaders = new ArrayList<>(ResponseEntityResultCodec.DEFAULT_REPLAYED_HEADERS);

		/**
		 * Whether a returned ResponseEntity with a server error status (5xx) is stored
		 * and replayed like any other response. When disabled, its record is released as
		 * for a thrown exception, so that a retry runs the handler again.
		 */
		private boolean replayServerErrors;

		/**
		 * Return the name of the request header that carries the idempotency key.
		 * @return the header name
		 */
		public String getKeyHeader() {
			return this.keyHeader;
		}

		/**
		 * Set the name of the request header that carries the idempotency key.
		 * @param keyHeader the header name
		 */
		public void setKeyHeader(String keyHeader) {
			this.keyHeader = keyHeader;
		}

		/**
		 * Return whose requests share idempotency keys.
		 * @return the key scope
		 */
		public KeyScope getScope() {
			return this.scope;
		}

		/**
		 * Set whose requests share idempotency keys.
		 * @param scope the key scope
		 */
		public void setScope(KeyScope scope) {
			this.scope = scope;
		}

		/**
		 * Return the longest idempotency key that a request may give in the key header.
		 * @return the maximum key length, in characters
		 */
		public int getMaxKeyLength() {
			return this.maxKeyLength;
		}

		/**
		 * Set the longest idempotency key that a request may give in the key header.
		 * @param maxKeyLength the maximum key length, in characters
		 */
		public void setMaxKeyLength(int maxKeyLength) {
			this.maxKeyLength = maxKeyLength;
		}

		/**
		 * Return the names of the response headers that a replay of a returned
		 * ResponseEntity carries.
		 * @return the header names
		 */
		public List<String> getReplayedHeaders() {
			return this.replayedHeaders;
		}

		/**
		 * Set the names of the response headers that a replay of a returned
		 * ResponseEntity carries.
		 * @param replayedHeaders the header names
		 */
		public void setReplayedHeaders(List<String> replayedHeaders) {
			this.replayedHeaders = replayedHeaders;
		}

		/**
		 * Return whether a returned ResponseEntity with a server error status is stored
		 * and replayed.
		 * @return whether a returned ResponseEntity with a server error status is stored
		 * and replayed
		 */
		public boolean isReplayServerErrors() {
			return this.replayServerErrors;
		}

		/**
		 * Set whether a returned ResponseEntity with a server error status is stored and
		 * replayed.
		 * @param replayServerErrors whether a returned ResponseEntity with a server error
		 * status is stored and replayed
		 */
		public void setReplayServerErrors(boolean replayServerErrors) {
			this.replayServerErrors = replayServerErrors;
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

		/**
		 * Return whether to turn on transaction synchronization in Kafka transaction
		 * managers that have none.
		 * @return whether to turn on transaction synchronization in Kafka transaction
		 * managers that have none
		 */
		public boolean isKafkaTransactionSynchronization() {
			return this.kafkaTransactionSynchronization;
		}

		/**
		 * Set whether to turn on transaction synchronization in Kafka transaction
		 * managers that have none.
		 * @param kafkaTransactionSynchronization whether to turn on transaction
		 * synchronization in Kafka transaction managers that have none
		 */
		public void setKafkaTransactionSynchronization(boolean kafkaTransactionSynchronization) {
			this.kafkaTransactionSynchronization = kafkaTransactionSynchronization;
		}

		/**
		 * Return whether the auto-configured Kafka error handler pauses only the
		 * partition of a record that it backs off.
		 * @return whether the auto-configured Kafka error handler pauses only the
		 * partition of a record that it backs off
		 */
		public boolean isKafkaPausePartitions() {
			return this.kafkaPausePartitions;
		}

		/**
		 * Set whether the auto-configured Kafka error handler pauses only the partition
		 * of a record that it backs off.
		 * @param kafkaPausePartitions whether the auto-configured Kafka error handler
		 * pauses only the partition of a record that it backs off
		 */
		public void setKafkaPausePartitions(boolean kafkaPausePartitions) {
			this.kafkaPausePartitions = kafkaPausePartitions;
		}

		/**
		 * Return the back-off before a message whose key another attempt holds is
		 * delivered again.
		 * @return the back-off settings
		 */
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

		/**
		 * Return the delay before the first redelivery.
		 * @return the first delay
		 */
		public Duration getInitialInterval() {
			return this.initialInterval;
		}

		/**
		 * Set the delay before the first redelivery.
		 * @param initialInterval the first delay
		 */
		public void setInitialInterval(Duration initialInterval) {
			this.initialInterval = initialInterval;
		}

		/**
		 * Return the factor by which each delay grows.
		 * @return the factor
		 */
		public double getMultiplier() {
			return this.multiplier;
		}

		/**
		 * Set the factor by which each delay grows.
		 * @param multiplier the factor
		 */
		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		/**
		 * Return the longest delay.
		 * @return the longest delay
		 */
		public Duration getMaxInterval() {
			return this.maxInterval;
		}

		/**
		 * Set the longest delay.
		 * @param maxInterval the longest delay
		 */
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
