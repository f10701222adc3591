package dev.idempotency.test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.test.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class StoreScenariosTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final Duration RETENTION = Duration.ofMinutes(10);

	static Stream<IdempotencyStore> stores() {
		return Stream.of(new InMemoryIdempotencyStore(),
				new RedisIdempotencyStore(TestRedis.get().connectionFactory(), "idempotency-scenarios:"));
	}

	@ParameterizedTest
	@MethodSource("stores")
	void crashedAttemptIsInProgressAndTakenOverWithTheNextFence(IdempotencyStore store) {
		String key = newKey();
		AbandonedAttempt crashed = StoreScenarios.crashedAttempt(store, "Payments.charge", key);
		assertThat(crashed.key()).isEqualTo(new RecordKey("Payments.charge", key));
		assertThat(crashed.fence()).isEqualTo(1);
		IdempotencyRecord record = store.read(crashed.key()).orElseThrow();
		assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
		assertThat(store.acquire(crashed.key(), request("next"))).isEqualTo(new Acquired(2, true));
	}

	@ParameterizedTest
	@MethodSource("stores")
	void crashedAttemptStillOwnsTheRecordUntilItIsTakenOver(IdempotencyStore store) {
		AbandonedAttempt crashed = StoreScenarios.crashedAttempt(store, "Payments.charge", newKey());
		assertThat(crashed.renew(LEASE)).isTrue();
		assertThat(crashed.complete()).isTrue();
		Completed completed = (Completed) store.acquire(crashed.key(), request("next"));
		assertThat(completed.result().isReplayable()).isFalse();
	}

	@ParameterizedTest
	@MethodSource("stores")
	void zombieIsRefusedEverythingAfterItsSuccessor(IdempotencyStore store) {
		String key = newKey();
		AbandonedAttempt zombie = StoreScenarios.zombieAttempt(store, "Payments.charge", key, () -> {
			RecordKey recordKey = new RecordKey("Payments.charge", key);
			Acquired acquired = (Acquired) store.acquire(recordKey, request("successor"));
			store.complete(recordKey, "successor", acquired.fence(), StoredResult.of(bytes("receipt")), RETENTION);
		});
		assertThat(zombie.complete()).isFalse();
		assertThat(zombie.release()).isFalse();
		assertThat(zombie.renew(LEASE)).isFalse();
		Completed completed = (Completed) store.acquire(zombie.key(), request("next"));
		assertThat(completed.fence()).isEqualTo(zombie.fence() + 1);
		assertThat(completed.result().body()).isEqualTo(bytes("receipt"));
	}

	@ParameterizedTest
	@MethodSource("stores")
	void zombieWhoseSuccessorDidNotTakeOverFails(IdempotencyStore store) {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> StoreScenarios.zombieAttempt(store, "Payments.charge", newKey(), () -> {
			}))
			.withMessageContaining("The successor did not take Payments.charge:")
			.withMessageContaining("over: its fence is still 1");
	}

	@ParameterizedTest
	@MethodSource("stores")
	void crashedAttemptOnAKeyInUseIsRefused(IdempotencyStore store) {
		RecordKey key = new RecordKey("Payments.charge", newKey());
		store.acquire(key, request("live"));
		assertThatIllegalStateException().isThrownBy(() -> StoreScenarios.crashedAttempt(store, key.name(), key.key()))
			.withMessageStartingWith("Cannot leave a crashed attempt on " + key
					+ ": the store already holds a record for it (InProgress[fence=1");
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	private static AcquireRequest request(String owner) {
		return new AcquireRequest(owner, LEASE, RETENTION, null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
