package dev.idempotency.actuate.health;

import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbIdempotencyStore;
import dev.idempotency.store.dynamodb.DynamoDbTableCheck;

import org.springframework.boot.health.contributor.Health;

/**
 * Health of a DynamoDB store beyond a read: whether its table exists and accepts a write
 * (a conditional update that changes nothing). {@code DOWN} with a {@code reason} that
 * says which, and for a missing table how to create it. A class of its own so that it is
 * loaded only when idempotency-dynamodb is on the class path.
 */
final class DynamoDbStoreHealth implements Consumer<Health.Builder> {

	private final DynamoDbTableCheck check;

	private DynamoDbStoreHealth(DynamoDbIdempotencyStore store) {
		this.check = store.tableCheck();
	}

	static @Nullable Consumer<Health.Builder> of(IdempotencyStore store) {
		return (store instanceof DynamoDbIdempotencyStore dynamodb) ? new DynamoDbStoreHealth(dynamodb) : null;
	}

	@Override
	public void accept(Health.Builder builder) {
		DynamoDbTableCheck.Status status = this.check.check();
		builder.withDetail("table", status.table());
		if (status.problem() != null) {
			builder.down().withDetail("reason", status.problem());
		}
	}

}
