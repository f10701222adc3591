package dev.idempotency.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.IdempotencyStore;

import org.springframework.util.Assert;

/**
 * Runs idempotent calls against a store: acquire, run while renewing the lease, complete
 * or release, or replay, as the reference design's "behaviour of one call" describes.
 * Thread-safe; one instance serves every operation.
 * <p>
 * The engine wires the steps together: {@link SyncCalls}, {@link AsyncCalls} and
 * {@link BatchCalls} run each kind of call with the steps they share (checking the key,
 * admitting the call, readying an attempt, recording the method's outcome, reporting it).
 */
public final class IdempotencyEngine implements AutoCloseable {

	private final IdempotencyStore store;

	private final IdempotencyDefaults defaults;

	private final Listeners listeners;

	private final LeaseRenewer renewer;

	private final InFlightCalls inFlight = new InFlightCalls();

	private final IdempotencyRecords records;

	private final SyncCalls syncCalls;

	private final AsyncCalls asyncCalls;

	private final BatchCalls batchCalls;

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
		LongSupplier nanoClock = this.renewer.nanoClock();
		Acquirer acquirer = new Acquirer(this.store, nanoClock, this.inFlight::isRefusing);
		this.records = new IdempotencyRecords(store, defaults.maxKeyLength());
		OutcomeRecorder recorder = new OutcomeRecorder(this.store, nanoClock);
		ResultEncoder encoder = new ResultEncoder(defaults.maxResultSize());
		OutcomeReporter reporter = new OutcomeReporter(this.listeners);
		CallRequests requests = new CallRequests(this.listeners, defaults.maxKeyLength());
		CallAdmission admission = new CallAdmission(this.inFlight, reporter);
		StoreFailures failures = new StoreFailures(defaults.onStoreFailure(), this.inFlight, new StoreOutage(nanoClock),
				reporter);
		MethodOutcomes outcomes = new MethodOutcomes(reporter, recorder, encoder);
		AttemptStarter starter = new AttemptStarter(this.renewer, new StartMargin(this.store, nanoClock), recorder,
				reporter, admission, outcomes);
		this.syncCalls = new SyncCalls(this.store, requests, admission, acquirer, failures, reporter, starter,
				outcomes);
		this.asyncCalls = new AsyncCalls(requests, admission, acquirer, failures, reporter, starter, outcomes);
		this.batchCalls = new BatchCalls(this.store, requests, admission, acquirer, failures, reporter, starter,
				outcomes, new BatchRecorder(this.store, nanoClock, encoder, recorder, reporter));
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
	 * Count a call refused before its key reached the engine: a key expression that could
	 * not be evaluated, or a request without a valid key header. Such a call counts as
	 * {@link Outcome#INVALID}, like a key the engine itself refuses.
	 * @param operation the operation called
	 */
	public void refused(Operation operation) {
		this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
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
		return this.syncCalls.execute(operation, rawKey, fingerprint, invocation);
	}

	/**
	 * Run one idempotent call of work whose value arrives later, such as a method that
	 * returns a {@code CompletionStage} or a {@code Mono}. The record completes when the
	 * value arrives, and is released when the work's stage fails or is cancelled, or when
	 * the work throws before its stage exists; the lease is renewed until then. The
	 * returned future completes only after the record has: with the value, or with the
	 * store's exception if completing failed.
	 * <p>
	 * Nothing is thrown: the work's exceptions and every
	 * {@link dev.idempotency.IdempotencyException} (invalid key, in progress, key reuse,
	 * store failure) fail the returned future. Cancelling it cancels the work's stage
	 * (through {@link java.util.concurrent.CompletableFuture#cancel}), which releases the
	 * record, or ends a {@code WAIT}.
	 * <p>
	 * The first acquire runs on the calling thread, and so does the work, with its
	 * {@link dev.idempotency.IdempotencyContext} current until it has returned its stage.
	 * {@code WAIT} never blocks the calling thread: it polls from the engine's scheduler,
	 * and the work then starts on another thread of the engine's if the other attempt
	 * failed or expired. The record is completed or released on the thread that completes
	 * the work's stage, with the same retries as a synchronous call. Neither step blocks
	 * an event-loop thread (Netty's or one Reactor marks non-blocking, such as a reactive
	 * Redis client's), except the start of a call that is not
	 * {@link AsyncInvocation#isLazy() lazy}: a lazy call started there acquires and
	 * starts its work on one of a few threads of the engine's own, and a stage that
	 * completes there is recorded on one of them, where the returned future then
	 * completes too.
	 * @param operation the resolved operation
	 * @param rawKey the evaluated key, before validation and hashing
	 * @param fingerprint the payload fingerprint, computed when the call needs it, or
	 * {@code null} when the operation has no payload
	 * @param invocation the work to run at most once per key
	 * @return the value of the work, or the replayed value of an earlier attempt
	 */
	public CompletableFuture<@Nullable Object> executeAsync(Operation operation, @Nullable Object rawKey,
			@Nullable Fingerprint fingerprint, AsyncInvocation invocation) {
		return this.asyncCalls.execute(operation, rawKey, fingerprint, invocation);
	}

	/**
	 * Run the work of a batch of items once per key, acquiring every distinct key in one
	 * store call and completing the records of the items that ran in another, as
	 * {@link dev.idempotency.IdempotentExecutor#executeAll} describes. The work runs on
	 * the calling thread, in the order of the items, only for the items whose key was
	 * taken; a key held by another attempt is reported in progress, never waited for.
	 * <p>
	 * Every item is counted and observed as one call, with the outcomes of single calls;
	 * its observed call is detached from the calling thread at once, since the items'
	 * calls overlap.
	 * @param <I> the item type
	 * @param operation the resolved operation
	 * @param items the items, none {@code null}
	 * @param keyFunction the evaluated key of an item, before validation and hashing
	 * @param fingerprints the payload fingerprint of an item, computed when the batch
	 * starts, or {@code null} when the operation has no payload; a function that returns
	 * {@code null} for an item leaves that item without one
	 * @param work the work to run at most once per key
	 * @return one outcome per item, in the order of the items
	 * @throws dev.idempotency.IdempotencyKeyException if an item's key is invalid, before
	 * anything runs
	 * @throws dev.idempotency.IdempotencyStoreException if the store fails to acquire the
	 * keys and {@link StoreFailurePolicy#FAIL} applies, before anything runs
	 * @throws Error an error thrown by the work, once the items that ran are recorded
	 */
	public <I> List<BatchOutcome<I, @Nullable Object>> executeAll(Operation operation, List<? extends I> items,
			Function<? super I, ?> keyFunction, @Nullable Function<? super I, @Nullable Fingerprint> fingerprints,
			Function<? super I, ?> work) {
		return this.batchCalls.execute(operation, items, keyFunction, fingerprints, work);
	}

	InFlightCalls inFlight() {
		return this.inFlight;
	}

	/**
	 * Refuse new calls ({@link IdempotencyShutdownException}) and stop the engine's
	 * threads; calls still running keep their leases renewed until they end.
	 * {@link IdempotencyShutdownLifecycle} lets them end first.
	 */
	@Override
	public void close() {
		this.inFlight.refuse(null);
		this.asyncCalls.close();
		this.renewer.close();
	}

}
