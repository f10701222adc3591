package dev.idempotency.engine;

import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.util.ClassUtils;

/**
 * The outcome of a method that returned inside a Spring-managed transaction its store
 * does not join: recorded once the transaction has ended, not when the method returned. A
 * commit completes the record, a rollback releases it for the next delivery, so that an
 * effect the rollback undid (a database write, a message sent in a Kafka transaction) is
 * never recorded as done. The lease stays renewed, the call admitted and observed, until
 * then.
 * <p>
 * A rollback to a savepoint taken before the method returned (the end of a {@code NESTED}
 * transaction that rolled back) undoes its effect as well, and releases the record at
 * once. A transaction whose outcome is unknown (a commit that failed without saying
 * whether it took effect) releases the record too: the next delivery may then repeat an
 * effect that did commit, a duplicate, where completing could record as done one that did
 * not, a loss. A completion that fails after the commit cannot undo it: it is logged and
 * counted as a store error, and the record is left to its lease, after which a duplicate
 * runs the method again.
 */
final class AfterCommit implements TransactionOutcome {

	private static final Log logger = LogFactory.getLog(AfterCommit.class);

	private static final boolean TRANSACTIONS_PRESENT = ClassUtils.isPresent(
			"org.springframework.transaction.support.TransactionSynchronizationManager",
			AfterCommit.class.getClassLoader());

	private final MethodOutcomes outcomes;

	private final Listeners listeners;

	private final Call call;

	private final Operation operation;

	private final Attempt attempt;

	private final boolean takeover;

	private final @Nullable Object value;

	private final Renewal renewal;

	private final Ticket ticket;

	private final AtomicBoolean settled = new AtomicBoolean();

	AfterCommit(MethodOutcomes outcomes, Listeners listeners, Call call, Operation operation, Attempt attempt,
			boolean takeover, @Nullable Object value, Renewal renewal, Ticket ticket) {
		this.outcomes = outcomes;
		this.listeners = listeners;
		this.call = call;
		this.operation = operation;
		this.attempt = attempt;
		this.takeover = takeover;
		this.value = value;
		this.renewal = renewal;
		this.ticket = ticket;
	}

	/**
	 * Return whether the outcome of a method returning now waits for the end of the
	 * transaction the calling thread runs in: one thread-local read when there is none.
	 * @param store the engine's store
	 * @return whether a Spring-managed transaction that the store does not join is active
	 */
	static boolean defers(IdempotencyStore store) {
		return TRANSACTIONS_PRESENT && SpringTransactions.isActive() && !store.joinsCurrentTransaction();
	}

	/**
	 * Return whether a record completed now runs inside a transaction of the calling
	 * thread, never to be retried there: one the engine follows ({@link #joins}), or one
	 * of a transaction manager without synchronization, whose connection a store joins
	 * all the same.
	 * @param store the engine's store
	 * @return whether a completion now runs in a transaction
	 */
	static boolean completesInTransaction(IdempotencyStore store) {
		return TRANSACTIONS_PRESENT && store.joinsCurrentTransaction();
	}

	/**
	 * Return whether the calling thread runs inside a Spring-managed transaction: one
	 * thread-local read when there is none.
	 * @return whether a transaction is active
	 */
	static boolean inTransaction() {
		return TRANSACTIONS_PRESENT && SpringTransactions.isActive();
	}

	/**
	 * Return whether a record completed now joins the Spring-managed transaction the
	 * calling thread runs in: one thread-local read when there is none.
	 * @param store the engine's store
	 * @return whether a Spring-managed transaction is active that the store joins
	 */
	static boolean joins(IdempotencyStore store) {
		return TRANSACTIONS_PRESENT && SpringTransactions.isActive() && store.joinsCurrentTransaction();
	}

	/**
	 * Return what holds a record in the calling thread's transaction: a call of that very
	 * transaction that ran the method for it, whose record waits for the transaction to
	 * end. Asked only of a record found in progress.
	 * @param record the record
	 * @return the outcome that holds it, or {@code null}
	 */
	static @Nullable TransactionOutcome holding(RecordKey record) {
		return TRANSACTIONS_PRESENT ? SpringTransactions.holding(record) : null;
	}

	@Override
	public boolean holds(RecordKey record) {
		return !this.settled.get() && this.attempt.record().equals(record);
	}

	@Override
	public @Nullable Object value(RecordKey record) {
		return this.value;
	}

	/**
	 * Wait for the end of the calling thread's transaction, which
	 * {@link #defers(IdempotencyStore)} found active. The call is detached from the
	 * calling thread, which gets the method's value at once. Never throws: a
	 * synchronization that cannot be registered completes the record at once.
	 * @return the method's value
	 */
	@Nullable Object register() {
		this.listeners.detach(this.call, this.attempt.record());
		try {
			SpringTransactions.register(this);
		}
		catch (RuntimeException ex) {
			// Not left renewed for ever: recorded at once, as outside a transaction
			logger.warn("Could not wait for the end of the transaction of " + this.attempt
					+ "; completing its record at once", ex);
			committed();
		}
		return this.value;
	}

	@Override
	public void committed() {
		if (!this.settled.compareAndSet(false, true)) {
			return;
		}
		Throwable error = null;
		try {
			this.outcomes.completed(this.call, this.operation, this.attempt, this.takeover, this.value);
		}
		catch (IdempotencyLockLostException ex) {
			// Reported, and logged by the recorder
			error = ex;
		}
		catch (IdempotencyCompletionException ex) {
			error = ex;
			logger.error("The transaction of " + this.attempt + " committed, but its record could not be completed: "
					+ ex.getMessage(), ex);
		}
		catch (Throwable ex) {
			// An Error while encoding the value: the record completed without it
			error = ex;
			logger.error("The transaction of " + this.attempt + " committed and its record completed, but its value "
					+ "could not be stored for duplicates to replay", ex);
		}
		finally {
			end(error);
		}
	}

	@Override
	public void rolledBack(String how) {
		if (!this.settled.compareAndSet(false, true)) {
			return;
		}
		Throwable error = null;
		try {
			error = release(this.outcomes, this.call, this.operation, this.attempt, how);
		}
		finally {
			end(error);
		}
	}

	/**
	 * Release the record of an attempt whose transaction did not commit, logging a
	 * release that failed.
	 * @param how how the transaction ended
	 * @return the exception that says why, to end the call with
	 */
	static IllegalStateException release(MethodOutcomes outcomes, Call call, Operation operation, Attempt attempt,
			String how) {
		IllegalStateException rollback = new IllegalStateException(attempt + " ran its method, but the transaction "
				+ "it ran in " + how + "; its record was released for the next delivery");
		outcomes.released(call, operation, attempt, rollback);
		for (Throwable ex : rollback.getSuppressed()) {
			logger.warn(rollback.getMessage() + ", but the release failed: the record stays IN_PROGRESS until "
					+ "its lease runs out: " + ex.getMessage(), ex);
		}
		return rollback;
	}

	@Override
	public String toString() {
		return this.attempt.toString();
	}

	private void end(@Nullable Throwable error) {
		this.renewal.stop();
		this.ticket.end();
		this.listeners.end(this.call, this.attempt.record(), error);
	}

}
