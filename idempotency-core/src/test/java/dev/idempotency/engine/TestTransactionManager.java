package dev.idempotency.engine;

import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.transaction.SavepointManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionSystemException;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A transaction manager with no resource to commit but Spring's whole transaction
 * lifecycle around it (synchronizations, suspension of an outer transaction, savepoints
 * for nested transactions); its next commit can be made to fail with an unknown outcome.
 */
final class TestTransactionManager extends AbstractPlatformTransactionManager {

	private final AtomicInteger committed = new AtomicInteger();

	private final AtomicInteger rolledBack = new AtomicInteger();

	private final AtomicInteger rolledBackToSavepoint = new AtomicInteger();

	private volatile boolean failNextCommit;

	TestTransactionManager() {
		setNestedTransactionAllowed(true);
	}

	// Bound to the thread while begun, as a DataSource's connection is: a transaction
	// looked up meanwhile joins it, unless it is suspended
	@Override
	protected Object doGetTransaction() {
		Object bound = TransactionSynchronizationManager.getResource(this);
		return (bound != null) ? bound : new Transaction();
	}

	@Override
	protected boolean isExistingTransaction(Object transaction) {
		return TransactionSynchronizationManager.getResource(this) == transaction;
	}

	@Override
	protected void doBegin(Object transaction, TransactionDefinition definition) {
		TransactionSynchronizationManager.bindResource(this, transaction);
	}

	@Override
	protected Object doSuspend(Object transaction) {
		return TransactionSynchronizationManager.unbindResource(this);
	}

	@Override
	protected void doResume(@Nullable Object transaction, Object suspendedResources) {
		TransactionSynchronizationManager.bindResource(this, suspendedResources);
	}

	@Override
	protected void doCleanupAfterCompletion(Object transaction) {
		TransactionSynchronizationManager.unbindResourceIfPossible(this);
	}

	@Override
	protected void doCommit(DefaultTransactionStatus status) {
		if (this.failNextCommit) {
			this.failNextCommit = false;
			throw new TransactionSystemException("commit failed");
		}
		this.committed.incrementAndGet();
	}

	@Override
	protected void doRollback(DefaultTransactionStatus status) {
		this.rolledBack.incrementAndGet();
	}

	void failNextCommit() {
		this.failNextCommit = true;
	}

	int committed() {
		return this.committed.get();
	}

	int rolledBack() {
		return this.rolledBack.get();
	}

	int rolledBackToSavepoint() {
		return this.rolledBackToSavepoint.get();
	}

	private final class Transaction implements SavepointManager {

		@Override
		public Object createSavepoint() {
			return new Object();
		}

		@Override
		public void rollbackToSavepoint(Object savepoint) {
			TestTransactionManager.this.rolledBackToSavepoint.incrementAndGet();
		}

		@Override
		public void releaseSavepoint(Object savepoint) {
		}

	}

}
