package dev.idempotency.benchmarks;

import java.util.LinkedHashMap;
import java.util.Map;

import javax.sql.DataSource;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The smallest Boot application that uses the starter as an application would: its
 * auto-configuration, {@code spring.data.redis.*} and one {@code @Idempotent} bean.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class BenchmarkApplication {

	@Bean
	Payments payments() {
		return new Payments();
	}

	/**
	 * Start the application on a Redis store.
	 * @param redisPort the port of the Redis server
	 * @return the running application
	 */
	static ConfigurableApplicationContext onRedis(int redisPort) {
		return onRedis(redisPort, Map.of());
	}

	/**
	 * Start the application on a Redis store, with more properties.
	 * @param redisPort the port of the Redis server
	 * @param properties more properties of the application
	 * @return the running application
	 */
	static ConfigurableApplicationContext onRedis(int redisPort, Map<String, Object> properties) {
		Map<String, Object> all = new LinkedHashMap<>(properties);
		all.put("idempotency.store", "redis");
		all.put("spring.data.redis.host", RedisServer.HOST);
		all.put("spring.data.redis.port", Integer.toString(redisPort));
		return run(all);
	}

	/**
	 * Start the application on the in-memory store.
	 * @param maxEntries the bound of the store
	 * @return the running application
	 */
	public static ConfigurableApplicationContext inMemory(int maxEntries) {
		return run(
				Map.of("idempotency.store", "memory", "idempotency.memory.max-entries", Integer.toString(maxEntries)));
	}

	/**
	 * Start the application on the JDBC store, its table created at startup, on a pool of
	 * the caller's, registered as the application's only {@link DataSource}. The cleanup
	 * of expired records does not run: nothing expires during a run.
	 * @param dataSource the pool
	 * @return the running application
	 */
	static ConfigurableApplicationContext onJdbc(DataSource dataSource) {
		return run(
				Map.of("idempotency.store", "jdbc", "idempotency.jdbc.initialize-schema", "always",
						"idempotency.jdbc.cleanup-interval", "0"),
				(context) -> context.getBeanFactory().registerSingleton("dataSource", dataSource));
	}

	/**
	 * Start the application on the DynamoDB store, with a client of the caller's
	 * registered as the application's only {@code DynamoDbClient}.
	 * @param client the client
	 * @param table the store's table, which the caller creates
	 * @return the running application
	 */
	static ConfigurableApplicationContext onDynamoDb(DynamoDbClient client, String table) {
		return run(Map.of("idempotency.store", "dynamodb", "idempotency.dynamodb.table", table),
				(context) -> context.getBeanFactory().registerSingleton("dynamoDbClient", client));
	}

	private static ConfigurableApplicationContext run(Map<String, Object> properties,
			ApplicationContextInitializer<?>... initializers) {
		Map<String, Object> all = new LinkedHashMap<>(properties);
		all.put("spring.main.banner-mode", "off");
		all.put("logging.level.root", "WARN");
		return new SpringApplicationBuilder(BenchmarkApplication.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(all)
			.initializers(initializers)
			.run();
	}

}
