package dev.idempotency.store.dynamodb;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.test.dynamodb.PrivateDynamoDbServer;
import dev.idempotency.test.dynamodb.TestDynamoDb;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server crashed ({@code kill -9}) and started again on its data while calls run: calls
 * in flight fail as store errors, never otherwise, and every completion the store
 * acknowledged is replayed afterwards with its result.
 */
class DynamoDbServerRestartTests {

	private static final Duration RETENTION = Duration.ofMinutes(10);

	@Test
	void completionsAcknowledgedBeforeACrashAreReplayedAfterTheRestart() throws Exception {
		try (PrivateDynamoDbServer server = TestDynamoDb.startPrivateServer();
				DynamoDbClient client = server.client()) {
			DynamoDbTable.initialize(client, "idempotency");
			DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(client, "idempotency");
			List<RecordKey> completed = new CopyOnWriteArrayList<>();
			AtomicInteger storeErrors = new AtomicInteger();
			AtomicBoolean running = new AtomicBoolean(true);
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				Future<?> calls = executor.submit(() -> {
					while (running.get()) {
						RecordKey key = new RecordKey("restart", UUID.randomUUID().toString());
						try {
							AcquireResult result = store.acquire(key, request("writer"));
							if (result instanceof Acquired acquired && store.complete(key, "writer", acquired.fence(),
									StoredResult.of(body(key)), RETENTION)) {
								completed.add(key);
							}
						}
						catch (IdempotencyStoreException ex) {
							storeErrors.incrementAndGet();
						}
					}
					return null;
				});
				Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> completed.size() >= 20);
				server.restart();
				int beforeRestart = completed.size();
				Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> completed.size() >= beforeRestart + 20);
				running.set(false);
				calls.get(30, TimeUnit.SECONDS);
			}
			finally {
				running.set(false);
				executor.shutdownNow();
			}
			for (RecordKey key : completed) {
				Completed replay = (Completed) store.acquire(key, request("checker"));
				assertThat(replay.fence()).isEqualTo(1);
				assertThat(replay.result().body()).isEqualTo(body(key));
			}
		}
	}

	private static byte[] body(RecordKey key) {
		return key.key().getBytes(StandardCharsets.UTF_8);
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, Duration.ofSeconds(30), RETENTION, null);
	}

}
