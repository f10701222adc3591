package dev.idempotency.engine;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyContextHolder;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyPayloadException;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
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

	private final AsyncWaiter waiter;

	private final EventLoopHandoff handoff = new EventLoopHandoff();

	private final IdempotencyRecords records;

	private final StoreOutage outage;

	private final InFlightCalls inFlight = new InFlightCalls();

	private final StartMargin startMargin;

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
		this.acquirer = new Acquirer(this.store, this.nanoClock, this.inFlight::isRefusing);
		this.startMargin = new StartMargin(this.store, this.nanoClock);
		this.waiter = new AsyncWaiter(this.acquirer, this.nanoClock);
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
		RecordKey record = recordKey(operation, rawKey);
		byte[] fingerprinted = fingerprinted(operation, fingerprint);
		Call call = this.listeners.start(record);
		Throwable error = null;
		Ticket ticket = null;
		boolean ended = true;
		try {
			ticket = admit(call, operation, record, Thread.currentThread());
			Object value = acquireAndRun(operation, record, fingerprinted, invocation, call, ticket);
			if (value instanceof AfterCommit afterCommit) {
				// The call ends with the caller's transaction
				ended = false;
				return afterCommit.register();
			}
			return value;
		}
		catch (Throwable ex) {
			error = ex;
			throw ex;
		}
		finally {
			if (ended) {
				if (ticket != null) {
					ticket.end();
				}
				this.listeners.end(call, record, error);
			}
		}
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
		Assert.notNull(invocation, "'invocation' must not be null");
		RecordKey record;
		byte[] fingerprinted;
		try {
			record = recordKey(operation, rawKey);
			fingerprinted = fingerprinted(operation, fingerprint);
		}
		catch (IdempotencyException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Call call = this.listeners.start(record);
		Ticket ticket;
		try {
			ticket = admit(call, operation, record, null);
		}
		catch (IdempotencyShutdownException ex) {
			this.listeners.end(call, record, ex);
			return CompletableFuture.failedFuture(ex);
		}
		AsyncCall async = new AsyncCall(this, operation, record, request(operation, fingerprinted), invocation, call,
				ticket);
		async.start();
		return async.result();
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
		Assert.notNull(items, "'items' must not be null");
		Assert.notNull(keyFunction, "'keyFunction' must not be null");
		Assert.notNull(work, "'work' must not be null");
		if (items.isEmpty()) {
			return List.of();
		}
		Function<? super I, byte @Nullable []> fingerprinted = null;
		if (fingerprints != null) {
			fingerprinted = (item) -> fingerprinted(operation, fingerprints.apply(item));
		}
		BatchItems<I> batch = new BatchItems<>(this.listeners, items,
				(item) -> recordKey(operation, keyFunction.apply(item)), fingerprinted,
				(fingerprint) -> request(operation, fingerprint));
		if (!batch.admit(this.inFlight)) {
			throw refused(operation, batch);
		}
		try {
			return new BatchCall<>(this, operation, batch, work).run();
		}
		finally {
			batch.leave();
		}
	}

	// A call refused for its key or payload is counted, but not observed
	private RecordKey recordKey(Operation operation, @Nullable Object rawKey) {
		try {
			return new RecordKey(operation.name(), Keys.normalize(operation, rawKey, this.defaults.maxKeyLength()));
		}
		catch (IdempotencyException ex) {
			this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
			throw ex;
		}
	}

	private byte @Nullable [] fingerprinted(Operation operation, @Nullable Fingerprint fingerprint) {
		if (fingerprint == null) {
			return null;
		}
		try {
			return fingerprint(operation, fingerprint);
		}
		catch (IdempotencyException ex) {
			this.listeners.onOutcome(Call.NONE, operation.name(), Outcome.INVALID);
			throw ex;
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

	private static AcquireRequest request(Operation operation, byte @Nullable [] fingerprint) {
		OperationSettings settings = operation.settings();
		return new AcquireRequest(OwnerTokens.next(), settings.lockTimeout(), settings.retention(), fingerprint);
	}

	private @Nullable Object acquireAndRun(Operation operation, RecordKey record, byte @Nullable [] fingerprint,
			Invocation invocation, Call call, Ticket ticket) throws Throwable {
		AcquireRequest request = request(operation, fingerprint);
		Claim claim;
		try {
			claim = this.acquirer.acquire(record, request, operation.settings());
		}
		catch (RuntimeException ex) {
			if (bypass(call, operation, record, ex)) {
				return invocation.proceed();
			}
			throw storeException("acquire", record, ex);
		}
		this.outage.answered();
		AcquireResult result = claim.result();
		if (result instanceof Acquired acquired) {
			return run(operation, attempt(operation, record, request, acquired, claim), acquired.takeover(), invocation,
					call, ticket);
		}
		if (result instanceof InProgress) {
			TransactionOutcome holding = AfterCommit.holding(record);
			if (holding != null) {
				// A duplicate in the transaction that ran the method: what it will commit
				report(call, operation, record, Outcome.REPLAYED);
				invocation.replayed();
				return holding.value(record);
			}
		}
		if (result instanceof Completed completed) {
			Throwable failure = replayedFailure(call, operation, record, completed);
			Object value = (failure != null) ? null : Replay.decode(operation, record, completed.result());
			invocation.replayed();
			if (failure != null) {
				throw failure;
			}
			return value;
		}
		throw refusal(call, operation, record, result);
	}

	// Steps shared by synchronous and asynchronous calls

	/**
	 * Decide what a call whose acquire failed does, and report it.
	 * @return {@code true} to run the method unprotected, {@code false} to fail the call
	 * with the store's exception
	 */
	boolean bypass(Call call, Operation operation, RecordKey record, RuntimeException ex) {
		if (proceedsUnprotected()) {
			this.outage.bypassed(record, ex);
			report(call, operation, record, Outcome.BYPASSED);
			return true;
		}
		report(call, operation, record, Outcome.STORE_ERROR);
		return false;
	}

	/**
	 * Return whether a call whose acquire failed runs its method unprotected: under
	 * {@link StoreFailurePolicy#PROCEED}, unless the engine refuses calls. A shutdown
	 * starts no method, and the failure may be the store's connections closing while
	 * another instance runs the same key.
	 * @return whether to run the method without a record
	 */
	boolean proceedsUnprotected() {
		return this.defaults.onStoreFailure() == StoreFailurePolicy.PROCEED && !this.inFlight.isRefusing();
	}

	Attempt attempt(Operation operation, RecordKey record, AcquireRequest request, Acquired acquired, Claim claim) {
		return new Attempt(record, request.owner(), acquired.fence(), operation.settings().lockTimeout().toNanos(),
				claim.sentNanos(), this.nanoClock);
	}

	/**
	 * Report a replay, and return the failure it replays, if its record stores one.
	 * @return a new instance of the stored failure, or {@code null} when the record
	 * stores a result, for {@link Replay#decode} to decode
	 * @throws dev.idempotency.IdempotencyReplayException if the stored failure cannot be
	 * replayed
	 */
	@Nullable Throwable replayedFailure(Call call, Operation operation, RecordKey record, Completed completed) {
		// Counted before decoding: a duplicate whose result cannot be replayed
		// is still a duplicate that the method did not run for.
		report(call, operation, record, Outcome.REPLAYED);
		StoredResult stored = completed.result();
		return stored.isFailure() ? FailureReplays.replay(operation, record, stored) : null;
	}

	/**
	 * Report a call that another attempt holds, or whose key was reused.
	 * @return the exception to fail it with
	 */
	IdempotencyException refusal(Call call, Operation operation, RecordKey record, AcquireResult result) {
		if (result instanceof InProgress inProgress) {
			report(call, operation, record, Outcome.IN_PROGRESS);
			return new IdempotencyInProgressException(record.name(), record.key(), inProgress.leaseRemaining());
		}
		if (result instanceof KeyReused) {
			report(call, operation, record, Outcome.KEY_REUSE);
			return new IdempotencyKeyReuseException(record.name(), record.key());
		}
		throw new IllegalStateException("Unknown acquire result " + result);
	}

	/**
	 * Refuse to start the method of an attempt with too little of its lease left
	 * ({@link Attempt#canStart()}) even after one renewal ({@link StartMargin}): a
	 * renewal might not reach the store before the lease ends, and a duplicate could then
	 * take the record over while the method runs. The record is released at once, so that
	 * the next delivery need not wait for the lease, and the call is reported
	 * {@link Outcome#LOCK_LOST}.
	 * @return the exception to fail the call with, or {@code null} when the method may
	 * start
	 */
	@Nullable IdempotencyLockLostException tooLateToStart(Call call, Operation operation, Attempt attempt) {
		return tooLateToStart(call, operation, attempt, true);
	}

	/**
	 * Refuse to start the method of an attempt with too little of its lease left, as
	 * {@link #tooLateToStart(Call, Operation, Attempt)} does, renewing first only if
	 * asked: a batch whose store failed to renew one item in time does not wait for a
	 * renewal before each later item.
	 * @return the exception to fail the call with, or {@code null} when the method may
	 * start
	 */
	@Nullable IdempotencyLockLostException tooLateToStart(Call call, Operation operation, Attempt attempt, boolean renew) {
		if (this.startMargin.mayStart(attempt, operation.settings(), renew)) {
			return null;
		}
		long leftMillis = Math.max(0, attempt.leaseLeftNanos()) / 1_000_000;
		long leaseMillis = attempt.leaseNanos() / 1_000_000;
		long sinceGrantMillis = (this.nanoClock.getAsLong() - attempt.grantedNanos()) / 1_000_000;
		IdempotencyLockLostException ex = new IdempotencyLockLostException("Attempt with fence " + attempt.fence()
				+ " of operation '" + operation.name() + "' did not run for key '" + attempt.key() + "': " + leftMillis
				+ " ms of its " + leaseMillis + " ms lease " + ((leftMillis == 1) ? "was" : "were") + " left "
				+ sinceGrantMillis + " ms after its acquire was sent, less than the third it needs to start, and "
				+ (renew ? "a renewal did not confirm a new lease in time"
						: "the store did not renew an earlier item of its batch in time")
				+ "; its record was released for the next delivery");
		logger.warn(ex.getMessage() + ". Raise the lock timeout of operation '" + operation.name()
				+ "' if the store's replies are this slow (replica acknowledgements, a large batch, a slow link).");
		report(call, operation, attempt.record(), Outcome.LOCK_LOST);
		this.recorder.release(attempt, operation.settings().retention(), ex);
		return ex;
	}

	/**
	 * Hold the record for the attempt's method and start renewing its lease; if the
	 * engine refuses calls by now (a shutdown began while the acquire was on its way) or
	 * renewing fails, the method never runs and the record is released at once rather
	 * than after a whole lease.
	 * @throws IdempotencyShutdownException if the engine refuses calls
	 */
	Renewal renew(Call call, Operation operation, Attempt attempt, Ticket ticket) throws Throwable {
		OperationSettings settings = operation.settings();
		if (!ticket.hold(attempt, settings.retention())) {
			IdempotencyShutdownException refusal = refused(call, operation, attempt.record());
			this.recorder.release(attempt, settings.retention(), refusal);
			throw refusal;
		}
		try {
			return this.renewer.start(attempt, settings.lockTimeout(), settings.retention());
		}
		catch (Throwable ex) {
			released(call, operation, attempt, ex);
			throw ex;
		}
	}

	/**
	 * Report the failure of a method and record it: as the outcome that duplicates get
	 * when its type is one of the operation's {@code replayFailures}, else by releasing
	 * the record for the next delivery.
	 * @throws IdempotencyLockLostException if a failure to store found the record taken
	 * over
	 * @throws IdempotencyCompletionException if the store kept failing to store it
	 */
	void failed(Call call, Operation operation, Attempt attempt, Throwable ex) {
		StoredResult replayed = FailureReplays.stored(operation, ex);
		if (replayed == null) {
			released(call, operation, attempt, ex);
			return;
		}
		completeWithFailure(call, operation, attempt, this.encoder.failure(attempt, replayed), ex);
		report(call, operation, attempt.record(), Outcome.FAILED);
	}

	/**
	 * Report an attempt that failed or never ran, and release its record for the next
	 * delivery, whatever the failure.
	 */
	void released(Call call, Operation operation, Attempt attempt, Throwable ex) {
		report(call, operation, attempt.record(), Outcome.FAILED);
		this.recorder.release(attempt, operation.settings().retention(), ex);
	}

	/**
	 * Store the value of a method that ran, and report the outcome.
	 * @throws IdempotencyLockLostException if another attempt took the record over
	 * @throws IdempotencyCompletionException if the store kept failing
	 * @throws Error an error raised while encoding the value, once the record is complete
	 */
	void completed(Call call, Operation operation, Attempt attempt, boolean takeover, @Nullable Object value) {
		if (operation.codec() != null && operation.codec().isFailure(value)) {
			releasedReturnedFailure(call, operation, attempt);
			return;
		}
		Encoded encoded = this.encoder.encode(operation, attempt, value);
		try {
			this.recorder.complete(attempt, encoded.stored(), operation.settings().retention());
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
	}

	// A value that the codec calls a failure, such as a returned 5xx response: released
	// and counted as a thrown failure would be, through the owner's fenced release. The
	// caller gets its value whatever the release does, so a store failure is only logged.
	private void releasedReturnedFailure(Call call, Operation operation, Attempt attempt) {
		Throwable failure = new IllegalStateException(attempt + " returned a failure");
		released(call, operation, attempt, failure);
		for (Throwable ex : failure.getSuppressed()) {
			logger.warn(attempt + " returned a failure and could not release its record, which stays IN_PROGRESS "
					+ "until its lease runs out: " + ex.getMessage(), ex);
		}
	}

	InFlightCalls inFlight() {
		return this.inFlight;
	}

	Acquirer acquirer() {
		return this.acquirer;
	}

	ResultEncoder encoder() {
		return this.encoder;
	}

	OutcomeRecorder recorder() {
		return this.recorder;
	}

	LongSupplier nanoClock() {
		return this.nanoClock;
	}

	AsyncWaiter waiter() {
		return this.waiter;
	}

	EventLoopHandoff handoff() {
		return this.handoff;
	}

	Listeners listeners() {
		return this.listeners;
	}

	StoreOutage outage() {
		return this.outage;
	}

	private @Nullable Object run(Operation operation, Attempt attempt, boolean takeover, Invocation invocation,
			Call call, Ticket ticket) throws Throwable {
		IdempotencyLockLostException late = tooLateToStart(call, operation, attempt);
		if (late != null) {
			throw late;
		}
		// Renewed until the outcome is recorded, retries included
		Renewal renewal = renew(call, operation, attempt, ticket);
		boolean renewing = false;
		try {
			if (!ticket.start()) {
				throw refused(call, operation, attempt.record());
			}
			Object value;
			IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
			try {
				value = invocation.proceed();
			}
			catch (Throwable ex) {
				failed(call, operation, attempt, ex);
				throw ex;
			}
			finally {
				IdempotencyContextHolder.restore(outer);
			}
			if (AfterCommit.defers(this.store)) {
				// Recorded once the caller's transaction has ended, renewed until then
				renewing = true;
				return new AfterCommit(this, call, operation, attempt, takeover, value, renewal, ticket);
			}
			completed(call, operation, attempt, takeover, value);
			return value;
		}
		finally {
			if (!renewing) {
				renewal.stop();
			}
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

	// A call refused at shutdown fails with a store exception, and counts as a store
	// error
	private Ticket admit(Call call, Operation operation, RecordKey record, @Nullable Thread thread) {
		Ticket ticket = this.inFlight.admit(thread);
		if (ticket == null) {
			throw refused(call, operation, record);
		}
		return ticket;
	}

	/**
	 * Report a call whose method the engine does not start because it is shutting down.
	 * @return the exception to fail it with
	 */
	IdempotencyShutdownException refused(Call call, Operation operation, RecordKey record) {
		report(call, operation, record, Outcome.STORE_ERROR);
		return new IdempotencyShutdownException(record.name(), record.key());
	}

	// Before anything runs, as when the store fails to acquire the batch
	private IdempotencyShutdownException refused(Operation operation, BatchItems<?> batch) {
		for (BatchItems<?>.Slot slot : batch.slots()) {
			report(slot.call(), operation, slot.record(), Outcome.STORE_ERROR);
		}
		RecordKey first = batch.slots().get(0).record();
		IdempotencyShutdownException refusal = new IdempotencyShutdownException(first.name(), first.key());
		batch.end(refusal);
		return refusal;
	}

	void report(Call call, Operation operation, RecordKey record, Outcome outcome) {
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

	/**
	 * Refuse new calls ({@link IdempotencyShutdownException}) and stop the engine's
	 * threads; calls still running keep their leases renewed until they end.
	 * {@link IdempotencyShutdownLifecycle} lets them end first.
	 */
	@Override
	public void close() {
		this.inFlight.refuse(null);
		this.waiter.close();
		this.handoff.close();
		this.renewer.close();
	}

}
