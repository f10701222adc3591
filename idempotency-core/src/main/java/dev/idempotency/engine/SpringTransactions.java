package dev.idempotency.engine;

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

	private record Settling(TransactionOutcome completion) implements TransactionSynchronization {

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
				this.completion.rolledBack(status == STATUS_UNKNOWN);
			}
		}

	}

}
