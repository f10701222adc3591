package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.idempotency.engine.StoreFailurePolicy;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.core.Ordered;
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

	/**
	 * Whether to make @Idempotent methods idempotent. When disabled, no method is
	 * intercepted.
	 */
	private boolean enabled = true;

	/**
	 * Store of idempotency records. 'auto' uses Redis when the application configures it
	 * (a spring.data.redis connection property such as host or url, a Redis
	 * ConnectionDetails or RedisConnectionFactory bean of its own), else JDBC when
	 * idempotency-jdbc is on the class path and there is a DataSource bean, and memory
	 * otherwise. 'dynamodb' only when asked for: 'auto' never picks it.
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
	private final Map<String, IdempotencyOperationProperties> operations = new LinkedHashMap<>();

	@NestedConfigurationProperty
	private final IdempotencyMemoryProperties memory = new IdempotencyMemoryProperties();

	@NestedConfigurationProperty
	private final IdempotencyRedisProperties redis = new IdempotencyRedisProperties();

	@NestedConfigurationProperty
	private final IdempotencyJdbcProperties jdbc = new IdempotencyJdbcProperties();

	@NestedConfigurationProperty
	private final IdempotencyDynamoDbProperties dynamodb = new IdempotencyDynamoDbProperties();

	@NestedConfigurationProperty
	private final IdempotencyHttpProperties http = new IdempotencyHttpProperties();

	@NestedConfigurationProperty
	private final IdempotencyMessagingProperties messaging = new IdempotencyMessagingProperties();

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

	public Map<String, IdempotencyOperationProperties> getOperations() {
		return this.operations;
	}

	public IdempotencyMemoryProperties getMemory() {
		return this.memory;
	}

	public IdempotencyRedisProperties getRedis() {
		return this.redis;
	}

	public IdempotencyJdbcProperties getJdbc() {
		return this.jdbc;
	}

	public IdempotencyDynamoDbProperties getDynamodb() {
		return this.dynamodb;
	}

	public IdempotencyHttpProperties getHttp() {
		return this.http;
	}

	public IdempotencyMessagingProperties getMessaging() {
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
		IdempotencyPropertiesValidator.validate((IdempotencyProperties) target, errors);
	}

	/**
	 * Store of idempotency records.
	 */
	public enum StoreType {

		/**
		 * Redis when the application configures it, else JDBC when idempotency-jdbc and a
		 * DataSource bean are present, memory otherwise.
		 */
		AUTO,

		/**
		 * Redis, through the RedisConnectionFactory bean, configured or not.
		 */
		REDIS,

		/**
		 * A table of the application's PostgreSQL, MariaDB or MySQL database, through the
		 * DataSource bean (requires idempotency-jdbc). Completions join the caller's
		 * Spring transaction on that DataSource.
		 */
		JDBC,

		/**
		 * A DynamoDB table, through the application's DynamoDbClient bean or one built
		 * from idempotency.dynamodb.* (requires idempotency-dynamodb). Never chosen by
		 * 'auto'.
		 */
		DYNAMODB,

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

}
