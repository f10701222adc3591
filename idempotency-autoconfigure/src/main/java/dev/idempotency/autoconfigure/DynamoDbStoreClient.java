package dev.idempotency.autoconfigure;

import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.diagnostics.FailureAnalyzedException;

/**
 * The client of the DynamoDB store: the application's {@link DynamoDbClient} bean, which
 * the application closes, or one built from {@code idempotency.dynamodb.*} with the SDK's
 * default credentials chain and HTTP client, which this closes with the context.
 */
final class DynamoDbStoreClient implements DisposableBean {

	private final DynamoDbClient client;

	private final boolean owned;

	DynamoDbStoreClient(DynamoDbClient client, boolean owned) {
		this.client = client;
		this.owned = owned;
	}

	DynamoDbClient client() {
		return this.client;
	}

	boolean owned() {
		return this.owned;
	}

	@Override
	public void destroy() {
		if (this.owned) {
			this.client.close();
		}
	}

	/**
	 * Build a client from the properties, in the configured region or else the one the
	 * SDK's default region chain finds; startup fails, naming the property, when there is
	 * none.
	 */
	static DynamoDbClient build(IdempotencyDynamoDbProperties dynamodb) {
		DynamoDbClientBuilder builder = DynamoDbClient.builder().region(region(dynamodb.getRegion()));
		if (dynamodb.getEndpoint() != null) {
			builder.endpointOverride(dynamodb.getEndpoint());
		}
		return builder.build();
	}

	private static Region region(@Nullable String configured) {
		if (configured != null) {
			return Region.of(configured);
		}
		try {
			return DefaultAwsRegionProviderChain.builder().build().getRegion();
		}
		catch (SdkClientException ex) {
			throw new FailureAnalyzedException(
					"idempotency.store=dynamodb but no AWS region is set for the DynamoDB client: " + ex.getMessage(),
					"Set idempotency.dynamodb.region (such as 'eu-west-1'; any region for a local server at "
							+ "idempotency.dynamodb.endpoint), or the AWS_REGION environment variable, or define a "
							+ "DynamoDbClient bean.");
		}
	}

}
