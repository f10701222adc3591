package dev.idempotency.test.dynamodb;

import java.net.URI;
import java.time.Duration;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Builds the clients of the tests' servers, which take any credentials and region.
 */
final class Clients {

	private static final StaticCredentialsProvider CREDENTIALS = StaticCredentialsProvider
		.create(AwsBasicCredentials.create("test", "test"));

	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);

	private Clients() {
	}

	/**
	 * Create a client on an endpoint; it owns its HTTP client and closes it with itself.
	 * @param endpoint the endpoint
	 * @return the client
	 */
	static DynamoDbClient create(URI endpoint) {
		return DynamoDbClient.builder()
			.endpointOverride(endpoint)
			.region(Region.US_EAST_1)
			.credentialsProvider(CREDENTIALS)
			.httpClientBuilder(UrlConnectionHttpClient.builder())
			.build();
	}

	/**
	 * Create a client that tells at once whether a server answers: short timeouts, no
	 * retries.
	 * @param endpoint the endpoint
	 * @return the client
	 */
	static DynamoDbClient probe(URI endpoint) {
		return DynamoDbClient.builder()
			.endpointOverride(endpoint)
			.region(Region.US_EAST_1)
			.credentialsProvider(CREDENTIALS)
			.httpClientBuilder(
					UrlConnectionHttpClient.builder().connectionTimeout(PROBE_TIMEOUT).socketTimeout(PROBE_TIMEOUT))
			.overrideConfiguration((configuration) -> configuration.retryStrategy(AwsRetryStrategy.doNotRetry()))
			.build();
	}

}
