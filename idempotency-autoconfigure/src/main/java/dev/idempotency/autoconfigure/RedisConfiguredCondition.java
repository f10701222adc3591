package dev.idempotency.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.MethodMetadata;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Matches when the application says where its Redis is, rather than leaving Spring Boot
 * to assume {@code localhost:6379}: Boot defines a {@code RedisConnectionFactory}
 * whenever a Redis client is on the class path, which the starter always brings, so that
 * bean alone says nothing. Any one of these does:
 * <ul>
 * <li>a {@code spring.data.redis.*} property that tells where Redis is or how to log in
 * to it ({@link #CONNECTION_PROPERTIES}), set to a value that is not empty
 * ({@code ssl.enabled} only to {@code true}); properties that only tune a client
 * ({@code timeout}, {@code client-type}, {@code lettuce.*}, {@code repositories.*}, ...)
 * do not;</li>
 * <li>a {@code DataRedisConnectionDetails} bean other than the one Boot derives from
 * those properties, such as one of a Testcontainers {@code @ServiceConnection} or of
 * Docker Compose;</li>
 * <li>a {@link RedisConnectionFactory} bean, or a {@code RedisStandaloneConfiguration},
 * {@code RedisSentinelConfiguration}, {@code RedisClusterConfiguration},
 * {@code RedisStaticMasterReplicaConfiguration} or {@code RedisSocketConfiguration} bean
 * that Boot builds its factory from, not defined by Boot's Redis auto-configuration.</li>
 * </ul>
 * Bean definitions are looked up in this context and its ancestors, whose connection
 * factory the store uses when this context has none, and only those registered before the
 * idempotency auto-configuration (which comes after Boot's Redis auto-configuration):
 * those of the application's configuration classes and of auto-configurations ordered
 * before it.
 */
class RedisConfiguredCondition extends SpringBootCondition implements ConfigurationCondition {

	/**
	 * Properties under {@code spring.data.redis} that configure Redis.
	 */
	static final List<String> CONNECTION_PROPERTIES = List.of("url", "host", "port", "username", "password", "database",
			"ssl.enabled", "ssl.bundle", "cluster.nodes", "sentinel.master", "sentinel.nodes", "sentinel.username",
			"sentinel.password", "masterreplica.nodes");

	private static final String PREFIX = "spring.data.redis.";

	private static final String BOOT_REDIS_PACKAGE = "org.springframework.boot.data.redis.autoconfigure.";

	private static final String CONNECTION_DETAILS = BOOT_REDIS_PACKAGE + "DataRedisConnectionDetails";

	private static final List<Class<?>> CONNECTION_BEAN_TYPES = List.of(RedisConnectionFactory.class,
			RedisStandaloneConfiguration.class, RedisSentinelConfiguration.class, RedisClusterConfiguration.class,
			RedisStaticMasterReplicaConfiguration.class, RedisSocketConfiguration.class);

	@Override
	public ConfigurationPhase getConfigurationPhase() {
		return ConfigurationPhase.REGISTER_BEAN;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConditionMessage.Builder message = ConditionMessage.forCondition("Redis configured");
		String property = connectionProperty(context.getEnvironment());
		if (property != null) {
			return ConditionOutcome.match(message.found("property").items(property));
		}
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		if (beanFactory != null) {
			String bean = applicationBean(beanFactory, context.getClassLoader());
			if (bean != null) {
				return ConditionOutcome.match(message.found("bean").items(bean));
			}
		}
		return ConditionOutcome.noMatch(message.because("no " + PREFIX + "* connection property is set and the "
				+ "application defines no Redis connection details, configuration or connection factory bean"));
	}

	private static @Nullable String connectionProperty(Environment environment) {
		Binder binder = Binder.get(environment);
		for (String name : CONNECTION_PROPERTIES) {
			String property = PREFIX + name;
			boolean set;
			if (name.endsWith("nodes")) {
				set = !binder.bind(property, Bindable.listOf(String.class)).orElse(List.of()).isEmpty();
			}
			else if (name.equals("ssl.enabled")) {
				// Switching SSL off, as a profile may, says nothing about where Redis is
				set = binder.bind(property, String.class)
					.map((value) -> value.trim().equalsIgnoreCase("true"))
					.orElse(false);
			}
			else {
				set = binder.bind(property, String.class).map(StringUtils::hasText).orElse(false);
			}
			if (set) {
				return property;
			}
		}
		return null;
	}

	private static @Nullable String applicationBean(ConfigurableListableBeanFactory beanFactory,
			@Nullable ClassLoader classLoader) {
		if (ClassUtils.isPresent(CONNECTION_DETAILS, classLoader)) {
			String bean = applicationBean(beanFactory, ClassUtils.resolveClassName(CONNECTION_DETAILS, classLoader));
			if (bean != null) {
				return bean;
			}
		}
		for (Class<?> type : CONNECTION_BEAN_TYPES) {
			String bean = applicationBean(beanFactory, type);
			if (bean != null) {
				return bean;
			}
		}
		return null;
	}

	// Each factory of the hierarchy on its own: a definition is looked up where it is.
	private static @Nullable String applicationBean(ConfigurableListableBeanFactory beanFactory, Class<?> type) {
		for (BeanFactory current = beanFactory; current instanceof ConfigurableListableBeanFactory listable; current = listable
			.getParentBeanFactory()) {
			for (String name : listable.getBeanNamesForType(type, true, false)) {
				if (!isDefinedByBootsRedisAutoConfiguration(listable, name)) {
					return "'" + name + "' (" + type.getSimpleName() + ")";
				}
			}
		}
		return null;
	}

	private static boolean isDefinedByBootsRedisAutoConfiguration(ConfigurableListableBeanFactory beanFactory,
			String name) {
		BeanDefinition definition;
		try {
			definition = beanFactory.getBeanDefinition(name);
		}
		catch (NoSuchBeanDefinitionException ex) {
			// A singleton registered as an instance: the application's own
			return false;
		}
		MethodMetadata factoryMethod = (definition instanceof AnnotatedBeanDefinition annotated)
				? annotated.getFactoryMethodMetadata() : null;
		return factoryMethod != null && factoryMethod.getDeclaringClassName().startsWith(BOOT_REDIS_PACKAGE);
	}

}
