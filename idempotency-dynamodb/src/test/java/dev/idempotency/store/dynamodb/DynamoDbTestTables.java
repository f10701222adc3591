package dev.idempotency.store.dynamodb;

import java.util.UUID;

import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The client and the table that the tests of this module share, one of each per test JVM
 * (the tests never share a record: each uses keys, or operation names, of its own).
 */
public final class DynamoDbTestTables {

	private static DynamoDbClient client;

	private static String table;

	private DynamoDbTestTables() {
	}

	public static synchronized DynamoDbClient client() {
		if (client == null) {
			client = TestDynamoDb.get().client();
			Runtime.getRuntime().addShutdownHook(new Thread(client::close));
		}
		return client;
	}

	public static synchronized String table() {
		if (table == null) {
			table = newTable();
		}
		return table;
	}

	public static String newTable() {
		String name = "idem_test_" + UUID.randomUUID().toString().replace("-", "");
		DynamoDbTable.initialize(client(), name);
		return name;
	}

}
