package dev.idempotency.engine;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import dev.idempotency.store.RecordKey;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The one class of the engine that uses spring-tx, an optional dependency: loaded only
 * once {@link AfterCommit} has found it on the class path.
 */
final class SpringTransactions {

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
				this.completion.rolledBack("rolled back to a savepoint taken before the method returned");
			}
		}

		// Before the other synchronizations' afterCompletion, which release the
		// transaction's resources
		@Override
		public void afterCommit() {
			this.completion.committed();
		}

		// Also when afterCommit never came: another synchronization's afterCommit that
		// threw skips the ones after it
		@Override
		public void afterCompletion(int status) {
			if (status == STATUS_COMMITTED) {
				this.completion.committed();
			}
			else {
				this.completion
					.rolledBack((status == STATUS_UNKNOWN) ? "ended with an unknown outcome" : "rolled back");
			}
		}

	}

}
