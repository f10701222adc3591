package dev.idempotency.engine;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.AcquireResult.KeyReused;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

import org.springframework.util.Assert;

/**
 * Runs idempotent calls against a store: acquire, run while renewing the lease, complete
 * or release, or replay, as the reference design's "behaviour of one call" describes.
 * Thread-safe; one instance serves every operation.
 */
public final class IdempotencyEngine implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(IdempotencyEngine.class);

	private static final ThreadLocal<Attempt> CURRENT = new ThreadLocal<>();

	private static final byte[] NO_BODY = {};

	private final IdempotencyStore store;

	private final IdempotencyDefaults defaults;

	private final Listeners listeners;

	private final LeaseRenewer renewer;

	private final InProgressWaiter waiter = new InProgressWaiter();

	/**
	 * Create an engine that no observer wraps calls of.
	 * @param store the store of records
	 * @param defaults global settings and per-operation overrides
	 * @param listeners listeners told of every outcome
	 */
	public IdempotencyEngine(IdempotencyStore store, IdempotencyDefaults defaults,
			List<? extends IdempotencyListener> listeners) {
		this(store, defaults, listeners, IdempotencyObserver.NONE);
	}

	/**
	 * Create an engine.
	 * @param store the store of records
	 * @param defaults global settings and per-operation overrides
	 * @param listeners listeners told of every outcome
	 * @param observer the observer that wraps every call, such as a tracer, or
	 * {@link IdempotencyObserver#NONE}
	 */
	public IdempotencyEngine(IdempotencyStore store, IdempotencyDefaults defaults,
			List<? extends IdempotencyListener> listeners, IdempotencyObserver observer) {
		this.listeners = new Listeners(listeners, observer);
		this.store = this.listeners.isEmpty() ? store : new TimedStore(store, this.listeners);
		this.defaults = defaults;
		this.renewer = new LeaseRenewer(this.store);
	}

	/**
	 * Return the attempt running on the current thread.
	 * @return the attempt, or {@code null}
	 */
	public static @Nullable IdempotencyContext currentContext() {
		return CURRENT.get();
	}

	/**
	 * Return the store this engine uses, timed for its listeners if it has any.
	 * @return the store
	 */
	public IdempotencyStore getStore() {
		return this.store;
	}

	/**
	 * Return the global settings and overrides this engine resolves operations with.
	 * @return the defaults
	 */
	public IdempotencyDefaults getDefaults() {
		return this.defaults;
	}

	/**
	 * Return the record a call of an operation with a key is stored under, for operators
	 * who look a key up or evict it: a key longer than
	 * {@link IdempotencyDefaults#maxKeyLength()} is stored as the lowercase hex SHA-256
	 * of its UTF-8 bytes, any other key as it is. A digest given as the key is found too,
	 * since it is never longer than the maximum.
	 * @param name the operation name
	 * @param key the key as the key expression evaluates it
	 * @return the record key
	 * @throws IllegalArgumentException if the name or the key is blank
	 */
	public RecordKey recordKey(String name, String key) {
		Assert.hasText(key, "'key' must not be empty");
		return new RecordKey(name, Keys.stored(key, this.defaults.maxKeyLength()));
	}

	/**
	 * Run one idempotent call.
	 * @param operation the resolved operation
	 * @param rawKey the evaluated key, before validation and hashing
	 * @param fingerprint the payload fingerprint, or {@code null}
	 * @param invocation the work to run at most once per key
	 * @return the result of the work, or the replayed result of an earlier attempt
	 * @throws Throwable what the work throws, unchanged, or an
	 * {@link dev.idempotency.IdempotencyException}
	 */
	public @Nullable Object execute(Operation operation, @Nullable Object rawKey, byte @Nullable [] fingerprint,
			Invocation invocation) throws Throwable {
		RecordKey record = new RecordKey(operation.name(),
				Keys.normalize(operation, rawKey, this.defaults.maxKeyLength()));
		Call call = this.listeners.start(record);
		Throwable error = null;
		try {
			return acquireAndRun(operation, record, fingerprint, invocation, call);
		}
		catch (Throwable ex) {
			error = ex;
			throw ex;
		}
		finally {
			this.listeners.end(call, record, error);
		}
	}

	private @Nullable Object acquireAndRun(Operation operation, RecordKey record, byte @Nullable [] fingerprint,
			Invocation invocation, Call call) throws Throwable {
		OperationSettings settings = operation.settings();
		String owner = OwnerTokens.next();
		AcquireRequest request = new AcquireRequest(owner, settings.lockTimeout(), settings.retention(), fingerprint);
		AcquireResult result;
		try {
			result = this.store.acquire(record, request);
			if (result instanceof InProgress inProgress && settings.onInProgress() == OnInProgress.WAIT) {
				result = this.waiter.await(this.store, record, request, inProgress, settings.waitTimeout());
			}
		}
		catch (RuntimeException ex) {
			return onAcquireFailure(operation, record, ex, invocation, call);
		}
		if (result instanceof Acquired acquired) {
			return run(operation, new Attempt(record, owner, acquired.fence()), acquired.takeover(), invocation, call);
		}
		if (result instanceof Completed completed) {
			// Counted before decoding: a duplicate whose result cannot be replayed
			// is still a duplicate that the method did not run for.
			report(call, operation, Outcome.REPLAYED);
			return replay(operation, record, completed.result());
		}
		if (result instanceof InProgress inProgress) {
			report(call, operation, Outcome.IN_PROGRESS);
			throw new IdempotencyInProgressException(record.name(), record.key(), inProgress.leaseRemaining());
		}
		if (result instanceof KeyReused) {
			report(call, operation, Outcome.KEY_REUSE);
			throw new IdempotencyKeyReuseException(record.name(), record.key());
		}
		throw new IllegalStateException("Unknown acquire result " + result);
	}

	private @Nullable Object onAcquireFailure(Operation operation, RecordKey record, RuntimeException ex,
			Invocation invocation, Call call) throws Throwable {
		if (this.defaults.onStoreFailure() == StoreFailurePolicy.PROCEED) {
			logger.warn("Store unavailable for " + record + ": running the method WITHOUT idempotency protection "
					+ "(idempotency.on-store-failure=proceed)", ex);
			report(call, operation, Outcome.BYPASSED);
			return invocation.proceed();
		}
		report(call, operation, Outcome.STORE_ERROR);
		throw storeException("acquire", record, ex);
	}

	private @Nullable Object run(Operation operation, Attempt attempt, boolean takeover, Invocation invocation,
			Call call) throws Throwable {
		OperationSettings settings = operation.settings();
		Renewal renewal = this.renewer.start(attempt, settings.lockTimeout());
		Attempt outer = CURRENT.get();
		CURRENT.set(attempt);
		Object value;
		try {
			value = invocation.proceed();
		}
		catch (Throwable ex) {
			renewal.stop();
			release(operation, attempt, ex, call);
			throw ex;
		}
		finally {
			restore(outer);
		}
		renewal.stop();
		complete(operation, attempt, encode(operation, attempt, value), call);
		report(call, operation, takeover ? Outcome.RECOVERED : Outcome.EXECUTED);
		return value;
	}

	private void report(Call call, Operation operation, Outcome outcome) {
		this.listeners.onOutcome(call, operation.name(), outcome);
	}

	private static void restore(@Nullable Attempt outer) {
		if (outer != null) {
			CURRENT.set(outer);
		}
		else {
			CURRENT.remove();
		}
	}

	private void complete(Operation operation, Attempt attempt, StoredResult stored, Call call) {
		boolean completed;
		try {
			completed = this.store.complete(attempt.record(), attempt.owner(), attempt.fence(), stored,
					operation.settings().retention());
		}
		catch (RuntimeException ex) {
			report(call, operation, Outcome.STORE_ERROR);
			throw storeException("complete", attempt.record(), ex);
		}
		if (!completed) {
			logger.error(attempt + " ran its method but lost the record to another attempt before completing: "
					+ "its result was discarded. Raise the lock timeout of operation '" + operation.name()
					+ "' if this attempt was alive (a long GC pause or a frozen process).");
			report(call, operation, Outcome.LOCK_LOST);
			throw new IdempotencyLockLostException(attempt.name(), attempt.key(), attempt.fence());
		}
	}

	private void release(Operation operation, Attempt attempt, Throwable failure, Call call) {
		report(call, operation, Outcome.FAILED);
		try {
			if (!this.store.release(attempt.record(), attempt.owner(), attempt.fence(),
					operation.settings().retention())) {
				logger.warn(attempt + " failed and could not release its record: another attempt took it over");
			}
		}
		catch (RuntimeException ex) {
			// The method's own exception must reach the caller unchanged, so the store
			// failure travels with it; the record stays IN_PROGRESS until its lease
			// expires and the next delivery takes it over.
			failure.addSuppressed(storeException("release", attempt.record(), ex));
		}
	}

	private StoredResult encode(Operation operation, Attempt attempt, @Nullable Object value) {
		TypedCodec codec = operation.codec();
		if (codec == null) {
			return StoredResult.of(NO_BODY);
		}
		byte[] body;
		try {
			body = codec.encode(value);
		}
		catch (RuntimeException ex) {
			logger.warn(attempt + " completed, but its result could not be encoded; duplicates will get "
					+ "IdempotencyReplayException", ex);
			return StoredResult
				.unreplayable("its result of type " + typeName(value) + " could not be encoded: " + ex.getMessage());
		}
		if (body.length > this.defaults.maxResultSize()) {
			logger.warn(attempt + " completed, but its encoded result of " + body.length
					+ " bytes exceeds idempotency.max-result-size; duplicates will get IdempotencyReplayException");
			return StoredResult.unreplayable("its encoded result of " + body.length
					+ " bytes exceeds idempotency.max-result-size of " + this.defaults.maxResultSize() + " bytes");
		}
		return StoredResult.of(body);
	}

	private static String typeName(@Nullable Object value) {
		return (value != null) ? value.getClass().getName() : "null";
	}

	private @Nullable Object replay(Operation operation, RecordKey record, StoredResult stored) {
		if (!stored.isReplayable()) {
			throw new IdempotencyReplayException("Operation '" + record.name() + "' already completed for key '"
					+ record.key() + "' but " + stored.unreplayableReason() + "; the method was not run again");
		}
		TypedCodec codec = operation.codec();
		if (codec == null) {
			return null;
		}
		try {
			return codec.decode(stored.body());
		}
		catch (RuntimeException ex) {
			throw new IdempotencyReplayException("Operation '" + record.name() + "' already completed for key '"
					+ record.key() + "' but its stored result does not decode to the declared return type; "
					+ "the method was not run again", ex);
		}
	}

	static IdempotencyStoreException storeException(String transition, RecordKey record, RuntimeException ex) {
		if (ex instanceof IdempotencyStoreException storeException) {
			return storeException;
		}
		return new IdempotencyStoreException("Store failed to " + transition + " " + record + ": " + ex.getMessage(),
				ex);
	}

	@Override
	public void close() {
		this.renewer.close();
	}

}
