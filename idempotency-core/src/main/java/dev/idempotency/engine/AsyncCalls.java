package dev.idempotency.engine;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * Starts the calls of {@link IdempotencyEngine#executeAsync}, each an {@link AsyncCall},
 * and holds what their steps use, on whichever thread they are taken: among them the
 * threads of the engine's own that poll a {@code WAIT} ({@link AsyncWaiter}) and take the
 * steps an event loop must not ({@link EventLoopHandoff}).
 */
final class AsyncCalls {

	private final CallRequests requests;

	private final CallAdmission admission;

	private final Acquirer acquirer;

	private final AsyncWaiter waiter;

	private final EventLoopHandoff handoff = new EventLoopHandoff();

	private final StoreFailures failures;

	private final OutcomeReporter reporter;

	private final AttemptStarter starter;

	private final MethodOutcomes outcomes;

	AsyncCalls(CallRequests requests, CallAdmission admission, Acquirer acquirer, StoreFailures failures,
			OutcomeReporter reporter, AttemptStarter starter, MethodOutcomes outcomes) {
		this.requests = requests;
		this.admission = admission;
		this.acquirer = acquirer;
		this.waiter = new AsyncWaiter(acquirer, starter.nanoClock());
		this.failures = failures;
		this.reporter = reporter;
		this.starter = starter;
		this.outcomes = outcomes;
	}

	/**
	 * Start one call, as {@link IdempotencyEngine#executeAsync} describes.
	 * @return the future the call completes
	 */
	CompletableFuture<@Nullable Object> execute(Operation operation, @Nullable Object rawKey,
			@Nullable Fingerprint fingerprint, AsyncInvocation invocation) {
		Assert.notNull(invocation, "'invocation' must not be null");
		RecordKey record;
		byte[] fingerprinted;
		try {
			record = this.requests.recordKey(operation, rawKey);
			fingerprinted = this.requests.fingerprinted(operation, fingerprint);
		}
		catch (IdempotencyException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Call call = listeners().start(record);
		Ticket ticket;
		try {
			ticket = this.admission.admit(call, operation, record, null);
		}
		catch (IdempotencyShutdownException ex) {
			listeners().end(call, record, ex);
			return CompletableFuture.failedFuture(ex);
		}
		AsyncCall async = new AsyncCall(this, operation, record, CallRequests.request(operation, fingerprinted),
				invocation, call, ticket);
		start(async, invocation);
		return async.result();
	}

	/**
	 * Take a call's first steps on the caller's thread. A {@link AsyncInvocation#isLazy()
	 * lazy} call on an event-loop thread takes them on one of the engine's own instead,
	 * as a value that arrives there is recorded: the acquire blocks for a store round
	 * trip, and a {@code Mono} subscribed on a Lettuce I/O thread (one chained after a
	 * reactive Redis command) would wait for a reply that only that blocked thread can
	 * read.
	 */
	private void start(AsyncCall async, AsyncInvocation invocation) {
		if (invocation.isLazy() && this.handoff.isNonBlocking(Thread.currentThread())) {
			async.detach();
			this.handoff.execute(async::begin);
			return;
		}
		async.begin();
	}

	Listeners listeners() {
		return this.reporter.listeners();
	}

	CallAdmission admission() {
		return this.admission;
	}

	Acquirer acquirer() {
		return this.acquirer;
	}

	AsyncWaiter waiter() {
		return this.waiter;
	}

	EventLoopHandoff handoff() {
		return this.handoff;
	}

	StoreFailures failures() {
		return this.failures;
	}

	OutcomeReporter reporter() {
		return this.reporter;
	}

	AttemptStarter starter() {
		return this.starter;
	}

	MethodOutcomes outcomes() {
		return this.outcomes;
	}

	/**
	 * Stop the threads of the engine's own that asynchronous calls use.
	 */
	void close() {
		this.waiter.close();
		this.handoff.close();
	}

}
