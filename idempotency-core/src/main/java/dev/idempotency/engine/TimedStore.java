package dev.idempotency.engine;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchComplete;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RenewalResult;
import dev.idempotency.store.StoredResult;

/**
 * Times the transitions of a store for the engine's listeners, so that every store
 * implementation is measured the same way without knowing about metrics. A batch is one
 * store operation of its kind, timed once: it is one round trip in a store that pipelines
 * it.
 */
final class TimedStore implements IdempotencyStore {

	private final IdempotencyStore delegate;

	private final Listeners listeners;

	private final String type;

	TimedStore(IdempotencyStore delegate, Listeners listeners) {
		this.delegate = delegate;
		this.listeners = listeners;
		this.type = delegate.type();
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		return timed(StoreOperation.ACQUIRE, () -> this.delegate.acquire(key, request));
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		return timed(StoreOperation.COMPLETE, () -> this.delegate.complete(key, owner, fence, result, retention));
	}

	@Override
	public List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
		return timed(StoreOperation.ACQUIRE, () -> this.delegate.acquireAll(batch));
	}

	@Override
	public List<Boolean> completeAll(List<BatchComplete> batch) {
		return timed(StoreOperation.COMPLETE, () -> this.delegate.completeAll(batch));
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return timed(StoreOperation.RELEASE, () -> this.delegate.release(key, owner, fence, retention));
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return timed(StoreOperation.RENEW, () -> this.delegate.renew(key, owner, fence, lease, retention));
	}

	@Override
	public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return timedAsync(StoreOperation.RENEW, () -> this.delegate.renewAsync(key, owner, fence, lease, retention));
	}

	@Override
	public CompletionStage<RenewalResult> renewLease(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return timedAsync(StoreOperation.RENEW, () -> this.delegate.renewLease(key, owner, fence, lease, retention));
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		return timedAsync(StoreOperation.RELEASE, () -> this.delegate.abandon(key, owner, retention));
	}

	@Override
	public Optional<IdempotencyRecord> read(RecordKey key) {
		return this.delegate.read(key);
	}

	@Override
	public boolean evict(RecordKey key) {
		return this.delegate.evict(key);
	}

	@Override
	public String type() {
		return this.type;
	}

	@Override
	public boolean joinsCurrentTransaction() {
		return this.delegate.joinsCurrentTransaction();
	}

	private <T> CompletionStage<T> timedAsync(StoreOperation operation, Supplier<CompletionStage<T>> call) {
		long start = System.nanoTime();
		CompletionStage<T> reply;
		try {
			reply = call.get();
		}
		catch (RuntimeException ex) {
			this.listeners.onStoreOperation(operation, this.type, System.nanoTime() - start, false);
			throw ex;
		}
		return reply.whenComplete((result, ex) -> this.listeners.onStoreOperation(operation, this.type,
				System.nanoTime() - start, ex == null));
	}

	private <T> T timed(StoreOperation operation, Supplier<T> call) {
		long start = System.nanoTime();
		boolean succeeded = false;
		try {
			T result = call.get();
			succeeded = true;
			return result;
		}
		finally {
			this.listeners.onStoreOperation(operation, this.type, System.nanoTime() - start, succeeded);
		}
	}

}
