package dev.idempotency.store.dynamodb;

import java.net.URI;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbServiceClientConfiguration;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * Checks that a {@link DynamoDbIdempotencyStore} can write its records: that its table
 * exists and accepts a write. The write is a conditional {@code UpdateItem} of a probe
 * item whose condition never holds, so the server checks the table, the caller's right to
 * update items and the request, and then changes nothing.
 *
 * @see DynamoDbIdempotencyStore#tableCheck()
 */
public final class DynamoDbTableCheck {

	// Not a record key of the store, whose ids hold the operation name, ':' and the key
	private static final String PROBE_ID = "idempotency-health-probe";

	private final DynamoDbClient client;

	private final String table;

	DynamoDbTableCheck(DynamoDbClient client, String table) {
		this.client = client;
		this.table = table;
	}

	/**
	 * Check the table.
	 * @return what was found
	 * @throws IdempotencyStoreException if DynamoDB could not be reached
	 */
	public Status check() {
		try {
			this.client.updateItem((request) -> request.tableName(this.table)
				.key(Attributes.key(PROBE_ID))
				.updateExpression("SET #p = :p")
				.conditionExpression("attribute_exists(#id) AND attribute_not_exists(#id)")
				.expressionAttributeNames(Map.of("#p", "probe", "#id", Attributes.ID))
				.expressionAttributeValues(Map.of(":p", AttributeValue.fromBool(true))));
			// Unreachable on a server that evaluates conditions: nothing can both exist
			// and
			// not exist
			return new Status(this.table, "a write to table " + this.table
					+ " succeeded whose condition can never hold: the server does not evaluate conditions");
		}
		catch (ConditionalCheckFailedException ex) {
			return new Status(this.table, null);
		}
		catch (ResourceNotFoundException ex) {
			return new Status(this.table,
					"table " + this.table + " does not exist: create it (hash key '" + Attributes.ID
							+ "', a string; see DynamoDbTable), or set idempotency.dynamodb.initialize-table=true");
		}
		catch (SdkException ex) {
			if (ex instanceof AwsServiceException service && service.statusCode() >= 400
					&& service.statusCode() < 500) {
				return new Status(this.table, "a write to table " + this.table + " was refused: " + ex.getMessage());
			}
			throw new IdempotencyStoreException(
					"Could not check the DynamoDB idempotency table " + this.table + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Return where a client sends its requests, for descriptions: " at ENDPOINT (REGION)"
	 * or " in REGION", or nothing when the client does not tell.
	 */
	static String where(DynamoDbClient client) {
		try {
			DynamoDbServiceClientConfiguration configuration = client.serviceClientConfiguration();
			URI endpoint = configuration.endpointOverride().orElse(null);
			Region region = configuration.region();
			if (endpoint != null) {
				return " at " + endpoint + ((region != null) ? " (" + region.id() + ")" : "");
			}
			return (region != null) ? " in " + region.id() : "";
		}
		catch (RuntimeException ex) {
			// A client of the application's own that implements no configuration
			return "";
		}
	}

	/**
	 * What a check found.
	 *
	 * @param table the table
	 * @param problem why records cannot be written, or {@code null} when they can
	 */
	public record Status(String table, @Nullable String problem) {

	}

}
