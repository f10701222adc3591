package dev.idempotency.store.dynamodb;

import java.time.Duration;
import java.util.Map;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.dynamodb.TableAccess.Written;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

import static dev.idempotency.store.dynamodb.Attributes.n;
import static dev.idempotency.store.dynamodb.Attributes.s;

/**
 * The transitions that finish an attempt: complete, which stores its outcome; release and
 * abandon, which give it up. Each is one conditional update of an item in progress that
 * this owner holds and that has not expired. Only when its condition fails is the item
 * looked at (the one the server returned, or one consistent read), to tell a transition
 * this very owner already made (a re-sent one, which succeeds) from ownership lost, and
 * an item that is not a record (an error) from both.
 */
final class FinishTransitions {

	static final String LIVE_AND_OWNED = "#state = :inProgress AND #owner = :owner AND #fence = :fence "
			+ "AND #expires > :expiredBefore";

	private final TableAccess table;

	FinishTransitions(TableAccess table) {
		this.table = table;
	}

	boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		String id = this.table.id(key);
		long millis = DynamoDbFailures.millis(retention, "retention");
		StoredResult stored = ResultFit.fit(id, owner, result);
		try {
			return complete(key, id, owner, fence, stored, millis);
		}
		catch (IdempotencyStoreException ex) {
			// The estimate fell short of the server's count: complete without the body
			if (stored.isReplayable() && ResultFit.isItemTooLarge(ex)) {
				return complete(key, id, owner, fence, ResultFit.unreplayable(stored.body().length), millis);
			}
			throw ex;
		}
	}

	private boolean complete(RecordKey key, String id, String owner, long fence, StoredResult result, long retention) {
		long now = this.table.now();
		long expires = now + retention;
		Condition condition = owned(Condition.update(
				"SET #state = :completed, #completed = :now, " + "#expires = :expires, #ttl = :ttl, " + outcome(result),
				LIVE_AND_OWNED), owner, fence, now)
			.with(":completed", s(Attributes.COMPLETED_STATE))
			.with(":now", n(now))
			.with(":expires", n(expires))
			.with(":ttl", this.table.ttl(expires));
		bindOutcome(condition, result);
		Written written = this.table.update(key, "complete", id, condition, true);
		return finished(key, written, owner, fence, Attributes.COMPLETED_STATE, now);
	}

	boolean release(RecordKey key, String owner, long fence, Duration retention) {
		String id = this.table.id(key);
		long now = this.table.now();
		long expires = now + DynamoDbFailures.millis(retention, "retention");
		Condition condition = owned(
				Condition.update("SET #state = :failed, #expires = :expires, #ttl = :ttl", LIVE_AND_OWNED), owner,
				fence, now)
			.with(":failed", s(Attributes.FAILED))
			.with(":expires", n(expires))
			.with(":ttl", this.table.ttl(expires));
		Written written = this.table.update(key, "release", id, condition, true);
		return finished(key, written, owner, fence, Attributes.FAILED, now);
	}

	/**
	 * Release the attempt of this owner, whatever its fence.
	 */
	boolean abandon(RecordKey key, String owner, Duration retention) {
		String id = this.table.id(key);
		long now = this.table.now();
		long expires = now + DynamoDbFailures.millis(retention, "retention");
		Condition condition = Condition
			.update("SET #state = :failed, #expires = :expires, #ttl = :ttl",
					"#state = :inProgress AND #owner = :owner AND #expires > :expiredBefore")
			.with(":inProgress", s(Attributes.IN_PROGRESS))
			.with(":owner", s(owner))
			.with(":expiredBefore", n(now - this.table.skew()))
			.with(":failed", s(Attributes.FAILED))
			.with(":expires", n(expires))
			.with(":ttl", this.table.ttl(expires));
		return this.table.update(key, "abandon", id, condition, false).written();
	}

	Condition owned(Condition condition, String owner, long fence, long now) {
		return condition.with(":inProgress", s(Attributes.IN_PROGRESS))
			.with(":owner", s(owner))
			.with(":fence", n(fence))
			.with(":expiredBefore", n(now - this.table.skew()));
	}

	private boolean finished(RecordKey key, Written written, String owner, long fence, String state, long now) {
		if (written.written()) {
			return true;
		}
		Map<String, AttributeValue> found = written.found();
		if (found == null) {
			return false;
		}
		StoredItem item = this.table.record(key, found);
		return !item.isExpired(now, this.table.skew()) && item.isOwnedBy(owner, fence) && state.equals(item.state());
	}

	private static String outcome(StoredResult result) {
		if (result.isFailure()) {
			return (result.failureMessage() != null) ? "#ftype = :ftype, #fmsg = :fmsg" : "#ftype = :ftype";
		}
		return (result.unreplayableReason() != null) ? "#reason = :reason" : "#result = :result";
	}

	private static void bindOutcome(Condition condition, StoredResult result) {
		String failureType = result.failureType();
		String reason = result.unreplayableReason();
		if (failureType != null) {
			condition.with(":ftype", s(failureType));
			String message = result.failureMessage();
			if (message != null) {
				condition.with(":fmsg", s(message));
			}
		}
		else if (reason != null) {
			condition.with(":reason", s(reason));
		}
		else {
			condition.with(":result", Attributes.b(result.body()));
		}
	}

}
