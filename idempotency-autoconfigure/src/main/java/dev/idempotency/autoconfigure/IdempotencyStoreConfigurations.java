package dev.idempotency.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.autoconfigure.IdempotencyProperties.StoreType;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.ReplicaAcks;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The store configurations, chosen by {@code idempotency.store}; imported in this order
 * so that {@code auto} prefers Redis when the application configured it (see
 * {@link RedisConfiguredCondition}). Each backs off when the application defines its own
 * {@link IdempotencyStore}.
 */
final class IdempotencyStoreConfigurations {

	private static final Log logger = LogFactory.getLog(IdempotencyStoreConfigurations.class);

	private static final String ADD_REDIS = "add spring-boot-starter-data-redis and configure spring.data.redis.*";

	private static final String REDIS_STORE = "dev.idempotency.store.redis.RedisIdempotencyStore";

	private static final String REDIS_LIBRARY = "org.springframework.data.redis.connection.RedisConnectionFactory";

	private static final String ADD_REDIS_MODULE = "add dev.idempotency:idempotency-redis (idempotency-starter brings it)";

	private static final String MEMORY_UNDER_AUTO = "No Redis is configured, so idempotency records are kept in "
			+ "memory, in this JVM only: a duplicate that reaches another instance, or arrives after a restart, runs "
			+ "again. Redis on localhost is not assumed. To keep records in Redis, ";

	private static final String CONFIGURE_REDIS = "set spring.data.redis.host (or url, cluster.nodes, sentinel.master "
			+ "and sentinel.nodes), use a Redis @ServiceConnection, define a RedisConnectionFactory bean, or set "
			+ "idempotency.store=redis to use Redis on localhost:6379";

	// Boot's own indicator for the connection factory the starter's Redis library brings:
	// with no Redis configured it checks localhost, and takes the application's health
	// DOWN when nothing answers there.
	private static final String BOOT_REDIS_HEALTH = "redisHealthContributor";

	private static final String BOOT_REDIS_HEALTH_DOWN = " Spring Boot's own 'redis' health indicator still checks "
			+ "localhost:6379 and reports DOWN when nothing answers there: configure Redis, or set "
			+ "management.health.redis.enabled=false.";

	private IdempotencyStoreConfigurations() {
	}

	private static FailureAnalyzedException redisUnavailable(String reason) {
		return new FailureAnalyzedException("idempotency.store=redis but " + reason + "; " + ADD_REDIS,
				"Add spring-boot-starter-data-redis and configure spring.data.redis.* (or define a "
						+ "RedisConnectionFactory bean), or set idempotency.store to 'auto' or 'memory'.");
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = { REDIS_LIBRARY, REDIS_STORE })
	@Conditional(RedisStoreCondition.class)
	static class RedisStoreConfiguration {

		// No connection is made here: the store must not stop the application from
		// starting while Redis is unreachable.
		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		RedisIdempotencyStore idempotencyStore(ObjectProvider<RedisConnectionFactory> connectionFactory,
				IdempotencyProperties properties) {
			RedisConnectionFactory factory = connectionFactory.getIfAvailable();
			if (factory == null) {
				throw redisUnavailable("there is no RedisConnectionFactory bean");
			}
			IdempotencyRedisProperties redis = properties.getRedis();
			return new RedisIdempotencyStore(factory, properties.getKeyPrefix(), redis.getCommandTimeout(),
					new ReplicaAcks(redis.getReplicaAcks(), redis.getReplicaAckTimeout()));
		}

		// The settings it checks are those the store above is made of: an application's
		// own store is left alone
		@Bean
		static LeaseTimeoutWarnings idempotencyLeaseTimeoutWarnings(IdempotencyProperties properties,
				ObjectProvider<IdempotencyStore> store, ObjectProvider<IdempotentOperationSource> operations,
				ObjectProvider<IdempotencyDefaults> defaults) {
			return new LeaseTimeoutWarnings(properties, store, operations, defaults);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(REDIS_LIBRARY)
	@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "redis")
	static class RedisLibraryMissingConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		IdempotencyStore idempotencyStore() {
			throw redisUnavailable("Spring Data Redis is not on the classpath");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = REDIS_LIBRARY)
	@ConditionalOnMissingClass(REDIS_STORE)
	@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "redis")
	static class RedisModuleMissingConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		IdempotencyStore idempotencyStore() {
			throw new FailureAnalyzedException(
					"idempotency.store=redis but the Redis store (idempotency-redis) is not on the classpath",
					"Add dev.idempotency:idempotency-redis, or depend on dev.idempotency:idempotency-starter, "
							+ "which brings it; or set idempotency.store to 'auto' or 'memory'.");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(MemoryStoreCondition.class)
	static class MemoryStoreConfiguration {

		@Bean
		@ConditionalOnMissingBean(IdempotencyStore.class)
		InMemoryIdempotencyStore idempotencyStore(IdempotencyProperties properties,
				ConfigurableListableBeanFactory beanFactory) {
			if (properties.getStore() == StoreType.AUTO) {
				ClassLoader classLoader = beanFactory.getBeanClassLoader();
				String toDo = !ClassUtils.isPresent(REDIS_LIBRARY, classLoader) ? ADD_REDIS
						: !ClassUtils.isPresent(REDIS_STORE, classLoader) ? ADD_REDIS_MODULE : CONFIGURE_REDIS;
				logger.warn(MEMORY_UNDER_AUTO + toDo
						+ "; to keep records in memory on purpose, set idempotency.store=memory."
						+ (beanFactory.containsBeanDefinition(BOOT_REDIS_HEALTH) ? BOOT_REDIS_HEALTH_DOWN : ""));
			}
			else {
				logger.info("Idempotency records are kept in memory, in this JVM only (idempotency.store=memory)");
			}
			return new InMemoryIdempotencyStore(properties.getMemory().getMaxEntries());
		}

	}

	/**
	 * Redis when asked for, or when {@code auto} finds a connection factory and Redis is
	 * configured: Boot defines a factory for localhost whenever a client is on the class
	 * path.
	 */
	static class RedisStoreCondition extends AnyNestedCondition {

		RedisStoreCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "redis")
		static class Explicit {

		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "auto", matchIfMissing = true)
		@ConditionalOnBean(RedisConnectionFactory.class)
		@Conditional(RedisConfiguredCondition.class)
		static class Detected {

		}

	}

	/**
	 * Memory when asked for, or as the fallback of {@code auto}.
	 */
	static class MemoryStoreCondition extends AnyNestedCondition {

		MemoryStoreCondition() {
			super(ConfigurationPhase.PARSE_CONFIGURATION);
		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "memory")
		static class Explicit {

		}

		@ConditionalOnProperty(prefix = "idempotency", name = "store", havingValue = "auto", matchIfMissing = true)
		static class Fallback {

		}

	}

}
