package dev.idempotency.sample;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * The Redis of {@link TestSampleApplication}: its {@code @ServiceConnection} replaces the
 * {@code spring.data.redis.*} settings of the {@code redis} profile.
 */
@TestConfiguration(proxyBeanMethods = false)
class ContainersConfig {

	@Bean
	@ServiceConnection(name = "redis")
	GenericContainer<?> redis() {
		return new GenericContainer<>(DockerImageName.parse("redis:7")).withExposedPorts(6379);
	}

}
