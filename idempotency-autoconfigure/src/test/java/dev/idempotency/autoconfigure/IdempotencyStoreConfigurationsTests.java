package dev.idempotency.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the store selection of {@link IdempotencyAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyStoreConfigurationsTests {

	private static final String MEMORY_WARNING = "idempotency records are kept in memory";

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class));

	@Test
	void autoPicksRedisWhenThereIsAConnectionFactoryBean(CapturedOutput output) {
		this.contextRunner.withBean(RedisConnectionFactory.class, () -> unreachableRedis()).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
			assertThat(context.getBean(IdempotencyEngine.class).getStore())
				.isSameAs(context.getBean(IdempotencyStore.class));
		});
		assertThat(output).doesNotContain(MEMORY_WARNING);
	}

	@Test
	void autoPicksRedisFromSpringBootRedisAutoConfigurationWhileRedisIsUnreachable() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + unusedPort())
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class));
	}

	@Test
	void autoPicksMemoryWithWarningWhenThereIsNoConnectionFactoryBean(CapturedOutput output) {
		this.contextRunner.run((context) -> assertThat(context).hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING);
	}

	@Test
	void autoPicksMemoryWithWarningWithoutSpringDataRedis(CapturedOutput output) {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(InMemoryIdempotencyStore.class));
		assertThat(output).contains(MEMORY_WARNING);
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
