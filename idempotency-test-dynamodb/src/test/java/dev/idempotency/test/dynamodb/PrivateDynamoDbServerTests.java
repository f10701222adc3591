package dev.idempotency.test.dynamodb;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A dynalite of its own that a test kills and restarts keeps its tables and items, on the
 * same endpoint, and is gone once closed.
 */
class PrivateDynamoDbServerTests {

	@Test
	void restartIsACrashThatKeepsTablesAndItems() {
		try (PrivateDynamoDbServer server = TestDynamoDb.startPrivateServer();
				DynamoDbClient client = server.client()) {
			String table = Tables.create(client);
			Tables.put(client, table, "k1", "before");
			Process watchdog = ((DynaliteProcess) server).watchdog();
			server.restart();
			assertThat(((DynaliteProcess) server).watchdog()).isNotSameAs(watchdog);
			assertThat(watchdog.isAlive()).isFalse();
			assertThat(Tables.get(client, table, "k1")).isEqualTo("before");
			Tables.put(client, table, "k2", "after");
			assertThat(Tables.get(client, table, "k2")).isEqualTo("after");
		}
	}

	@Test
	void closeStopsTheServerAndDeletesItsData() {
		DynaliteProcess server = (DynaliteProcess) TestDynamoDb.startPrivateServer();
		try (DynamoDbClient client = server.client()) {
			Tables.create(client);
			server.close();
			assertThat(server.directory()).doesNotExist();
			assertThatExceptionOfType(SdkException.class).isThrownBy(client::listTables);
		}
	}

}
