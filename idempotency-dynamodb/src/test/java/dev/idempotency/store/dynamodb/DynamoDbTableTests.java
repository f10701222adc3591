package dev.idempotency.store.dynamodb;

import java.util.UUID;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The table initializer, on dynalite, which refuses {@code UpdateTimeToLive}: that costs
 * a warning, never a failure.
 */
class DynamoDbTableTests {

	private final DynamoDbClient client = DynamoDbTestTables.client();

	@Test
	void initializeCreatesAnActiveTableKeyedByIdAndCanRunAgain() {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		Logger logger = (Logger) LoggerFactory.getLogger(DynamoDbTable.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			DynamoDbTable.initialize(this.client, table);
		}
		finally {
			logger.detachAppender(appender);
		}
		// dynalite has no UpdateTimeToLive: one warning, and the table is there all the
		// same
		assertThat(appender.list).singleElement().satisfies((event) -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains("TTL").contains(table);
		});
		TableDescription description = this.client.describeTable((request) -> request.tableName(table)).table();
		assertThat(description.tableStatus()).isEqualTo(TableStatus.ACTIVE);
		assertThat(description.keySchema())
			.containsExactly(KeySchemaElement.builder().attributeName("id").keyType(KeyType.HASH).build());
		assertThat(description.attributeDefinitions()).containsExactly(
				AttributeDefinition.builder().attributeName("id").attributeType(ScalarAttributeType.S).build());
		DynamoDbTable.initialize(this.client, table);
	}

	@Test
	void initializeRefusesATableWithAnotherKey() {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		this.client.createTable((request) -> request.tableName(table)
			.billingMode(BillingMode.PAY_PER_REQUEST)
			.attributeDefinitions(
					AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build())
			.keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build()));
		assertThatIllegalStateException().isThrownBy(() -> DynamoDbTable.initialize(this.client, table))
			.withMessageContaining(table)
			.withMessageContaining("hash key 'id'");
	}

}
