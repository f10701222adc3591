package dev.idempotency.test.dynamodb;

/**
 * A dynalite that one test started for itself, to crash and restart it, and that it
 * closes when done: see {@link TestDynamoDb#startPrivateServer()}.
 */
public interface PrivateDynamoDbServer extends DynamoDbServer, AutoCloseable {

	/**
	 * Stop the server at once ({@code kill -9}), as a crash would (calls in flight
	 * break), then start it again on the same port and data directory, and wait until it
	 * answers: tables and items written before are kept, the endpoint stays valid.
	 * @throws IllegalStateException if it does not start again
	 */
	void restart();

	/**
	 * Stop the server at once and delete its data.
	 */
	@Override
	void close();

}
