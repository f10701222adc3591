package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.CreateTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableResponse;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTimeToLiveResponse;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveResponse;

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
		List<ILoggingEvent> events = logged(() -> DynamoDbTable.initialize(this.client, table));
		// dynalite has no UpdateTimeToLive: one warning, and the table is there all the
		// same
		assertThat(events).singleElement().satisfies((event) -> {
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

	@Test
	void initializeWaitsOutATableBeingDeletedAndCreatesItAnew() {
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		AtomicInteger deleting = new AtomicInteger(3);
		AtomicInteger creates = new AtomicInteger();
		DynamoDbClient client = new TableClient(this.client) {

			@Override
			public DescribeTableResponse describeTable(DescribeTableRequest request) {
				if (deleting.getAndDecrement() > 0) {
					return DescribeTableResponse.builder()
						.table((description) -> description.tableName(table).tableStatus(TableStatus.DELETING))
						.build();
				}
				return super.describeTable(request);
			}

			@Override
			public CreateTableResponse createTable(CreateTableRequest request) {
				creates.incrementAndGet();
				return super.createTable(request);
			}

		};
		DynamoDbTable.initialize(client, table, Duration.ofSeconds(10));
		assertThat(creates).hasValue(1);
		assertThat(this.client.describeTable((request) -> request.tableName(table)).table().tableStatus())
			.isEqualTo(TableStatus.ACTIVE);
	}

	@Test
	void initializeAcceptsATableBeingUpdated() {
		// A table stays available for reads and writes while it is UPDATING (an index
		// being added and backfilled, which can take hours): an instance started then
		// must not wait for ACTIVE until its timeout and fail
		String table = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		DynamoDbTable.initialize(this.client, table);
		DynamoDbClient client = new TableClient(this.client) {

			@Override
			public DescribeTableResponse describeTable(DescribeTableRequest request) {
				DescribeTableResponse response = super.describeTable(request);
				return response.toBuilder()
					.table(response.table().toBuilder().tableStatus(TableStatus.UPDATING).build())
					.build();
			}

		};
		DynamoDbTable.initialize(client, table, Duration.ofSeconds(2));
	}

	@Test
	void initializeLeavesTimeToLiveOnTheExpiryAttributeAloneAndSaysNothing() {
		String table = DynamoDbTestTables.newTable();
		AtomicInteger updates = new AtomicInteger();
		List<ILoggingEvent> events = logged(() -> DynamoDbTable.initialize(timeToLiveOn("ttl", updates), table));
		assertThat(events).isEmpty();
		assertThat(updates).hasValue(0);
	}

	@Test
	void initializeWarnsOfTimeToLiveOnAnotherAttributeAndLeavesItAlone() {
		String table = DynamoDbTestTables.newTable();
		AtomicInteger updates = new AtomicInteger();
		List<ILoggingEvent> events = logged(() -> DynamoDbTable.initialize(timeToLiveOn("expires_at", updates), table));
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.getLevel()).isEqualTo(Level.WARN);
			assertThat(event.getFormattedMessage()).contains(table).contains("'expires_at'").contains("'ttl'");
		});
		assertThat(updates).hasValue(0);
	}

	private DynamoDbClient timeToLiveOn(String attribute, AtomicInteger updates) {
		return new TableClient(this.client) {

			@Override
			public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
				return DescribeTimeToLiveResponse.builder()
					.timeToLiveDescription(
							(ttl) -> ttl.attributeName(attribute).timeToLiveStatus(TimeToLiveStatus.ENABLED))
					.build();
			}

			@Override
			public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
				updates.incrementAndGet();
				return super.updateTimeToLive(request);
			}

		};
	}

	private static List<ILoggingEvent> logged(Runnable action) {
		Logger logger = (Logger) LoggerFactory.getLogger(DynamoDbTable.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			action.run();
		}
		finally {
			logger.detachAppender(appender);
		}
		return appender.list;
	}

	/**
	 * Sends the table requests of the initializer to a real server.
	 */
	private static class TableClient implements DynamoDbClient {

		private final DynamoDbClient server;

		TableClient(DynamoDbClient server) {
			this.server = server;
		}

		@Override
		public DescribeTableResponse describeTable(DescribeTableRequest request) {
			return this.server.describeTable(request);
		}

		@Override
		public CreateTableResponse createTable(CreateTableRequest request) {
			return this.server.createTable(request);
		}

		@Override
		public DescribeTimeToLiveResponse describeTimeToLive(DescribeTimeToLiveRequest request) {
			return this.server.describeTimeToLive(request);
		}

		@Override
		public UpdateTimeToLiveResponse updateTimeToLive(UpdateTimeToLiveRequest request) {
			return this.server.updateTimeToLive(request);
		}

		@Override
		public String serviceName() {
			return SERVICE_NAME;
		}

		@Override
		public void close() {
		}

	}

}
