package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.health.DataRedisHealthContributorAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the store selection of {@link IdempotencyAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyStoreConfigurationsTests {

	private static final String MEMORY_WARNING = "No Redis is configured, so idempotency records are kept in memory";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

	private final ApplicationContextRunner bootRedisRunner = this.contextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));

	@Test
	void autoPicksMemoryWithWarningWhenRedisIsNotConfiguredThoughBootDefinesAConnectionFactory(CapturedOutput output) {
		this.bootRedisRunner.run((context) -> {
			assertThat(context).hasNotFailed()
				.hasSingleBean(RedisConnectionFactory.class)
				.hasSingleBean(InMemoryIdempotencyStore.class)
				.doesNotHaveBean(RedisIdempotencyStore.class);
		});
		assertThat(output).contains(MEMORY_WARNING)
			.contains("Redis on localhost is not assumed")
			.contains("set spring.data.redis.host")
			.contains("idempotency.store=redis");
	}

	@Test
	void memoryWarningSaysThatBootsRedisHealthIndicatorStillChecksLocalhost(CapturedOutput output) {
		this.bootRedisRunner.withConfiguration(AutoConfigurations.of(DataRedisHealthContributorAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.hasBean("redisHealthContributor")
				.hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING).contains("management.health.redis.enabled=false");
	}

	@Test
	void memoryWarningSaysNothingOfBootsRedisHealthIndicatorWhenItIsOff(CapturedOutput output) {
		this.bootRedisRunner.withConfiguration(AutoConfigurations.of(DataRedisHealthContributorAutoConfiguration.class))
			.withPropertyValues("management.health.redis.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean("redisHealthContributor"));
		assertThat(output).contains(MEMORY_WARNING).doesNotContain("management.health.redis.enabled");
	}

	@Test
	void autoPicksMemoryWhenOnlyPropertiesThatTuneTheClientAreSet(CapturedOutput output) {
		this.bootRedisRunner
			.withPropertyValues("spring.data.redis.timeout=1s", "spring.data.redis.client-name=app",
					"spring.data.redis.repositories.enabled=false", "spring.data.redis.lettuce.pool.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING);
	}

	@Test
	void autoPicksMemoryWhenSslIsSwitchedOffOnly(CapturedOutput output) {
		this.bootRedisRunner.withPropertyValues("spring.data.redis.ssl.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING);
	}

	@ParameterizedTest
	@ValueSource(strings = { "spring.data.redis.host=redis.internal", "spring.data.redis.port=6380",
			"spring.data.redis.url=redis://redis.internal:6379", "spring.data.redis.password=secret",
			"spring.data.redis.database=2", "spring.data.redis.cluster.nodes=node-1:7000,node-2:7000",
			"spring.data.redis.cluster.nodes[0]=node-1:7000", "spring.data.redis.masterreplica.nodes=node-1:6379",
			"spring.data.redis.ssl.enabled=true" })
	void autoPicksRedisWhenAConnectionPropertyIsSet(String property, CapturedOutput output) {
		this.bootRedisRunner.withPropertyValues(property)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class));
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void autoPicksRedisWhenASentinelIsConfigured() {
		this.bootRedisRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=sentinel-1:26379")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void autoPicksRedisFromConnectionDetailsOfTheApplication(CapturedOutput output) {
		int port = unusedPort();
		this.bootRedisRunner
			.withBean("serviceConnection", DataRedisConnectionDetails.class, () -> new DataRedisConnectionDetails() {

				@Override
				public Standalone getStandalone() {
					return Standalone.of("127.0.0.1", port);
				}

			})
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
				assertThat(context.getBean(RedisIdempotencyStore.class))
					.hasToString("Redis store at 127.0.0.1:" + port + " (key prefix 'idempotency:')");
			});
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void autoPicksRedisFromAConnectionConfigurationOfTheApplication() {
		this.bootRedisRunner
			.withBean(RedisStandaloneConfiguration.class, () -> new RedisStandaloneConfiguration("127.0.0.1", 6390))
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
				assertThat(context.getBean(RedisIdempotencyStore.class))
					.hasToString("Redis store at 127.0.0.1:6390 (key prefix 'idempotency:')");
			});
	}

	@Test
	void autoPicksRedisWhenTheApplicationDefinesAConnectionFactory(CapturedOutput output) {
		this.contextRunner.withBean(RedisConnectionFactory.class, () -> unreachableRedis()).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
			assertThat(context.getBean(IdempotencyEngine.class).getStore())
				.isSameAs(context.getBean(IdempotencyStore.class));
		});
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void autoPicksRedisWhenAConfigurationClassOfTheApplicationDefinesAConnectionFactory() {
		this.bootRedisRunner.withUserConfiguration(RedisConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void autoPicksRedisWhenAParentContextDefinesTheApplicationsConnectionFactory(CapturedOutput output) {
		new ApplicationContextRunner().withUserConfiguration(RedisConfiguration.class)
			.run((parent) -> this.bootRedisRunner.withParent(parent).run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
				assertThat(context.getBean(RedisIdempotencyStore.class).toString())
					.startsWith("Redis store at localhost:" + parent.getBean(LettuceConnectionFactory.class).getPort());
			}));
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void autoPicksMemoryWhenAParentContextHasOnlySpringBootsConnectionFactory(CapturedOutput output) {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.run((parent) -> this.bootRedisRunner.withParent(parent)
				.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class)));
		assertThat(output).contains(MEMORY_WARNING);
	}

	@Test
	void autoPicksRedisFromSpringBootRedisAutoConfigurationWhileRedisIsUnreachable() {
		this.bootRedisRunner.withPropertyValues("spring.data.redis.port=" + unusedPort())
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void autoPicksMemoryWithWarningWhenThereIsNoConnectionFactoryBean(CapturedOutput output) {
		this.contextRunner.withPropertyValues("spring.data.redis.host=redis.internal")
			.run((context) -> assertThat(context).hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING);
	}

	@Test
	void autoPicksMemoryWithWarningWithoutSpringDataRedis(CapturedOutput output) {
		this.bootRedisRunner.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING).contains("add spring-boot-starter-data-redis");
	}

	@Test
	void redisIsUsedWhenAskedForWithoutAnyRedisConfiguration() {
		this.bootRedisRunner.withPropertyValues("idempotency.store=redis").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
			assertThat(context.getBean(RedisIdempotencyStore.class))
				.hasToString("Redis store at localhost:6379 (key prefix 'idempotency:')");
		});
	}

	@Test
	void memoryIsUsedWhenAskedForEvenWithConnectionFactoryBean(CapturedOutput output) {
		this.contextRunner.withPropertyValues("idempotency.store=memory")
			.withBean(RedisConnectionFactory.class, () -> unreachableRedis())
			.run((context) -> assertThat(context).hasSingleBean(InMemoryIdempotencyStore.class)
				.doesNotHaveBean(RedisIdempotencyStore.class));
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void redisIsUsedWhenAskedFor() {
		this.contextRunner.withPropertyValues("idempotency.store=redis")
			.withBean(RedisConnectionFactory.class, () -> unreachableRedis())
			.run((context) -> assertThat(context).hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void redisFailsStartupWithoutConnectionFactoryBean() {
		this.contextRunner.withPropertyValues("idempotency.store=redis")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessage("idempotency.store=redis but there is no RedisConnectionFactory bean; "
						+ "add spring-boot-starter-data-redis and configure spring.data.redis.*"));
	}

	@Test
	void redisFailsStartupWithoutSpringDataRedis() {
		this.contextRunner.withPropertyValues("idempotency.store=redis")
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessage("idempotency.store=redis but Spring Data Redis is not on the classpath; "
						+ "add spring-boot-starter-data-redis and configure spring.data.redis.*"));
	}

	@Test
	void everyStoreBacksOffFromUserStore() {
		IdempotencyStore store = new InMemoryIdempotencyStore(10);
		this.contextRunner.withPropertyValues("idempotency.store=redis")
			.withBean(IdempotencyStore.class, () -> store)
			.run((context) -> assertThat(context).getBean(IdempotencyStore.class).isSameAs(store));
	}

	@Configuration(proxyBeanMethods = false)
	static class RedisConfiguration {

		@Bean
		LettuceConnectionFactory applicationConnectionFactory() {
			return unreachableRedis();
		}

	}

	private static LettuceConnectionFactory unreachableRedis() {
		return new LettuceConnectionFactory("localhost", unusedPort());
	}

	private static int unusedPort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
