package dev.idempotency.engine;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one class of the engine that uses spring-tx, an optional dependency: loaded only
 * once {@link AfterCommit} has found it on the class path.
 */
final class SpringTransactions {

	private static final Log logger = LogFactory.getLog(SpringTransactions.class);

	private SpringTransactions() {
	}

	/**
	 * Return whether the calling thread runs inside a Spring-managed transaction that
	 * synchronizations can be registered with. Costs one thread-local read when none is:
	 * synchronization is checked first.
	 * @return whether a transaction is active
	 */
	static boolean isActive() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive();
	}

	/**
	 * Settle an outcome when the transaction active now ends. Synchronizations are
	 * suspended and resumed with their transaction, so an inner {@code REQUIRES_NEW} or
	 * {@code NOT_SUPPORTED} scope the caller opens later never settles it.
	 * @param completion what to do then
	 */
	static void register(TransactionOutcome completion) {
		TransactionSynchronizationManager.registerSynchronization(new Settling(completion));
	}

	/**
	 * Run an action once the transaction active now has ended without a commit: rolled
	 * back, or with an outcome unknown.
	 * @param action what to do then
	 */
	static void afterRollback(Runnable action) {
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCompletion(int status) {
				if (status != STATUS_COMMITTED) {
					action.run();
				}
			}

		});
	}

	/**
	 * Return what holds a record in the transaction active now, if a call of this very
	 * transaction ran its method and waits for the end of it.
	 * @param record the record
	 * @return the outcome that holds it, or {@code null}
	 */
	static @Nullable TransactionOutcome holding(RecordKey record) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return null;
		}
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof Settling settling && settling.completion().holds(record)) {
				return settling.completion();
			}
		}
		return null;
	}

	/**
	 * Settles an outcome when its transaction ends, or when a rollback to a savepoint
	 * undoes what it holds. Savepoints are only heard of on the transaction's own thread.
	 */
	private static final class Settling implements TransactionSynchronization {

		private final TransactionOutcome completion;

		// Savepoints taken after the outcome was registered: a rollback to one of them
		// leaves the method's effect in place; one to any other undoes it
		private final Set<Object> later = Collections.newSetFromMap(new IdentityHashMap<>());

		// Whether the transaction's end began after this was registered (beforeCompletion
		// reached it), so that an afterCommit is due once it commits; afterCompletion may
		// come on another thread (a JTA transaction's)
		private volatile boolean registeredBeforeTheEnd;

		private volatile boolean afterCommit;

		Settling(TransactionOutcome completion) {
			this.completion = completion;
		}

		TransactionOutcome completion() {
			return this.completion;
		}

		@Override
		public void savepoint(Object savepoint) {
			this.later.add(savepoint);
		}

		// Spring says nothing to synchronizations when a NESTED transaction ends, only
		// when it rolls back to its savepoint; the outer transaction may still commit
		@Override
		public void savepointRollback(Object savepoint) {
			if (!this.later.contains(savepoint)) {
				this.completion.undone("rolled back to a savepoint taken before the method returned");
			}
		}

		@Override
		public void beforeCompletion() {
			this.registeredBeforeTheEnd = true;
		}

		// Before the other synchronizations' afterCompletion, which release the
		// transaction's resources
		@Override
		public void afterCommit() {
			this.afterCommit = true;
			this.completion.committed();
		}

		@Override
		public void afterCompletion(int status) {
			if (status == STATUS_COMMITTED && this.registeredBeforeTheEnd && !this.afterCommit) {
				// A synchronization ordered before this one threw from its afterCommit,
				// which skips the ones after it. It may be a resource that commits only
				// then (a KafkaTemplate's producer synchronized with a database
				// transaction, a JMS or RabbitMQ session), whose part of the effect is
				// then lost: released, a duplicate of the part that committed
				if (this.completion.committedDespite(
						"committed, but a synchronization ordered before its record's failed after the commit")) {
					logger.warn("The transaction of " + this.completion + " committed, but a synchronization ordered "
							+ "before its record's failed after the commit, and what that one was to commit then may "
							+ "not have been: released the record, so that the next delivery runs the method again");
				}
			}
			else if (status == STATUS_COMMITTED) {
				// Settled by afterCommit already, or registered by another
				// synchronization's afterCommit, once the transaction had committed
				this.completion.committed();
			}
			else {
				this.completion
					.rolledBack((status == STATUS_UNKNOWN) ? "ended with an unknown outcome" : "rolled back");
			}
		}

	}

}
