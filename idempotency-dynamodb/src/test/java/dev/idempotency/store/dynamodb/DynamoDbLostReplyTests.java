package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DeleteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A write that reached the server whose reply was lost: the caller sees a store error,
 * and the same transition sent again finds its own effect and succeeds, with the same
 * fence; no record is lost or handed to a second attempt.
 */
class DynamoDbLostReplyTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private final LosingClient client = new LosingClient(DynamoDbTestTables.client());

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(this.client,
			DynamoDbTestTables.table());

	private final RecordKey key = new RecordKey("lost-reply", UUID.randomUUID().toString());

	private final AcquireRequest a = new AcquireRequest("a", LEASE, RETENTION, null);

	@Test
	void acquireSentAgainGetsItsOwnFence() {
		this.client.loseNextReply();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.acquire(this.key, this.a))
			.withMessageContaining("acquire");
		assertThat(this.store.acquire(this.key, this.a)).isEqualTo(new Acquired(1, false));
		assertThat(this.store.acquire(this.key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.isNotInstanceOf(Acquired.class);
	}

	@Test
	void completeSentAgainSucceedsAndTheResultReplays() {
		this.store.acquire(this.key, this.a);
		this.client.loseNextReply();
		StoredResult result = StoredResult.of(new byte[] { 4, 2 });
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.complete(this.key, "a", 1, result, RETENTION));
		assertThat(this.store.complete(this.key, "a", 1, result, RETENTION)).isTrue();
		assertThat(this.store.renewLease(this.key, "a", 1, LEASE, RETENTION).toCompletableFuture().join())
			.isEqualTo(RenewalResult.FINISHED);
		Completed completed = (Completed) this.store.acquire(this.key, new AcquireRequest("b", LEASE, RETENTION, null));
		assertThat(completed.result().body()).containsExactly(4, 2);
	}

	@Test
	void releaseAndRenewSentAgainSucceed() {
		this.store.acquire(this.key, this.a);
		this.client.loseNextReply();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.renew(this.key, "a", 1, LEASE, RETENTION));
		assertThat(this.store.renew(this.key, "a", 1, LEASE, RETENTION)).isTrue();
		this.client.loseNextReply();
		assertThatExceptionOfType(IdempotencyStoreException.class)
			.isThrownBy(() -> this.store.release(this.key, "a", 1, RETENTION));
		assertThat(this.store.release(this.key, "a", 1, RETENTION)).isTrue();
		assertThat(this.store.read(this.key).orElseThrow().state()).isEqualTo(RecordState.FAILED);
		assertThat(this.store.acquire(this.key, new AcquireRequest("b", LEASE, RETENTION, null)))
			.isEqualTo(new Acquired(2, false));
	}

	/**
	 * Sends every request to the server, and when told, throws after the next write took
	 * effect, as a connection lost before its reply would.
	 */
	private static final class LosingClient implements DynamoDbClient {

		private final DynamoDbClient server;

		private final AtomicBoolean lose = new AtomicBoolean();

		LosingClient(DynamoDbClient server) {
			this.server = server;
		}

		void loseNextReply() {
			this.lose.set(true);
		}

		private <T> T reply(T response) {
			if (this.lose.compareAndSet(true, false)) {
				throw SdkClientException.create("Unable to execute HTTP request: Connection reset");
			}
			return response;
		}

		@Override
		public PutItemResponse putItem(PutItemRequest request) {
			return reply(this.server.putItem(request));
		}

		@Override
		public UpdateItemResponse updateItem(UpdateItemRequest request) {
			return reply(this.server.updateItem(request));
		}

		@Override
		public GetItemResponse getItem(GetItemRequest request) {
			return this.server.getItem(request);
		}

		@Override
		public DeleteItemResponse deleteItem(DeleteItemRequest request) {
			return this.server.deleteItem(request);
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
