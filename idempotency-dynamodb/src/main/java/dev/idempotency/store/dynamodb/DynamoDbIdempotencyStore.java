package dev.idempotency.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import org.springframework.util.Assert;

/**
 * {@link IdempotencyStore} in a DynamoDB table whose hash key is the string attribute
 * {@code id}, as {@link DynamoDbTable#initialize} creates it: one item per record, and
 * every transition one {@code PutItem}, {@code UpdateItem} or {@code DeleteItem} whose
 * condition checks the state, owner token, fence and lease it was decided on. No
 * transactions are needed; fences only rise while a record lives.
 * <p>
 * <b>Clock.</b> DynamoDB has no clock a condition can read, so leases and expiry are
 * judged on the clock of the caller, with a skew allowance added before any takeover: an
 * attempt is taken over only once its lease ended longer ago than the allowance, and an
 * item counts as absent only once its expiry did. This is weaker than the Redis and JDBC
 * stores, which judge on the server's one clock: a caller whose clock runs ahead of the
 * lease holder's by more than the allowance can take over a live lease. Keep the callers'
 * clocks synchronised (NTP, as on EC2) well within it.
 * <p>
 * Items past their expiry are treated as absent, whether or not DynamoDB's TTL (on the
 * number attribute {@code ttl}, in epoch seconds) has deleted them yet. Results are
 * stored as a binary attribute; one that does not fit DynamoDB's 400 KB item limit
 * completes as not replayable, with the reason. An item that this store cannot have
 * written is reported as {@link IdempotencyStoreException}, saying why, and never
 * overwritten; {@link #evict} deletes it. Every failure of the client is reported as
 * {@link IdempotencyStoreException} with the client's exception as its cause.
 */
public final class DynamoDbIdempotencyStore implements IdempotencyStore {

	/**
	 * The clock-skew allowance of a store created without one.
	 */
	public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(1);

	private static final Duration MAX_CLOCK_SKEW = Duration.ofDays(1);

	private final TableAccess table;

	private final AcquireTransition acquisition;

	private final FinishTransitions finish;

	private final RenewTransition renewal;

	private final ReadAndEvict records;

	/**
	 * Create a store with a clock-skew allowance of one second.
	 * @param client the client, which the caller closes
	 * @param table the table
	 */
	public DynamoDbIdempotencyStore(DynamoDbClient client, String table) {
		this(client, table, DEFAULT_CLOCK_SKEW);
	}

	/**
	 * Create a store.
	 * @param client the client, which the caller closes
	 * @param table the table
	 * @param clockSkew how far the callers' clocks may drift apart: it is added to a
	 * lease before it is taken over, and to an expiry before the item counts as absent;
	 * not negative, and at most a day
	 */
	public DynamoDbIdempotencyStore(DynamoDbClient client, String table, Duration clockSkew) {
		this(client, table, clockSkew, Clock.systemUTC());
	}

	DynamoDbIdempotencyStore(DynamoDbClient client, String table, Duration clockSkew, Clock clock) {
		Assert.notNull(client, "'client' must not be null");
		Assert.hasText(table, "'table' must not be empty");
		Assert.isTrue(clockSkew != null && !clockSkew.isNegative(), "'clockSkew' must not be negative");
		Assert.isTrue(clockSkew.compareTo(MAX_CLOCK_SKEW) <= 0,
				() -> "'clockSkew' must not exceed " + MAX_CLOCK_SKEW + " (it is " + clockSkew
						+ "): clocks that far apart would keep a crashed call's lease from being taken over");
		this.table = new TableAccess(client, table, clockSkew.toMillis(), clock);
		this.acquisition = new AcquireTransition(this.table);
		this.finish = new FinishTransitions(this.table);
		this.renewal = new RenewTransition(this.table);
		this.records = new ReadAndEvict(this.table);
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(request, "'request' must not be null");
		return this.acquisition.acquire(key, request);
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(result, "'result' must not be null");
		return this.finish.complete(key, owner, fence, result, retention);
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		Assert.notNull(key, "'key' must not be null");
		return this.finish.release(key, owner, fence, retention);
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		Assert.notNull(key, "'key' must not be null");
		return this.renewal.renew(key, owner, fence, lease, retention) != RenewalResult.LOST;
	}

	@Override
	public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		Assert.notNull(key, "'key' must not be null");
		try {
			return CompletableFuture.completedFuture(this.renewal.renew(key, owner, fence, lease, retention));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		Assert.notNull(key, "'key' must not be null");
		try {
			return CompletableFuture.completedFuture(this.finish.abandon(key, owner, retention));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		Assert.notNull(key, "'key' must not be null");
		return this.records.read(key);
	}

	@Override
	public boolean evict(RecordKey key) {
		Assert.notNull(key, "'key' must not be null");
		return this.records.evict(key);
	}

	/**
	 * Return a check of whether this store's table exists and accepts writes, for health
	 * indicators.
	 * @return a check of the table
	 */
	public DynamoDbTableCheck tableCheck() {
		return new DynamoDbTableCheck(this.table.client(), this.table.table());
	}

	@Override
	public String type() {
		return "dynamodb";
	}

	/**
	 * Describe where the records are: the table, and the endpoint or region of the client
	 * when it tells them.
	 * @return a description for logs
	 */
	@Override
	public String toString() {
		return "DynamoDB store, table " + this.table.table() + DynamoDbTableCheck.where(this.table.client())
				+ ", clock skew allowance " + this.table.skew() + " ms";
	}

}
