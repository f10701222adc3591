package dev.idempotency.autoconfigure;

import java.time.Duration;

import tools.jackson.databind.json.JsonMapper;

import dev.idempotency.IdempotentExecutor;
import dev.idempotency.aop.IdempotentAdvisor;
import dev.idempotency.aop.IdempotentOperationSource;
import dev.idempotency.codec.JacksonPayloadFingerprinter;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.codec.PayloadFingerprinter;
import dev.idempotency.codec.ResultCodec;
import dev.idempotency.engine.DefaultIdempotentExecutor;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.engine.IdempotencyListener;
import dev.idempotency.engine.IdempotencyObserver;
import dev.idempotency.engine.IdempotencyShutdownLifecycle;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.aop.RequestBinding;
import dev.idempotency.aop.RequestHandlerMethods;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.config.EmbeddedValueResolver;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.context.LifecycleProperties;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration that makes {@code @Idempotent} methods run once per key: the engine
 * on a store chosen by {@code idempotency.store}, the result codec, the
 * {@link IdempotentExecutor}, the advisor that intercepts annotated methods, and the
 * orderly shutdown of the engine. Every bean backs off when the application defines its
 * own.
 * <p>
 * The advisor is created while bean post-processors are still being registered, so it and
 * the beans it needs at once are infrastructure beans from static methods; the engine,
 * the store and the codec are looked up on first use.
 *
 * @see IdempotencyProperties
 */
@AutoConfiguration(after = { DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class },
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "idempotency.enabled", matchIfMissing = true)
@EnableConfigurationProperties
@Import({ IdempotencyAutoProxyRegistrar.class, IdempotencyStoreConfigurations.RedisStoreConfiguration.class,
		IdempotencyStoreConfigurations.RedisLibraryMissingConfiguration.class,
		IdempotencyStoreConfigurations.RedisModuleMissingConfiguration.class,
		IdempotencyJdbcStoreConfigurations.JdbcStoreConfiguration.class,
		IdempotencyJdbcStoreConfigurations.JdbcModuleMissingConfiguration.class,
		IdempotencyDynamoDbStoreConfigurations.DynamoDbStoreConfiguration.class,
		IdempotencyDynamoDbStoreConfigurations.DynamoDbModuleMissingConfiguration.class,
		IdempotencyStoreConfigurations.MemoryStoreConfiguration.class })
public final class IdempotencyAutoConfiguration {

	// Spring's DefaultLifecycleProcessor's, which applies without Boot's lifecycle
	// auto-configuration
	private static final Duration SPRING_TIMEOUT_PER_SHUTDOWN_PHASE = Duration.ofSeconds(10);

	// Registered here instead of through @EnableConfigurationProperties so that it can be
	// an infrastructure bean: the advisor needs it before all post-processors exist.
	@Bean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotencyProperties idempotencyProperties() {
		return new IdempotencyProperties();
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotencyDefaults idempotencyDefaults(IdempotencyProperties properties, Environment environment) {
		return IdempotencyDefaultsMapper.map(properties,
				OperationNames.complete(properties.getOperations(), Binder.get(environment)));
	}

	@Bean
	@ConditionalOnMissingBean(ResultCodec.class)
	JacksonResultCodec idempotencyResultCodec(ObjectProvider<JsonMapper> jsonMapper) {
		return new JacksonResultCodec(jsonMapper.getIfAvailable(JsonMapper::shared));
	}

	@Bean
	@ConditionalOnMissingBean(PayloadFingerprinter.class)
	JacksonPayloadFingerprinter idempotencyPayloadFingerprinter(ObjectProvider<JsonMapper> jsonMapper) {
		return new JacksonPayloadFingerprinter(jsonMapper.getIfAvailable(JsonMapper::shared));
	}

	@Bean
	@ConditionalOnMissingBean
	IdempotencyEngine idempotencyEngine(IdempotencyStore store, IdempotencyDefaults defaults,
			ObjectProvider<IdempotencyListener> listeners, ObjectProvider<IdempotencyObserver> observer) {
		return new IdempotencyEngine(store, defaults, listeners.orderedStream().toList(),
				observer.getIfUnique(() -> IdempotencyObserver.NONE));
	}

	// Its phase is bounded, like every phase, by
	// spring.lifecycle.timeout-per-shutdown-phase
	@Bean
	@ConditionalOnMissingBean
	IdempotencyShutdownLifecycle idempotencyShutdownLifecycle(IdempotencyEngine engine,
			ObjectProvider<LifecycleProperties> lifecycle) {
		LifecycleProperties properties = lifecycle.getIfAvailable();
		return new IdempotencyShutdownLifecycle(engine,
				(properties != null) ? properties.getTimeoutPerShutdownPhase() : SPRING_TIMEOUT_PER_SHUTDOWN_PHASE);
	}

	@Bean
	@ConditionalOnMissingBean(IdempotentExecutor.class)
	DefaultIdempotentExecutor idempotentExecutor(IdempotencyEngine engine, ResultCodec codec,
			PayloadFingerprinter fingerprinter) {
		return new DefaultIdempotentExecutor(engine, codec, fingerprinter);
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentOperationSource idempotentOperationSource(IdempotencyDefaults defaults,
			IdempotencyProperties properties, ObjectProvider<ResultCodec> codec,
			ObjectProvider<RequestHandlerMethods> handlerMethods, ConfigurableBeanFactory beanFactory) {
		// So that a request handler's ResponseEntity replays with its status and headers
		ResultCodec codecs = RequestHandlerSupport.codec(new DeferredResultCodec(codec), properties.getHttp());
		// The application's, for a web stack of its own, as its RequestBinding bean is
		return new IdempotentOperationSource(defaults, codecs, new EmbeddedValueResolver(beanFactory),
				handlerMethods.getIfUnique(RequestHandlerSupport::handlerMethods));
	}

	// Annotated methods are resolved while their beans are proxied: all of them are known
	// only once every singleton exists.
	@Bean
	IdempotencyStartupReport idempotencyStartupReport(ObjectProvider<IdempotencyStore> store,
			ObjectProvider<IdempotentOperationSource> operations, ObjectProvider<IdempotencyDefaults> defaults,
			IdempotencyProperties properties) {
		return new IdempotencyStartupReport(store, operations, defaults, properties.getStore());
	}

	@Bean
	@ConditionalOnMissingBean
	@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
	static IdempotentAdvisor idempotentAdvisor(IdempotentOperationSource operationSource,
			ObjectProvider<IdempotencyEngine> engine, ObjectProvider<PayloadFingerprinter> fingerprinter,
			IdempotencyProperties properties, BeanFactory beanFactory, ObjectProvider<RequestBinding> requestBinding) {
		IdempotentAdvisor advisor = new IdempotentAdvisor(operationSource, engine::getObject, fingerprinter::getObject,
				new BeanFactoryResolver(beanFactory));
		advisor.setOrder(properties.getAdvisorOrder());
		advisor.setRequestBinding(requestBinding::getIfAvailable);
		return advisor;
	}

}
