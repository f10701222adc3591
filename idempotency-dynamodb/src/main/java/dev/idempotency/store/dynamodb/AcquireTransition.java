package dev.idempotency.store.dynamodb;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.dynamodb.TableAccess.Written;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static dev.idempotency.store.dynamodb.Attributes.b;
import static dev.idempotency.store.dynamodb.Attributes.bool;
import static dev.idempotency.store.dynamodb.Attributes.n;
import static dev.idempotency.store.dynamodb.Attributes.s;

/**
 * The acquire transition: put a new item if there is none, else decide on the item found
 * as the other stores do, and write the decision with a put or an update whose condition
 * holds everything the decision was based on (state, owner, fence, lease and expiry).
 * When the condition fails, another caller moved first: the decision is made again on the
 * item the failed write reports, a bounded number of times. So two acquires can never
 * both take over one expired attempt: the second finds the fence already raised.
 */
final class AcquireTransition {

	private static final int MAX_ROUNDS = 16;

	private static final AcquireResult NEW = new AcquireResult.Acquired(1, false);

	private static final AcquireResult KEY_REUSED = new AcquireResult.KeyReused();

	private static final String ABSENT = "attribute_not_exists(#id)";

	// The item is still the one the decision was made on
	private static final String UNCHANGED = "#state = :state AND #owner = :owner AND #fence = :fence "
			+ "AND #lease = :lease AND #expires = :expires";

	private final TableAccess table;

	AcquireTransition(TableAccess table) {
		this.table = table;
	}

	AcquireResult acquire(RecordKey key, AcquireRequest request) {
		Attempt attempt = new Attempt(key, this.table.id(key), request.owner(),
				DynamoDbFailures.millis(request.lease(), "lease"),
				DynamoDbFailures.millis(request.retention(), "retention"), fingerprint(request));
		Map<String, AttributeValue> found = null;
		for (int round = 0; round < MAX_ROUNDS; round++) {
			long now = this.table.now();
			if (found == null) {
				Written written = this.table.put(key, "acquire", attempt.item(now, 1, false, this.table),
						Condition.of(ABSENT), true);
				if (written.written()) {
					return NEW;
				}
				found = written.found();
				if (found == null) {
					// Deleted between the put and the read: put again
					continue;
				}
			}
			Decision decision = decide(attempt, this.table.record(key, found), now);
			if (decision.result() != null) {
				return decision.result();
			}
			found = decision.found();
		}
		throw new IdempotencyStoreException("The item of '" + key + "' in table " + this.table.table()
				+ " changed under each of " + MAX_ROUNDS + " attempts to acquire it");
	}

	private Decision decide(Attempt attempt, StoredItem item, long now) {
		long skew = this.table.skew();
		if (item.isExpired(now, skew)) {
			// Gone, as if there were no item: the record starts again from fence 1
			return claim(attempt, item, now, 1, false);
		}
		if (item.isReusedBy(attempt.fingerprint())) {
			return new Decision(KEY_REUSED, null);
		}
		if (item.isCompleted()) {
			return new Decision(new AcquireResult.Completed(item.fence(), item.storedResult()), null);
		}
		if (item.isInProgress() && item.owner().equals(attempt.owner())) {
			return reclaim(attempt, item, now);
		}
		if (item.isHeld(now, skew)) {
			return new Decision(new AcquireResult.InProgress(item.fence(), item.leaseRemaining(now, skew)), null);
		}
		return claim(attempt, item, now, item.fence() + 1, item.isInProgress());
	}

	/**
	 * Replace the item by a new attempt, if it is still the one decided on.
	 */
	private Decision claim(Attempt attempt, StoredItem item, long now, long fence, boolean takeover) {
		Condition condition = unchanged(Condition.of(UNCHANGED), item);
		Written written = this.table.put(attempt.key(), "acquire", attempt.item(now, fence, takeover, this.table),
				condition, true);
		return written.written() ? new Decision(new AcquireResult.Acquired(fence, takeover), null)
				: new Decision(null, written.found());
	}

	/**
	 * A re-sent acquire finds its own attempt: same fence and takeover mark, lease
	 * started again.
	 */
	private Decision reclaim(Attempt attempt, StoredItem item, long now) {
		long expires = now + attempt.lease() + attempt.retention();
		Condition condition = unchanged(
				Condition.update("SET #lease = :newLease, #expires = :newExpires, #ttl = :ttl", UNCHANGED), item)
			.with(":newLease", n(now + attempt.lease()))
			.with(":newExpires", n(expires))
			.with(":ttl", this.table.ttl(expires));
		Written written = this.table.update(attempt.key(), "acquire", attempt.id(), condition, true);
		return written.written() ? new Decision(new AcquireResult.Acquired(item.fence(), item.takeover()), null)
				: new Decision(null, written.found());
	}

	private static Condition unchanged(Condition condition, StoredItem item) {
		return condition.with(":state", s(item.state()))
			.with(":owner", s(item.owner()))
			.with(":fence", n(item.fence()))
			.with(":lease", n(item.leaseUntil()))
			.with(":expires", n(item.expiresAt()));
	}

	private static byte @Nullable [] fingerprint(AcquireRequest request) {
		byte[] fingerprint = request.fingerprint();
		// Like the other stores, an empty fingerprint is no fingerprint
		return (fingerprint != null && fingerprint.length > 0) ? fingerprint.clone() : null;
	}

	private record Attempt(RecordKey key, String id, String owner, long lease, long retention,
			byte @Nullable [] fingerprint) {

		/**
		 * The item of a new attempt, kept for retention past its lease, so that the next
		 * attempt still finds it and raises the fence, even if this one dies and nobody
		 * comes for it until then.
		 */
		Map<String, AttributeValue> item(long now, long fence, boolean takeover, TableAccess table) {
			long expires = now + this.lease + this.retention;
			Map<String, AttributeValue> item = new HashMap<>();
			item.put(Attributes.ID, s(this.id));
			item.put(Attributes.VERSION, n(Attributes.FORMAT_VERSION));
			item.put(Attributes.STATE, s(Attributes.IN_PROGRESS));
			item.put(Attributes.FENCE, n(fence));
			item.put(Attributes.OWNER, s(this.owner));
			item.put(Attributes.TAKEOVER, bool(takeover));
			item.put(Attributes.STARTED, n(now));
			item.put(Attributes.LEASE, n(now + this.lease));
			item.put(Attributes.EXPIRES, n(expires));
			item.put(Attributes.TTL, table.ttl(expires));
			if (this.fingerprint != null) {
				item.put(Attributes.FINGERPRINT, b(this.fingerprint));
			}
			return item;
		}

	}

	private record Decision(@Nullable AcquireResult result, @Nullable Map<String, AttributeValue> found) {
	}

}
