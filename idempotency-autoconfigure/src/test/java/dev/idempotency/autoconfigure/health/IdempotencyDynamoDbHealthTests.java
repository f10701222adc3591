package dev.idempotency.autoconfigure.health;

import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.idempotency.actuate.health.IdempotencyHealthIndicator;
import dev.idempotency.autoconfigure.IdempotencyAutoConfiguration;
import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the idempotency health of the DynamoDB store on a real dynalite: UP while its
 * table accepts writes, DOWN with the reason, naming the table and how to create it, when
 * the table is missing.
 */
class IdempotencyDynamoDbHealthTests {

	private static DynamoDbClient client;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class,
				IdempotencyHealthContributorAutoConfiguration.class))
		.withBean(DynamoDbClient.class, () -> client, (definition) -> definition.setDestroyMethodName(""));

	@BeforeAll
	static void createClient() {
		client = TestDynamoDb.get().client();
	}

	@AfterAll
	static void closeClient() {
		client.close();
	}

	@Test
	void upWhileTheTableAcceptsWritesAndDownWithHowToCreateItOnceDeleted() {
		String table = newTable();
		this.contextRunner
			.withPropertyValues("idempotency.store=dynamodb", "idempotency.dynamodb.table=" + table,
					"idempotency.dynamodb.initialize-table=true")
			.run((context) -> {
				IdempotencyHealthIndicator indicator = context.getBean(IdempotencyHealthIndicator.class);
				Health up = indicator.health();
				assertThat(up.getStatus()).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("store", "dynamodb")
					.containsEntry("table", table)
					.doesNotContainKey("reason");
				// The probe wrote nothing
				assertThat(client.scan((request) -> request.tableName(table)).count()).isZero();
				client.deleteTable((request) -> request.tableName(table));
				Health down = indicator.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat((String) down.getDetails().get("reason")).startsWith("table " + table + " does not exist")
					.contains("idempotency.dynamodb.initialize-table=true");
			});
	}

	@Test
	void downWhenTheTableWasNeverCreated() {
		String table = newTable();
		this.contextRunner.withPropertyValues("idempotency.store=dynamodb", "idempotency.dynamodb.table=" + table)
			.run((context) -> {
				Health down = context.getBean(IdempotencyHealthIndicator.class).health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("store", "dynamodb").containsEntry("table", table);
				assertThat((String) down.getDetails().get("reason")).startsWith("table " + table + " does not exist");
			});
	}

	private static String newTable() {
		return "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
	}

}
