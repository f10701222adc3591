package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.Map;

import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.dynamodb.TableAccess.Written;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static dev.idempotency.store.dynamodb.Attributes.n;
import static dev.idempotency.store.dynamodb.Attributes.s;

/**
 * The renew transition: one conditional update of an item in progress that this owner
 * holds and that has not expired. When its condition fails, the item found tells a
 * renewal that crossed this owner's own completion or release ({@code FINISHED}) from
 * ownership lost.
 */
final class RenewTransition {

	private static final int MAX_ROUNDS = 3;

	private final TableAccess table;

	RenewTransition(TableAccess table) {
		this.table = table;
	}

	RenewalResult renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		String id = this.table.id(key);
		long leaseMillis = DynamoDbFailures.millis(lease, "lease");
		long retentionMillis = DynamoDbFailures.millis(retention, "retention");
		for (int round = 0; round < MAX_ROUNDS; round++) {
			long now = this.table.now();
			long expires = now + leaseMillis + retentionMillis;
			Condition condition = Condition
				.update("SET #lease = :newLease, #expires = :newExpires, #ttl = :ttl", FinishTransitions.LIVE_AND_OWNED)
				.with(":inProgress", s(Attributes.IN_PROGRESS))
				.with(":owner", s(owner))
				.with(":fence", n(fence))
				.with(":expiredBefore", n(now - this.table.skew()))
				.with(":newLease", n(now + leaseMillis))
				.with(":newExpires", n(expires))
				.with(":ttl", this.table.ttl(expires));
			Written written = this.table.update(key, "renew", id, condition, true);
			if (written.written()) {
				return RenewalResult.RENEWED;
			}
			Map<String, AttributeValue> found = written.found();
			if (found == null) {
				return RenewalResult.LOST;
			}
			StoredItem item = this.table.record(key, found);
			if (item.isExpired(now, this.table.skew()) || !item.isOwnedBy(owner, fence)) {
				return RenewalResult.LOST;
			}
			if (!item.isInProgress()) {
				return RenewalResult.FINISHED;
			}
			// Still this attempt's, in progress: changed between the write and the read,
			// so the renewal runs again
		}
		return RenewalResult.LOST;
	}

}
