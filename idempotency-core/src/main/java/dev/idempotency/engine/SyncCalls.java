package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

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
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

/**
 * Runs the calls of {@link IdempotencyEngine#execute} on the caller's thread: acquire,
 * then run the method while its lease is renewed and record its outcome, or replay an
 * earlier attempt's, or refuse the call.
 */
final class SyncCalls {

	private final IdempotencyStore store;

	private final Listeners listeners;

	private final CallRequests requests;

	private final CallAdmission admission;

	private final Acquirer acquirer;

	private final StoreFailures failures;

	private final OutcomeReporter reporter;

	private final AttemptStarter starter;

	private final MethodOutcomes outcomes;

	SyncCalls(IdempotencyStore store, CallRequests requests, CallAdmission admission, Acquirer acquirer,
			StoreFailures failures, OutcomeReporter reporter, AttemptStarter starter, MethodOutcomes outcomes) {
		this.store = store;
		this.listeners = reporter.listeners();
		this.requests = requests;
		this.admission = admission;
		this.acquirer = acquirer;
		this.failures = failures;
		this.reporter = reporter;
		this.starter = starter;
		this.outcomes = outcomes;
	}

	/**
	 * Run one call, as {@link IdempotencyEngine#execute} describes.
	 */
	@Nullable Object execute(Operation operation, @Nullable Object rawKey, @Nullable Fingerprint fingerprint,
			Invocation invocation) throws Throwable {
		RecordKey record = this.requests.recordKey(operation, rawKey);
		byte[] fingerprinted = this.requests.fingerprinted(operation, fingerprint);
		Call call = this.listeners.start(record);
		Throwable error = null;
		Ticket ticket = null;
		boolean ended = true;
		try {
			ticket = this.admission.admit(call, operation, record, Thread.currentThread());
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

	private @Nullable Object acquireAndRun(Operation operation, RecordKey record, byte @Nullable [] fingerprint,
			Invocation invocation, Call call, Ticket ticket) throws Throwable {
		AcquireRequest request = CallRequests.request(operation, fingerprint);
		Claim claim;
		try {
			claim = this.acquirer.acquire(record, request, operation.settings());
		}
		catch (RuntimeException ex) {
			if (this.failures.bypass(call, operation, record, ex)) {
				return invocation.proceed();
			}
			throw StoreExceptions.of("acquire", record, ex);
		}
		this.failures.answered();
		AcquireResult result = claim.result();
		if (result instanceof Acquired acquired) {
			return run(operation, this.starter.attempt(operation, record, request, acquired, claim),
					acquired.takeover(), invocation, call, ticket);
		}
		if (result instanceof InProgress) {
			TransactionOutcome holding = AfterCommit.holding(record);
			if (holding != null) {
				// A duplicate in the transaction that ran the method: what it will commit
				this.reporter.report(call, operation, record, Outcome.REPLAYED);
				invocation.replayed();
				return holding.value(record);
			}
		}
		if (result instanceof Completed completed) {
			Throwable failure = this.reporter.replayedFailure(call, operation, record, completed);
			Object value = (failure != null) ? null : Replay.decode(operation, record, completed.result());
			invocation.replayed();
			if (failure != null) {
				throw failure;
			}
			return value;
		}
		throw this.reporter.refusal(call, operation, record, result);
	}

	private @Nullable Object run(Operation operation, Attempt attempt, boolean takeover, Invocation invocation,
			Call call, Ticket ticket) throws Throwable {
		// Renewed until the outcome is recorded, retries included
		Renewal renewal = this.starter.start(call, operation, attempt, ticket);
		boolean renewing = false;
		try {
			if (!ticket.start()) {
				throw this.admission.refused(call, operation, attempt.record());
			}
			Object value;
			IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
			try {
				value = invocation.proceed();
			}
			catch (Throwable ex) {
				joinedTransaction(operation, attempt);
				this.outcomes.failed(call, operation, attempt, ex);
				throw ex;
			}
			finally {
				IdempotencyContextHolder.restore(outer);
			}
			if (AfterCommit.defers(this.store)) {
				// Recorded once the caller's transaction has ended, renewed until then
				renewing = true;
				return new AfterCommit(this.outcomes, this.listeners, call, operation, attempt, takeover, value,
						renewal, ticket);
			}
			JoinedTransaction joined = joinedTransaction(operation, attempt);
			this.outcomes.completed(call, operation, attempt, takeover, value);
			if (joined != null) {
				joined.completedWith(value);
			}
			return value;
		}
		finally {
			if (!renewing) {
				renewal.stop();
			}
		}
	}

	// Inside a transaction the store joins, the outcome commits or rolls back with it
	private @Nullable JoinedTransaction joinedTransaction(Operation operation, Attempt attempt) {
		return AfterCommit.joins(this.store) ? this.outcomes.releaseAfterRollback(operation, attempt) : null;
	}

}
