package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TableStatus;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveStatus;

import org.springframework.util.Assert;

/**
 * Creates the table of a {@link DynamoDbIdempotencyStore}: on-demand capacity
 * ({@code PAY_PER_REQUEST}), hash key {@code id} of type string, and TTL on the number
 * attribute {@code ttl}, so that DynamoDB deletes expired records.
 */
public final class DynamoDbTable {

	private static final Log logger = LogFactory.getLog(DynamoDbTable.class);

	private static final Duration POLL = Duration.ofMillis(100);

	private static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

	private DynamoDbTable() {
	}

	/**
	 * Create the table unless it exists, wait until it is active, and enable TTL on it. A
	 * server that refuses to enable TTL gets one WARN, not a failure: records then stay
	 * until evicted, and the store still treats expired ones as absent.
	 * @param client the client
	 * @param table the table
	 * @throws IllegalStateException if the table does not become active within two
	 * minutes, or has another hash key
	 * @throws SdkException if the client fails
	 */
	public static void initialize(DynamoDbClient client, String table) {
		initialize(client, table, DEFAULT_TIMEOUT);
	}

	/**
	 * Create the table unless it exists, wait until it is active, and enable TTL on it.
	 * @param client the client
	 * @param table the table
	 * @param timeout how long to wait for the table to become active
	 * @throws IllegalStateException if the table does not become active in time, or has
	 * another hash key
	 * @throws SdkException if the client fails
	 */
	public static void initialize(DynamoDbClient client, String table, Duration timeout) {
		Assert.notNull(client, "'client' must not be null");
		Assert.hasText(table, "'table' must not be empty");
		Assert.notNull(timeout, "'timeout' must not be null");
		checkKey(createAndAwaitActive(client, table, timeout), table);
		enableTimeToLive(client, table);
	}

	/**
	 * Wait for the table to be active (or updating, which serves reads and writes),
	 * creating it whenever it is absent: a table being deleted (by an operator, or a test
	 * resetting it) is waited out and created anew, not awaited as if it could become
	 * active again.
	 */
	private static TableDescription createAndAwaitActive(DynamoDbClient client, String table, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			TableDescription description = describe(client, table);
			if (description == null) {
				create(client, table);
			}
			else if (description.tableStatus() == TableStatus.ACTIVE
					|| description.tableStatus() == TableStatus.UPDATING) {
				// An UPDATING table (an index being backfilled, which can take hours)
				// serves reads and writes all along
				return description;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"DynamoDB table " + table + " did not become active (or updating) within " + timeout
								+ ((description != null) ? "; it is " + description.tableStatusAsString() : ""));
			}
			try {
				TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for DynamoDB table " + table, ex);
			}
		}
	}

	private static void create(DynamoDbClient client, String table) {
		try {
			client.createTable((request) -> request.tableName(table)
				.billingMode(BillingMode.PAY_PER_REQUEST)
				.attributeDefinitions(AttributeDefinition.builder()
					.attributeName(Attributes.ID)
					.attributeType(ScalarAttributeType.S)
					.build())
				.keySchema(KeySchemaElement.builder().attributeName(Attributes.ID).keyType(KeyType.HASH).build()));
		}
		catch (ResourceInUseException ex) {
			// Created meanwhile by another instance, or still being deleted: the next
			// description says which
		}
	}

	private static @Nullable TableDescription describe(DynamoDbClient client, String table) {
		try {
			return client.describeTable((request) -> request.tableName(table)).table();
		}
		catch (ResourceNotFoundException ex) {
			return null;
		}
	}

	private static void checkKey(TableDescription description, String table) {
		boolean idHash = description.keySchema()
			.stream()
			.anyMatch((key) -> key.keyType() == KeyType.HASH && Attributes.ID.equals(key.attributeName()));
		boolean idString = description.attributeDefinitions()
			.stream()
			.anyMatch((attribute) -> Attributes.ID.equals(attribute.attributeName())
					&& attribute.attributeType() == ScalarAttributeType.S);
		if (!idHash || !idString || description.keySchema().size() != 1) {
			throw new IllegalStateException("DynamoDB table " + table + " has the key schema " + description.keySchema()
					+ " over " + description.attributeDefinitions() + "; an idempotency table has the hash key '"
					+ Attributes.ID + "' (a string) and no range key");
		}
	}

	private static void enableTimeToLive(DynamoDbClient client, String table) {
		TimeToLiveDescription current = describeTimeToLive(client, table);
		if (current != null && isOn(current.timeToLiveStatus())) {
			if (!Attributes.TTL.equals(current.attributeName())) {
				logger.warn("DynamoDB table " + table + " has TTL on attribute '" + current.attributeName()
						+ "', not on '" + Attributes.TTL + "', so DynamoDB will not delete expired idempotency "
						+ "records (the store treats them as absent all the same)");
			}
			return;
		}
		try {
			client.updateTimeToLive((request) -> request.tableName(table)
				.timeToLiveSpecification((spec) -> spec.enabled(true).attributeName(Attributes.TTL)));
		}
		catch (SdkException ex) {
			logger.warn("Could not enable TTL on attribute '" + Attributes.TTL + "' of DynamoDB table " + table
					+ ", so DynamoDB will not delete expired idempotency records (the store treats them as absent "
					+ "all the same): " + ex.getMessage());
		}
	}

	private static boolean isOn(@Nullable TimeToLiveStatus status) {
		return status == TimeToLiveStatus.ENABLED || status == TimeToLiveStatus.ENABLING;
	}

	private static @Nullable TimeToLiveDescription describeTimeToLive(DynamoDbClient client, String table) {
		try {
			return client.describeTimeToLive((request) -> request.tableName(table)).timeToLiveDescription();
		}
		catch (SdkException ex) {
			// A server without TTL (dynalite): UpdateTimeToLive below says so in its
			// warning
			return null;
		}
	}

}
