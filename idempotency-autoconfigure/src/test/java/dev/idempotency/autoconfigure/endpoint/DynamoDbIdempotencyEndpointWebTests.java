package dev.idempotency.autoconfigure.endpoint;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of the idempotency endpoint and health over HTTP on the DynamoDB store, in a Boot
 * application on a real dynalite whose table the store creates: inspect and evict go
 * through the store's read and evict, on items of its table.
 */
@TestPropertySource(properties = { "idempotency.store=dynamodb", "idempotency.dynamodb.table=idem_endpoint",
		"idempotency.dynamodb.initialize-table=true" })
@Import(DynamoDbIdempotencyEndpointWebTests.Server.class)
class DynamoDbIdempotencyEndpointWebTests extends IdempotencyEndpointWebTests {

	@Autowired
	private DynamoDbClient client;

	@Autowired
	private Payments payments;

	@Override
	protected String storeType() {
		return "dynamodb";
	}

	@Test
	void inspectedRecordIsAnItemOfTheTableAndEvictDeletesIt() throws Exception {
		String key = UUID.randomUUID().toString();
		this.payments.charge(key);
		this.payments.charge(key);
		assertThat(this.payments.charges(key)).isOne();
		assertThat(item("Payments.charge:" + key)).containsEntry("state", AttributeValue.fromS("COMPLETED"));
		assertThat(get("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(200);
		HttpResponse<String> evicted = delete("/actuator/idempotency/Payments.charge/" + key);
		assertThat(evicted.statusCode()).isBetween(200, 204);
		assertThat(item("Payments.charge:" + key)).isEmpty();
		assertThat(get("/actuator/idempotency/Payments.charge/" + key).statusCode()).isEqualTo(404);
	}

	@Test
	void healthNamesTheTable() throws Exception {
		String body = get("/actuator/health/idempotency").body();
		assertThat(body).contains("\"status\":\"UP\"").contains("\"table\":\"idem_endpoint\"");
	}

	private Map<String, AttributeValue> item(String id) {
		return this.client
			.getItem((request) -> request.tableName("idem_endpoint")
				.key(Map.of("id", AttributeValue.fromS(id)))
				.consistentRead(true))
			.item();
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Server {

		@Bean
		DynamoDbClient dynamoDbClient() {
			return TestDynamoDb.get().client();
		}

	}

}
