package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Every failure of the client, whatever the request, reaches the caller as a store error
 * naming the transition, the record and the table, with the client's exception as its
 * cause.
 */
class DynamoDbClientFailureTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private final RecordKey key = new RecordKey("failing", "k1");

	@ParameterizedTest
	@ValueSource(strings = { "throughput", "throttling", "network" })
	void everyTransitionReportsTheClientsFailureAsAStoreErrorNamingIt(String kind) {
		SdkException failure = failure(kind);
		DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(new FailingClient(failure), "t1");
		check("acquire", failure, () -> store.acquire(this.key, new AcquireRequest("a", LEASE, LEASE, null)));
		check("complete", failure, () -> store.complete(this.key, "a", 1, StoredResult.of(new byte[1]), LEASE));
		check("release", failure, () -> store.release(this.key, "a", 1, LEASE));
		check("renew", failure, () -> store.renew(this.key, "a", 1, LEASE, LEASE));
		check("renew", failure, () -> store.renewLease(this.key, "a", 1, LEASE, LEASE).toCompletableFuture().join());
		check("abandon", failure, () -> store.abandon(this.key, "a", LEASE).toCompletableFuture().join());
		check("read", failure, () -> store.read(this.key));
		check("evict", failure, () -> store.evict(this.key));
	}

	private void check(String operation, SdkException failure, Supplier<?> call) {
		Throwable thrown = catchThrowable(call::get);
		if (thrown instanceof CompletionException) {
			thrown = thrown.getCause();
		}
		assertThat(thrown).isInstanceOf(IdempotencyStoreException.class)
			.hasMessageContaining(operation)
			.hasMessageContaining("'failing:k1'")
			.hasMessageContaining("t1")
			.hasCause(failure);
	}

	private static SdkException failure(String kind) {
		return switch (kind) {
			case "throughput" -> ProvisionedThroughputExceededException.builder()
				.message("The level of configured provisioned throughput for the table was exceeded")
				.statusCode(400)
				.build();
			case "throttling" -> DynamoDbException.builder()
				.message("Rate exceeded")
				.statusCode(400)
				.awsErrorDetails(AwsErrorDetails.builder().errorCode("ThrottlingException").build())
				.build();
			default -> SdkClientException.create("Unable to execute HTTP request: Connection refused");
		};
	}

	private static final class FailingClient implements DynamoDbClient {

		private final SdkException failure;

		FailingClient(SdkException failure) {
			this.failure = failure;
		}

		@Override
		public PutItemResponse putItem(PutItemRequest request) {
			throw this.failure;
		}

		@Override
		public GetItemResponse getItem(GetItemRequest request) {
			throw this.failure;
		}

		@Override
		public UpdateItemResponse updateItem(UpdateItemRequest request) {
			throw this.failure;
		}

		@Override
		public DeleteItemResponse deleteItem(DeleteItemRequest request) {
			throw this.failure;
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
