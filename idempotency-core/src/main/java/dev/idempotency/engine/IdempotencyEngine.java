package dev.idempotency.engine;

import java.util.List;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyContextHolder;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.engine.ResultEncoder.Encoded;
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

	private final IdempotencyStore store;

	private final IdempotencyDefaults defaults;

	private final Listeners listeners;

	private final LeaseRenewer renewer;

	private final LongSupplier nanoClock;

	private final OutcomeRecorder recorder;

	private final ResultEncoder encoder;

	private final Acquirer acquirer;

	private final IdempotencyRecords records;

	private final StoreOutage outage;

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

	IdempotencyEngine(IdempotencyStore store, IdempotencyDefaults defaults,
			List<? extends IdempotencyListener> listeners, LongSupplier nanoClock, ThreadFactory threadFactory) {
		this(store, defaults, listeners, IdempotencyObserver.NONE,
				(timed) -> new LeaseRenewer(timed, nanoClock, threadFactory));
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
		this(store, defaults, listeners, observer, LeaseRenewer::new);
	}

	private IdempotencyEngine(IdempotencyStore store, IdempotencyDefaults defaults,
			List<? extends IdempotencyListener> listeners, IdempotencyObserver observer,
			Function<IdempotencyStore, LeaseRenewer> renewer) {
		Assert.notNull(store, "'store' must not be null");
		Assert.notNull(defaults, "'defaults' must not be null");
		this.listeners = new Listeners(listeners, observer);
		this.store = this.listeners.isEmpty() ? store : new TimedStore(store, this.listeners);
		this.defaults = defaults;
		this.renewer = renewer.apply(this.store);
		this.nanoClock = this.renewer.nanoClock();
		this.outage = new StoreOutage(this.nanoClock);
		this.acquirer = new Acquirer(this.store, this.nanoClock);
		this.records = new IdempotencyRecords(store, defaults.maxKeyLength());
		this.recorder = new OutcomeRecorder(this.store, this.nanoClock);
		this.encoder = new ResultEncoder(defaults.maxResultSize());
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
	 * Return the lookup of this engine's records by operation name and key, for
	 * operators.
	 * @return the lookup
	 */
	public IdempotencyRecords getRecords() {
		return this.records;
	}

	/**
	 * Run one idempotent call.
	 * @param operation the resolved operation
	 * @param rawKey the evaluated key, before validation and hashing
	 * @param fingerprint the payload fingerprint, computed when the call needs it, or
	 * {@code null} when the operation has no payload
	 * @param invocation the work to run at most once per key
	 * @return the result of the work, or the replayed result of an earlier attempt
	 * @throws Throwable what the work throws, unchanged, or an
	 * {@link dev.idempotency.IdempotencyException}
	 */
	public @Nullable Object execute(Operation operation, @Nullable Object rawKey, @Nullable Fingerprint fingerprint,
			Invocation invocation) throws Throwable {
		RecordKey record;
		byte[] fingerprinted;
		try {
			record = new RecordKey(operation.name(), Keys.normalize(operation, rawKey, this.defaults.maxKeyLength()));
			fingerprinted = (fingerprint != null) ? fingerprint(operation, fingerprint) : null;
		}
		catch (IdempotencyException ex) {
			this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
			throw ex;
		}
		Call call = this.listeners.start(record);
		Throwable error = null;
		try {
			return acquireAndRun(operation, record, fingerprinted, invocation, call);
		}
		catch (Throwable ex) {
			error = ex;
			throw ex;
		}
		finally {
			this.listeners.end(call, record, error);
		}
	}

	private static byte[] fingerprint(Operation operation, Fingerprint fingerprint) {
		try {
			return fingerprint.compute();
		}
		catch (IdempotencyException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new IdempotencyPayloadException("Could not fingerprint the payload of operation '" + operation.name()
					+ "'; the method was not called: " + ex.getMessage(), ex);
		}
	}

	private @Nullable Object acquireAndRun(Operation operation, RecordKey record, byte @Nullable [] fingerprint,
			Invocation invocation, Call call) throws Throwable {
		OperationSettings settings = operation.settings();
		String owner = OwnerTokens.next();
		AcquireRequest request = new AcquireRequest(owner, settings.lockTimeout(), settings.retention(), fingerprint);
		Claim claim;
		try {
			claim = this.acquirer.acquire(record, request, settings);
		}
		catch (RuntimeException ex) {
			return onAcquireFailure(operation, record, ex, invocation, call);
		}
		this.outage.answered();
		AcquireResult result = claim.result();
		if (result instanceof Acquired acquired) {
			Attempt attempt = new Attempt(record, owner, acquired.fence(), settings.lockTimeout().toNanos(),
					claim.sentNanos(), this.nanoClock);
			return run(operation, attempt, acquired.takeover(), invocation, call);
		}
		if (result instanceof Completed completed) {
			// Counted before decoding: a duplicate whose result cannot be replayed
			// is still a duplicate that the method did not run for.
			report(call, operation, record, Outcome.REPLAYED);
			if (completed.result().isFailure()) {
				Throwable failure = FailureReplays.replay(operation, record, completed.result());
				invocation.replayed();
				throw failure;
			}
			Object value = Replay.decode(operation, record, completed.result());
			invocation.replayed();
			return value;
		}
		if (result instanceof InProgress inProgress) {
			report(call, operation, record, Outcome.IN_PROGRESS);
			throw new IdempotencyInProgressException(record.name(), record.key(), inProgress.leaseRemaining());
		}
		if (result instanceof KeyReused) {
			report(call, operation, record, Outcome.KEY_REUSE);
			throw new IdempotencyKeyReuseException(record.name(), record.key());
		}
		throw new IllegalStateException("Unknown acquire result " + result);
	}

	private @Nullable Object onAcquireFailure(Operation operation, RecordKey record, RuntimeException ex,
			Invocation invocation, Call call) throws Throwable {
		if (this.defaults.onStoreFailure() == StoreFailurePolicy.PROCEED) {
			this.outage.bypassed(record, ex);
			report(call, operation, record, Outcome.BYPASSED);
			return invocation.proceed();
		}
		report(call, operation, record, Outcome.STORE_ERROR);
		throw storeException("acquire", record, ex);
	}

	private @Nullable Object run(Operation operation, Attempt attempt, boolean takeover, Invocation invocation,
			Call call) throws Throwable {
		OperationSettings settings = operation.settings();
		// Renewed until the outcome is recorded, retries included
		Renewal renewal;
		try {
			renewal = this.renewer.start(attempt, settings.lockTimeout(), settings.retention());
		}
		catch (Throwable ex) {
			// The method never ran: the record must not wait a whole lease for the next
			report(call, operation, attempt.record(), Outcome.FAILED);
			this.recorder.release(attempt, settings.retention(), ex);
			throw ex;
		}
		try {
			Object value;
			IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
			try {
				value = invocation.proceed();
			}
			catch (Throwable ex) {
				StoredResult replayed = FailureReplays.stored(operation, ex);
				if (replayed != null) {
					completeWithFailure(call, operation, attempt, this.encoder.failure(attempt, replayed), ex);
				}
				report(call, operation, attempt.record(), Outcome.FAILED);
				if (replayed == null) {
					this.recorder.release(attempt, settings.retention(), ex);
				}
				throw ex;
			}
			finally {
				IdempotencyContextHolder.restore(outer);
			}
			Encoded encoded = this.encoder.encode(operation, attempt, value);
			try {
				this.recorder.complete(attempt, encoded.stored(), settings.retention());
			}
			catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
				report(call, operation, attempt.record(),
						(ex instanceof IdempotencyLockLostException) ? Outcome.LOCK_LOST : Outcome.STORE_ERROR);
				if (encoded.error() != null) {
					ex.addSuppressed(encoded.error());
				}
				throw ex;
			}
			report(call, operation, attempt.record(), takeover ? Outcome.RECOVERED : Outcome.EXECUTED);
			if (encoded.error() != null) {
				throw encoded.error();
			}
			return value;
		}
		finally {
			renewal.stop();
		}
	}

	// A failure that duplicates get too: its record completes, fenced like a result
	private void completeWithFailure(Call call, Operation operation, Attempt attempt, StoredResult stored,
			Throwable failure) {
		try {
			this.recorder.complete(attempt, stored, operation.settings().retention());
		}
		catch (IdempotencyLockLostException | IdempotencyCompletionException ex) {
			report(call, operation, attempt.record(),
					(ex instanceof IdempotencyLockLostException) ? Outcome.LOCK_LOST : Outcome.STORE_ERROR);
			ex.addSuppressed(failure);
			throw ex;
		}
	}

	private void report(Call call, Operation operation, RecordKey record, Outcome outcome) {
		if (logger.isDebugEnabled()) {
			logger.debug("Idempotent call of '" + operation.name() + "': " + outcome.tag()
					+ (logger.isTraceEnabled() ? " (key '" + record.key() + "')" : ""));
		}
		this.listeners.onOutcome(call, operation.name(), outcome);
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
