package dev.idempotency.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbTable;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.test.dynamodb.DynamoDbServer;
import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatRuntimeException;

/**
 * Tests for the DynamoDB store's auto-configuration, on a real dynalite: chosen only by
 * {@code idempotency.store=dynamodb}, with the application's client or one built from the
 * properties, the creation of its table, and what startup fails with.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyDynamoDbStoreConfigurationTests {

	private static DynamoDbServer server;

	private static DynamoDbClient client;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(IdempotencyAutoConfiguration.class, JacksonAutoConfiguration.class));

	private final ApplicationContextRunner withClient = this.contextRunner.withBean(DynamoDbClient.class, () -> client,
			(definition) -> definition.setDestroyMethodName(""));

	@BeforeAll
	static void startServer() {
		server = TestDynamoDb.get();
		client = server.client();
	}

	@AfterAll
	static void closeClient() {
		client.close();
	}

	@Test
	void defaultsOfTheDynamoDbProperties() {
		this.contextRunner.withPropertyValues("idempotency.store=memory").run((context) -> {
			IdempotencyDynamoDbProperties dynamodb = context.getBean(IdempotencyProperties.class).getDynamodb();
			assertThat(dynamodb.getEndpoint()).isNull();
			assertThat(dynamodb.getRegion()).isNull();
			assertThat(dynamodb.getTable()).isEqualTo("idempotency_record");
			assertThat(dynamodb.isInitializeTable()).isFalse();
			assertThat(dynamodb.getClockSkew()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void rejectsBadDynamoDbPropertiesWithTheirNames() {
		this.contextRunner
			.withPropertyValues("idempotency.store=memory", "idempotency.dynamodb.table=a b",
					"idempotency.dynamodb.clock-skew=-1s", "idempotency.dynamodb.endpoint=localhost:8000",
					"idempotency.dynamodb.region=EU West")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("idempotency.dynamodb.table must be a DynamoDB table name")
				.hasMessageContaining("idempotency.dynamodb.clock-skew must not be negative")
				.hasMessageContaining("idempotency.dynamodb.endpoint must be an http or https URL")
				.hasMessageContaining("idempotency.dynamodb.region must be an AWS region"));
	}

	@Test
	void dynamoDbUsesTheApplicationsClientAndSaysSoAtStartup(CapturedOutput output) {
		String table = newTable(true);
		this.withClient
			.withPropertyValues("idempotency.store=dynamodb", "idempotency.dynamodb.table=" + table,
					"idempotency.dynamodb.clock-skew=250ms")
			.withUserConfiguration(CountingPayments.PaymentsConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(DynamoDbIdempotencyStore.class);
				assertThat(context.getBean(DynamoDbStoreClient.class).client()).isSameAs(client);
				assertThat(context.getBean(IdempotencyStore.class).type()).isEqualTo("dynamodb");
				assertRunsOnceAndReplays(context.getBean(CountingPayments.class), table);
			});
		assertThat(output).contains("Idempotency: DynamoDB store, table " + table + " at " + server.endpoint()
				+ " (us-east-1), clock skew allowance 250 ms (idempotency.store=dynamodb), 1 @Idempotent operation");
		// The application's client is the application's to close
		assertThat(client.listTables().tableNames()).contains(table);
	}

	@Test
	void autoNeverPicksDynamoDbEvenWithAClient() {
		this.withClient.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(InMemoryIdempotencyStore.class)
			.doesNotHaveBean(DynamoDbIdempotencyStore.class)
			.doesNotHaveBean(DynamoDbStoreClient.class));
	}

	@Test
	void buildsAClientFromEndpointAndRegionAndClosesItWithTheContext() {
		String table = newTable(false);
		withStaticCredentials(() -> {
			DynamoDbClient[] built = new DynamoDbClient[1];
			this.contextRunner
				.withPropertyValues("idempotency.store=dynamodb", "idempotency.dynamodb.endpoint=" + server.endpoint(),
						"idempotency.dynamodb.region=eu-west-1", "idempotency.dynamodb.table=" + table,
						"idempotency.dynamodb.initialize-table=true")
				.withUserConfiguration(CountingPayments.PaymentsConfiguration.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DynamoDbStoreClient storeClient = context.getBean(DynamoDbStoreClient.class);
					assertThat(storeClient.owned()).isTrue();
					built[0] = storeClient.client();
					assertThat(built[0].serviceClientConfiguration().region().id()).isEqualTo("eu-west-1");
					assertThat(built[0].serviceClientConfiguration().endpointOverride()).contains(server.endpoint());
					assertRunsOnceAndReplays(context.getBean(CountingPayments.class), table);
				});
			assertThatRuntimeException().isThrownBy(() -> built[0].listTables());
		});
	}

	@Test
	void initializeTableCreatesTheTableAndAgainIsHarmless() {
		String table = newTable(false);
		ApplicationContextRunner runner = this.withClient.withPropertyValues("idempotency.store=dynamodb",
				"idempotency.dynamodb.table=" + table, "idempotency.dynamodb.initialize-table=true");
		assertThatExceptionOfType(ResourceNotFoundException.class)
			.isThrownBy(() -> client.describeTable((request) -> request.tableName(table)));
		runner.run((context) -> assertThat(context).hasNotFailed());
		assertThat(client.describeTable((request) -> request.tableName(table)).table().keySchema()).singleElement()
			.satisfies((key) -> assertThat(key.attributeName()).isEqualTo("id"));
		runner.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void withoutInitializeTableNoTableIsCreated() {
		String table = newTable(false);
		this.withClient.withPropertyValues("idempotency.store=dynamodb", "idempotency.dynamodb.table=" + table)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DynamoDbIdempotencyStore.class));
		assertThat(client.listTables().tableNames()).doesNotContain(table);
	}

	@Test
	void anEndpointWithoutARegionFailsStartupNamingTheRegionProperty() {
		assertThat(System.getenv("AWS_REGION")).as("a region in the environment").isNull();
		assertThat(System.getenv("AWS_DEFAULT_REGION")).as("a region in the environment").isNull();
		withSystemProperties(Map.of("aws.configFile", "/nonexistent/aws-config", "aws.disableEc2Metadata", "true"),
				() -> this.contextRunner
					.withPropertyValues("idempotency.store=dynamodb",
							"idempotency.dynamodb.endpoint=" + server.endpoint())
					.run((context) -> {
						assertThat(context).getFailure()
							.rootCause()
							.isInstanceOf(FailureAnalyzedException.class)
							.hasMessageStartingWith("idempotency.store=dynamodb but no AWS region is set");
						FailureAnalyzedException failure = (FailureAnalyzedException) rootCause(
								context.getStartupFailure());
						assertThat(failure.analysis().getAction()).contains("Set idempotency.dynamodb.region");
					}));
	}

	@Test
	void severalClientsWithoutAPrimaryFailStartup() {
		this.withClient
			.withBean("another", DynamoDbClient.class, () -> client,
					(definition) -> definition.setDestroyMethodName(""))
			.withPropertyValues("idempotency.store=dynamodb")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(FailureAnalyzedException.class)
				.hasMessage("idempotency.store=dynamodb but there are 2 DynamoDbClient beans and none is primary"));
	}

	@Test
	void dynamoDbFailsStartupWithoutTheModule() {
		this.withClient.withPropertyValues("idempotency.store=dynamodb")
			.withClassLoader(new FilteredClassLoader("dev.idempotency.store.dynamodb"))
			.run((context) -> {
				assertThat(context).getFailure()
					.rootCause()
					.isInstanceOf(FailureAnalyzedException.class)
					.hasMessage("idempotency.store=dynamodb but the DynamoDB store (idempotency-dynamodb) is not on "
							+ "the classpath");
				FailureAnalyzedException failure = (FailureAnalyzedException) rootCause(context.getStartupFailure());
				assertThat(failure.analysis().getAction()).contains("Add dev.idempotency:idempotency-dynamodb");
			});
	}

	@Test
	void backsOffFromTheApplicationsStore() {
		IdempotencyStore store = new InMemoryIdempotencyStore(10);
		this.withClient.withPropertyValues("idempotency.store=dynamodb")
			.withBean(IdempotencyStore.class, () -> store)
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(DynamoDbIdempotencyStore.class)
					.doesNotHaveBean(DynamoDbStoreClient.class);
				assertThat(context.getBean(IdempotencyStore.class)).isSameAs(store);
			});
	}

	private static void assertRunsOnceAndReplays(CountingPayments payments, String table) {
		String id = UUID.randomUUID().toString();
		assertThat(payments.pay(id)).isEqualTo(payments.pay(id));
		assertThat(payments.runs()).isOne();
		Map<String, AttributeValue> item = client
			.getItem((request) -> request.tableName(table)
				.key(Map.of("id", AttributeValue.fromS("CountingPayments.pay:" + id)))
				.consistentRead(true))
			.item();
		assertThat(item).containsEntry("state", AttributeValue.fromS("COMPLETED"));
	}

	static String newTable(boolean create) {
		String table = "idem_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		if (create) {
			DynamoDbTable.initialize(client, table);
		}
		return table;
	}

	// The SDK's default credentials chain reads them, and dynalite takes any
	private static void withStaticCredentials(Runnable action) {
		withSystemProperties(Map.of("aws.accessKeyId", "test", "aws.secretAccessKey", "test"), action);
	}

	private static void withSystemProperties(Map<String, String> properties, Runnable action) {
		properties.forEach(System::setProperty);
		try {
			action.run();
		}
		finally {
			properties.keySet().forEach(System::clearProperty);
		}
	}

	private static Throwable rootCause(Throwable failure) {
		Throwable cause = failure;
		while (cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
