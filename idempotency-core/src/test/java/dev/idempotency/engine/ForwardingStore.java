package dev.idempotency.engine;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

/**
 * A store that forwards every call to a real one; tests override the transitions they
 * break. Like an application's wrapper written against the interface's abstract methods,
 * it leaves {@code renewLease} to its default, which renews through {@link #renewAsync}.
 */
class ForwardingStore implements IdempotencyStore {

	private final IdempotencyStore delegate;

	ForwardingStore(IdempotencyStore delegate) {
		this.delegate = delegate;
	}

	@Override
	public AcquireResult acquire(RecordKey key, AcquireRequest request) {
		return this.delegate.acquire(key, request);
	}

	@Override
	public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
		return this.delegate.complete(key, owner, fence, result, retention);
	}

	@Override
	public boolean release(RecordKey key, String owner, long fence, Duration retention) {
		return this.delegate.release(key, owner, fence, retention);
	}

	@Override
	public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
		return this.delegate.renew(key, owner, fence, lease, retention);
	}

	@Override
	public CompletionStage<Boolean> renewAsync(RecordKey key, String owner, long fence, Duration lease,
			Duration retention) {
		return this.delegate.renewAsync(key, owner, fence, lease, retention);
	}

	@Override
	public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
		return this.delegate.abandon(key, owner, retention);
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
		return this.delegate.type();
	}

}
