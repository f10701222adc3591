package dev.idempotency.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.idempotency.IdempotencyStoreException;

/**
 * Atomic transitions of idempotency records: {@code IN_PROGRESS → COMPLETED | FAILED}.
 * <p>
 * Every method is atomic with respect to the others for the same key, and every judgement
 * of time (lease expiry, retention) is made on the store's clock. Transitions that change
 * an owned record ({@link #complete}, {@link #release}, {@link #renew}) succeed only for
 * the owner token and fence that acquired it, and are idempotent for that owner:
 * re-sending a transition that already took effect succeeds again. {@link #acquire} is
 * safe to re-send too: the same owner token finds its own in-progress attempt and gets
 * its fence again.
 * <p>
 * An in-progress record lives at least {@code lease + retention} past its last acquire or
 * renewal, a completed or failed one {@code retention} past its transition, so that fence
 * numbers keep rising and a takeover is always seen as one while the record lives.
 * <p>
 * Every failure of the underlying client, and any value under a record's key that is not
 * a record written by this store, is reported as {@link IdempotencyStoreException}.
 * Implementations are thread-safe.
 * <p>
 * Batches ({@link #acquireAll}, {@link #completeAll}) apply the single transitions to
 * each item in order, as if one after the other; a store whose client can send many
 * commands before reading their replies overrides them to cost one round trip.
 */
public interface IdempotencyStore {

	/**
	 * Take ownership of the record, or report why not.
	 * @param key the record
	 * @param request the attempt's owner token, lease, retention and fingerprint
	 * @return what was found and done
	 * @throws IdempotencyStoreException when the store fails
	 */
	AcquireResult acquire(RecordKey key, AcquireRequest request);

	/**
	 * {@link #acquire Acquire} every item of a batch, in order: an item whose key an
	 * earlier item of the same batch has taken finds that attempt in progress (or its
	 * own, for the same owner token). This default acquires one item after the other;
	 * stores override it to send the whole batch at once.
	 * <p>
	 * When the store fails for any item, the whole call fails with
	 * {@link IdempotencyStoreException}, and any item, before or after the one that
	 * failed, may have been acquired all the same: the caller {@link #abandon abandons}
	 * every item of the batch. A store that did learn the fate of some items throws
	 * {@link BatchAcquireException} with their results, so that a caller running
	 * unprotected on store failures replays an item found completed instead of running it
	 * again.
	 * @param batch the items, each a record and its request
	 * @return what each item found and did, in the order of the batch
	 * @throws IdempotencyStoreException when the store fails for any item
	 */
	default List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
		List<AcquireResult> results = new ArrayList<>(batch.size());
		for (BatchAcquire item : batch) {
			results.add(acquire(item.key(), item.request()));
		}
		return results;
	}

	/**
	 * Store the outcome and mark the record {@code COMPLETED} for {@code retention}, if
	 * the owner still owns it.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param fence the fence returned by {@link #acquire}
	 * @param result the outcome to store
	 * @param retention how long to keep it
	 * @return {@code true} if completed (or already completed by this owner),
	 * {@code false} if ownership was lost
	 * @throws IdempotencyStoreException when the store fails
	 */
	boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention);

	/**
	 * {@link #complete Complete} every item of a batch, in order. This default completes
	 * one item after the other; stores override it to send the whole batch at once.
	 * <p>
	 * When the store fails for any item, the whole call fails with
	 * {@link IdempotencyStoreException}, and any item may have been completed all the
	 * same: since completing is idempotent for the same owner, the caller may send each
	 * item again, in a batch or alone, to learn its fate.
	 * @param batch the items, each a record, its owner, fence, outcome and retention
	 * @return for each item in the order of the batch, {@code true} if completed (or
	 * already completed by this owner), {@code false} if ownership was lost
	 * @throws IdempotencyStoreException when the store fails for any item
	 */
	default List<Boolean> completeAll(List<BatchComplete> batch) {
		List<Boolean> results = new ArrayList<>(batch.size());
		for (BatchComplete item : batch) {
			results.add(complete(item.key(), item.owner(), item.fence(), item.result(), item.retention()));
		}
		return results;
	}

	/**
	 * Mark the record {@code FAILED}, keeping its fence, so that the next attempt runs
	 * again, if the owner still owns it.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param fence the fence returned by {@link #acquire}
	 * @param retention how long to keep the fence
	 * @return {@code true} if released (or already released by this owner), {@code false}
	 * if ownership was lost
	 * @throws IdempotencyStoreException when the store fails
	 */
	boolean release(RecordKey key, String owner, long fence, Duration retention);

	/**
	 * Extend the lease to {@code lease} from now, if the owner still owns the record, and
	 * keep the record for {@code retention} past that.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param fence the fence returned by {@link #acquire}
	 * @param lease the new lease, from now on the store's clock
	 * @param retention how long to keep the record past its lease
	 * @return {@code true} if renewed, or if this very owner has already completed or
	 * released the record (a renewal that crossed its own completion), {@code false} if
	 * ownership was lost
	 * @throws IdempotencyStoreException when the store fails
	 */
	boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention);

	/**
	 * Like {@link #renew}, without waiting for the store: renewals of many attempts must
	 * not queue behind one another. Stores whose client can send commands without waiting
	 * for replies override this; the default renews on the calling thread.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param fence the fence returned by {@link #acquire}
	 * @param lease the new lease, from now on the store's clock
	 * @param retention how long to keep the record past its lease
	 * @return what {@link #renew} returns, or its failure
	 */
	default CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		try {
			return CompletableFuture.completedFuture(renew(key, owner, fence, lease, retention));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Like {@link #renewAsync}, telling a record this very owner has already finished
	 * apart from one it renewed: the engine then stops retrying a completion whose
	 * command reached the store although its reply said otherwise. This default maps
	 * {@link #renewAsync} to {@link RenewalResult#RENEWED} or {@link RenewalResult#LOST};
	 * stores that can tell override it.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param fence the fence returned by {@link #acquire}
	 * @param lease the new lease, from now on the store's clock
	 * @param retention how long to keep the record past its lease
	 * @return what the renewal found, or the store's failure
	 */
	default CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return renewAsync(key, owner, fence, lease, retention)
			.thenApply((renewed) -> renewed ? RenewalResult.RENEWED : RenewalResult.LOST);
	}

	/**
	 * Mark {@code FAILED} the in-progress record that an acquire by this owner took, if
	 * any, whatever its fence: after an acquire whose reply never came (a timeout), so
	 * that an attempt that will never run does not block the key for a whole lease. Like
	 * {@link #renewAsync}, it need not wait for the store.
	 * @param key the record
	 * @param owner the owner token given to {@link #acquire}
	 * @param retention how long to keep the fence
	 * @return whether a record of this owner was released, or the store's failure
	 */
	CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention);

	/**
	 * Return whether this store writes records in the Spring-managed transaction active
	 * on the calling thread, so that a record completed now commits or rolls back with
	 * that transaction's own writes, as a store on the transaction's own database
	 * connection would. The engine asks while such a transaction is active, when an
	 * idempotent method has returned, and before it completes a record, whose completion
	 * it never retries inside a transaction (one of a transaction manager without
	 * synchronization may be joined too, unseen by the engine). A store that does not
	 * join it (this default: the Redis and in-memory stores write at once) has its record
	 * completed by the engine after the transaction commits, and released after it rolls
	 * back, so that an effect the rollback undid is never recorded as done.
	 * @return whether completing a record now joins the current transaction
	 */
	default boolean joinsCurrentTransaction() {
		return false;
	}

	/**
	 * Read a record for inspection.
	 * @param key the record
	 * @return the record, or empty if there is none
	 * @throws IdempotencyStoreException when the store fails
	 */
	Optional<IdempotencyRecord> read(RecordKey key);

	/**
	 * Delete a record, whatever its state, so that the next call runs the method again.
	 * @param key the record
	 * @return whether a record was deleted
	 * @throws IdempotencyStoreException when the store fails
	 */
	boolean evict(RecordKey key);

	/**
	 * Return the short name of this store type, such as {@code redis} or {@code memory},
	 * used in metrics and the actuator endpoint.
	 * @return the store type
	 */
	String type();

}
