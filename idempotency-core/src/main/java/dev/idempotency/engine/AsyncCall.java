package dev.idempotency.engine;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyContextHolder;
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
 * is reported once, and the observed call ended once, before {@link #result()} completes;
 * the outcome of the method's stage is taken as {@link StageOutcomes} says.
 */
final class AsyncCall implements AsyncWaiter.Waiting {

	private final AsyncCalls calls;

	private final Operation operation;

	private final RecordKey record;

	private final AcquireRequest request;

	private final AsyncInvocation invocation;

	private final Call call;

	private final Ticket ticket;

	private final CompletableFuture<@Nullable Object> result = new CompletableFuture<>();

	// Written by one thread at a time: the caller's, then the scheduler's after a WAIT
	private boolean detached;

	AsyncCall(AsyncCalls calls, Operation operation, RecordKey record, AcquireRequest request,
			AsyncInvocation invocation, Call call, Ticket ticket) {
		this.calls = calls;
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
	 * Take the first steps: acquire, then replay, refuse, run the method until it returns
	 * its stage, or hand a {@code WAIT} over to the scheduler.
	 */
	void begin() {
		try {
			Claim claim;
			try {
				claim = this.calls.acquirer().acquireOnce(this.record, this.request);
			}
			catch (RuntimeException ex) {
				failed(ex);
				return;
			}
			this.calls.failures().answered();
			if (claim.result() instanceof InProgress && this.operation.settings().onInProgress() == OnInProgress.WAIT) {
				detach();
				this.calls.waiter()
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
			run(this.calls.starter().attempt(this.operation, this.record, this.request, attempt, claim),
					attempt.takeover());
			return;
		}
		if (acquired instanceof Completed completed) {
			Object value;
			Throwable failure;
			try {
				failure = this.calls.reporter().replayedFailure(this.call, this.operation, this.record, completed);
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
		end(null, this.calls.reporter().refusal(this.call, this.operation, this.record, acquired));
	}

	@Override
	public void failed(RuntimeException ex) {
		if (!this.calls.failures().bypass(this.call, this.operation, this.record, ex)) {
			end(null, StoreExceptions.of("acquire", this.record, ex));
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
		StageOutcomes.follow(stage, this.result, (value, failure) -> end(value, failure));
	}

	private void run(Attempt attempt, boolean takeover) {
		Renewal renewal;
		try {
			renewal = this.calls.starter().start(this.call, this.operation, attempt, this.ticket);
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
			end(null, this.calls.admission().refused(this.call, this.operation, this.record));
			return;
		}
		CompletionStage<?> stage;
		IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
		try {
			stage = this.invocation.start();
		}
		catch (Throwable ex) {
			this.calls.handoff().execute(() -> stopHere(renewal, attempt, takeover, null, ex));
			return;
		}
		finally {
			IdempotencyContextHolder.restore(outer);
		}
		detach();
		Thread caller = Thread.currentThread();
		AtomicBoolean returning = new AtomicBoolean(true);
		// Completing or releasing blocks for a store round trip: never on an event loop
		StageOutcomes.follow(stage, this.result, (value, failure) -> {
			if (returning.get() && Thread.currentThread() == caller) {
				this.calls.handoff().execute(() -> stopHere(renewal, attempt, takeover, value, failure));
			}
			else {
				this.calls.handoff().executeOutsideTransactions(() -> stop(renewal, attempt, takeover, value, failure));
			}
		});
		returning.set(false);
	}

	// The outcome of a method that ended before it returned, on the caller's thread,
	// recorded there as a synchronous call's: inside the caller's transaction when the
	// store joins it, and released if that does not commit
	private void stopHere(Renewal renewal, Attempt attempt, boolean takeover, @Nullable Object value,
			@Nullable Throwable failure) {
		this.calls.outcomes().joinedTransaction(this.operation, attempt);
		stop(renewal, attempt, takeover, value, failure);
	}

	// Runs on the thread that completes the method's stage, or one of the engine's when
	// that is an event loop, or in a transaction other than the caller's at the call; the
	// caller's future completes only once the record has.
	private void stop(Renewal renewal, Attempt attempt, boolean takeover, @Nullable Object value,
			@Nullable Throwable failure) {
		Throwable error = failure;
		try {
			// The caller gave up: never a failure to replay, whatever replayFailures
			// lists
			boolean gaveUp = failure instanceof CancellationException && this.result.isCancelled();
			this.calls.outcomes().stageEnded(this.call, this.operation, attempt, takeover, value, failure, gaveUp);
		}
		catch (Throwable ex) {
			error = ex;
		}
		finally {
			renewal.stop();
		}
		end(value, error);
	}

	/**
	 * Tell the observer that the caller's thread has nothing more to do with the call: it
	 * closes what it made current there, and is ended later on another thread.
	 */
	void detach() {
		if (!this.detached) {
			this.detached = true;
			this.calls.listeners().detach(this.call, this.record);
		}
	}

	private void end(@Nullable Object value, @Nullable Throwable error) {
		this.ticket.end();
		this.calls.listeners().end(this.call, this.record, error);
		if (error != null) {
			this.result.completeExceptionally(error);
		}
		else {
			this.result.complete(value);
		}
	}

}
