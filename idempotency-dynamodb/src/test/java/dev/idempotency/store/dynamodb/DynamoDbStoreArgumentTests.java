package dev.idempotency.store.dynamodb;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.StoredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Misuse of the store's methods and constructor: a precise
 * {@link IllegalArgumentException} before any request reaches the server, never a
 * {@link NullPointerException} from inside a transition or an {@link ArithmeticException}
 * from a clock-skew allowance.
 */
class DynamoDbStoreArgumentTests {

	private static final Duration MINUTE = Duration.ofMinutes(1);

	private final DynamoDbIdempotencyStore store = new DynamoDbIdempotencyStore(DynamoDbTestTables.client(),
			DynamoDbTestTables.table());

	@Test
	void everyMethodRefusesANullKey() {
		StoredResult result = StoredResult.of(new byte[0]);
		assertKeyRefused(() -> this.store.acquire(null, new AcquireRequest("owner", MINUTE, MINUTE, null)));
		assertKeyRefused(() -> this.store.complete(null, "owner", 1, result, MINUTE));
		assertKeyRefused(() -> this.store.release(null, "owner", 1, MINUTE));
		assertKeyRefused(() -> this.store.renew(null, "owner", 1, MINUTE, MINUTE));
		assertKeyRefused(() -> this.store.renewLease(null, "owner", 1, MINUTE, MINUTE));
		assertKeyRefused(() -> this.store.abandon(null, "owner", MINUTE));
		assertKeyRefused(() -> this.store.read(null));
		assertKeyRefused(() -> this.store.evict(null));
	}

	@Test
	void clockSkewIsNeitherNegativeNorBeyondADay() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), "t", Duration.ofMillis(-1)))
			.withMessageContaining("'clockSkew' must not be negative");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), "t",
					Duration.ofSeconds(Long.MAX_VALUE)))
			.withMessageContaining("'clockSkew' must not exceed PT24H");
		assertThat(new DynamoDbIdempotencyStore(DynamoDbTestTables.client(), "t", Duration.ofDays(1)))
			.hasToString("DynamoDB store, table t" + DynamoDbTableCheck.where(DynamoDbTestTables.client())
					+ ", clock skew allowance 86400000 ms");
	}

	private static void assertKeyRefused(Executable call) {
		assertThat(assertThrows(IllegalArgumentException.class, call)).hasMessage("'key' must not be null");
	}

}
