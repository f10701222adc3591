package dev.idempotency.test.dynamodb;

import java.net.URI;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A DynamoDB-compatible server that tests run against: see {@link TestDynamoDb}.
 */
public interface DynamoDbServer {

	/**
	 * Return the endpoint of the server.
	 * @return its endpoint, such as {@code http://127.0.0.1:PORT}
	 */
	URI endpoint();

	/**
	 * Say where the server comes from, for messages.
	 * @return the description
	 */
	String describe();

	/**
	 * Create a new client on the server: static credentials ({@code test}/{@code test}),
	 * region {@code us-east-1}, the {@link #endpoint()} as its endpoint, the SDK's
	 * {@code url-connection-client}.
	 * @return the client, which the caller closes
	 */
	DynamoDbClient client();

}
