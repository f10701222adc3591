package dev.idempotency.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyContextHolder;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.RecordKey;

/**
 * One call of {@link IdempotencyEngine#executeAsync}: the steps of a synchronous call,
 * each taken when the step before it completes, on whichever thread that is. The outcome
 * is reported once, and the observed call ended once, before {@link #result()} completes.
 */
final class AsyncCall implements AsyncWaiter.Waiting {

	private final IdempotencyEngine engine;

	private final Operation operation;

	private final RecordKey record;

	private final AcquireRequest request;

	private final AsyncInvocation invocation;

	private final Call call;

	private final Ticket ticket;

	private final CompletableFuture<@Nullable Object> result = new CompletableFuture<>();

	// Written by one thread at a time: the caller's, then the scheduler's after a WAIT
	private boolean detached;

	AsyncCall(IdempotencyEngine engine, Operation operation, RecordKey record, AcquireRequest request,
			AsyncInvocation invocation, Call call, Ticket ticket) {
		this.engine = engine;
		this.operation = operation;
		this.record = record;
		this.request = request;
		this.invocation = invocation;
		this.call = call;
		this.ticket = ticket;
	}

	CompletableFuture<@Nullable Object> result() {
		return this.result;
	}

	/**
	 * Take the first steps on the caller's thread: acquire, then replay, refuse, run the
	 * method until it returns its stage, or hand a {@code WAIT} over to the scheduler. A
	 * {@link AsyncInvocation#isLazy() lazy} call on an event-loop thread takes them on
	 * one of the engine's own instead, as a value that arrives there is recorded: the
	 * acquire blocks for a store round trip, and a {@code Mono} subscribed on a Lettuce
	 * I/O thread (one chained after a reactive Redis command) would wait for a reply that
	 * only that blocked thread can read.
	 */
	void start() {
		if (this.invocation.isLazy() && this.engine.handoff().isNonBlocking(Thread.currentThread())) {
			detach();
			this.engine.handoff().execute(this::begin);
			return;
		}
		begin();
	}

	private void begin() {
		try {
			Claim claim;
			try {
				claim = this.engine.acquirer().acquireOnce(this.record, this.request);
			}
			catch (RuntimeException ex) {
				failed(ex);
				return;
			}
			this.engine.outage().answered();
			if (claim.result() instanceof InProgress && this.operation.settings().onInProgress() == OnInProgress.WAIT) {
				detach();
				this.engine.waiter()
					.await(this.record, this.request, claim, this.operation.settings().waitTimeout(), this);
				return;
			}
			claimed(claim);
		}
		catch (Throwable ex) {
			// Only a bug or an Error gets here; the call must still end
			end(null, ex);
		}
	}

	@Override
	public boolean isCancelled() {
		return this.result.isCancelled();
	}

	@Override
	public void claimed(Claim claim) {
		AcquireResult acquired = claim.result();
		if (acquired instanceof Acquired attempt) {
			run(this.engine.attempt(this.operation, this.record, this.request, attempt, claim), attempt.takeover());
			return;
		}
		if (acquired instanceof Completed completed) {
			Object value;
			Throwable failure;
			try {
				failure = this.engine.replayedFailure(this.call, this.operation, this.record, completed);
				value = (failure != null) ? null : Replay.decode(this.operation, this.record, completed.result());
				this.invocation.replayed();
			}
			catch (Throwable ex) {
				end(null, ex);
				return;
			}
			end(value, failure);
			return;
		}
		end(null, this.engine.refusal(this.call, this.operation, this.record, acquired));
	}

	@Override
	public void failed(RuntimeException ex) {
		if (!this.engine.bypass(this.call, this.operation, this.record, ex)) {
			end(null, IdempotencyEngine.storeException("acquire", this.record, ex));
			return;
		}
		CompletionStage<?> stage;
		try {
			stage = this.invocation.start();
		}
		catch (Throwable failure) {
			end(null, failure);
			return;
		}
		detach();
		follow(stage, (value, failure) -> end(value, failure));
	}

	private void run(Attempt attempt, boolean takeover) {
		IdempotencyLockLostException late;
		try {
			late = this.engine.tooLateToStart(this.call, this.operation, attempt);
		}
		catch (Throwable ex) {
			end(null, ex);
			return;
		}
		if (late != null) {
			end(null, late);
			return;
		}
		Renewal renewal;
		try {
			renewal = this.engine.renew(this.call, this.operation, attempt, this.ticket);
		}
		catch (Throwable ex) {
			end(null, ex);
			return;
		}
		if (this.result.isCancelled()) {
			// Cancelled while waiting, as a poll took the record: the method never runs
			stop(renewal, attempt, takeover, null, new CancellationException());
			return;
		}
		if (!this.ticket.start()) {
			// Released by the shutdown, which reached its bound
			renewal.stop();
			end(null, this.engine.refused(this.call, this.operation, this.record));
			return;
		}
		CompletionStage<?> stage;
		IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
		try {
			stage = this.invocation.start();
		}
		catch (Throwable ex) {
			stop(renewal, attempt, takeover, null, ex);
			return;
		}
		finally {
			IdempotencyContextHolder.restore(outer);
		}
		detach();
		// Completing or releasing blocks for a store round trip: never on an event loop
		follow(stage, (value, failure) -> this.engine.handoff()
			.execute(() -> stop(renewal, attempt, takeover, value, failure)));
	}

	// Runs on the thread that completes the method's stage, or one of the engine's when
	// that is an event loop; the caller's future completes only once the record has.
	private void stop(Renewal renewal, Attempt attempt, boolean takeover, @Nullable Object value,
			@Nullable Throwable failure) {
		Throwable error = failure;
		try {
			if (failure instanceof CancellationException && this.result.isCancelled()) {
				// The caller gave up: never a failure to replay, whatever replayFailures
				// lists
				this.engine.released(this.call, this.operation, attempt, failure);
			}
			else if (failure != null) {
				this.engine.failed(this.call, this.operation, attempt, failure);
			}
			else {
				this.engine.completed(this.call, this.operation, attempt, takeover, value);
			}
		}
		catch (Throwable ex) {
			error = ex;
		}
		finally {
			renewal.stop();
		}
		end(value, error);
	}

	// The outcome is taken once: from the stage, or from the caller's cancellation when
	// the stage does not end with it. A stage that a cancellation cannot reach (one that
	// is not a CompletableFuture, or whose toCompletableFuture() is a copy, such as a
	// minimalCompletionStage()) would otherwise keep the record renewed, and the call
	// observed, for as long as its work runs: for ever if it never ends. Its late
	// outcome is then dropped, never recorded over the release.
	private void follow(@Nullable CompletionStage<?> stage, BiConsumer<@Nullable Object, @Nullable Throwable> outcome) {
		if (stage == null) {
			outcome.accept(null, null);
			return;
		}
		AtomicBoolean taken = new AtomicBoolean();
		stage.whenComplete((value, failure) -> {
			if (taken.compareAndSet(false, true)) {
				outcome.accept(value, unwrap(failure));
			}
		});
		// Registered after the stage's own callback, so that a stage that the
		// cancellation ends releases its record through it
		this.result.whenComplete((value, failure) -> {
			// A stage that ended before the cancellation (its callback may not have
			// run yet) keeps its outcome: the value arrived, the effect happened
			if (this.result.isCancelled() && !cancel(stage) && taken.compareAndSet(false, true)) {
				outcome.accept(null, new CancellationException("The caller cancelled the call"));
			}
		});
	}

	// Return whether the stage is done, by this cancellation or before it
	private static boolean cancel(CompletionStage<?> stage) {
		try {
			CompletableFuture<?> future = stage.toCompletableFuture();
			boolean cancelled = future.cancel(true);
			if (future == stage) {
				return future.isDone();
			}
			// A copy, done without this cancellation only if the stage had ended
			return !cancelled && future.isDone();
		}
		catch (UnsupportedOperationException ex) {
			// A stage that cannot be cancelled
			return false;
		}
	}

	// A stage that depends on a failed one fails with a CompletionException around the
	// failure: the caller gets the failure itself, as from a synchronous method.
	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		if (failure instanceof CompletionException && failure.getCause() != null) {
			return failure.getCause();
		}
		return failure;
	}

	// The caller's thread has nothing more to do with the call: an observer closes what
	// it
	// made current there, and is ended later on another thread.
	private void detach() {
		if (!this.detached) {
			this.detached = true;
			this.engine.listeners().detach(this.call, this.record);
		}
	}

	private void end(@Nullable Object value, @Nullable Throwable error) {
		this.ticket.end();
		this.engine.listeners().end(this.call, this.record, error);
		if (error != null) {
			this.result.completeExceptionally(error);
		}
		else {
			this.result.complete(value);
		}
	}

}
