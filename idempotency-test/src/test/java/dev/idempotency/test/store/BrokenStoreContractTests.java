package dev.idempotency.test.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.RecordState;
import dev.idempotency.store.StoredResult;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Stores broken on purpose, one way each, that {@link IdempotencyStoreContractTests} must
 * fail: a contract that a broken store passes proves nothing about a store that passes
 * it.
 */
class BrokenStoreContractTests {

	@Test
	void storeThatIgnoresFencesFails() {
		assertThat(failuresOf(IgnoresFences.class)).isPositive();
	}

	@Test
	void storeThatLetsASecondOwnerAcquireALiveLeaseFails() {
		assertThat(failuresOf(GivesLiveLeaseAway.class)).isPositive();
	}

	@Test
	void storeThatForgetsACompletedResultFails() {
		assertThat(failuresOf(ForgetsResults.class)).isPositive();
	}

	@Test
	void storeThatRenewsACompletedRecordForAnyOwnerFails() {
		assertThat(failuresOf(RenewsAnyCompletedRecord.class)).isPositive();
	}

	@Test
	void storeThatAnswersABatchOutOfOrderFails() {
		assertThat(failuresOf(AnswersBatchesInReverse.class)).isPositive();
	}

	private static long failuresOf(Class<? extends IdempotencyStoreContractTests> contract) {
		LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
			.selectors(selectClass(contract))
			.build();
		Launcher launcher = LauncherFactory.create();
		SummaryGeneratingListener listener = new SummaryGeneratingListener();
		launcher.execute(request, listener);
		TestExecutionSummary summary = listener.getSummary();
		assertThat(summary.getTestsFoundCount()).as("contract tests found").isGreaterThan(10);
		return summary.getTotalFailureCount();
	}

	/**
	 * Checks the owner of a transition, never its fence.
	 */
	static class IgnoresFences extends IdempotencyStoreContractTests {

		@Override
		protected IdempotencyStore createStore() {
			return new BrokenStore() {

				@Override
				public boolean complete(RecordKey key, String owner, long fence, StoredResult result,
						Duration retention) {
					return super.complete(key, owner, currentFence(key, fence), result, retention);
				}

				@Override
				public boolean release(RecordKey key, String owner, long fence, Duration retention) {
					return super.release(key, owner, currentFence(key, fence), retention);
				}

				@Override
				public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
					return super.renew(key, owner, currentFence(key, fence), lease, retention);
				}

				private long currentFence(RecordKey key, long fence) {
					return read(key).map(IdempotencyRecord::fence).orElse(fence);
				}

			};
		}

	}

	/**
	 * Hands a record whose lease is live to whoever asks next.
	 */
	static class GivesLiveLeaseAway extends IdempotencyStoreContractTests {

		@Override
		protected IdempotencyStore createStore() {
			return new BrokenStore() {

				@Override
				public AcquireResult acquire(RecordKey key, AcquireRequest request) {
					AcquireResult result = super.acquire(key, request);
					if (result instanceof InProgress) {
						evict(key);
						return super.acquire(key, request);
					}
					return result;
				}

			};
		}

	}

	/**
	 * Accepts a completion but keeps the record as if the attempt had failed.
	 */
	static class ForgetsResults extends IdempotencyStoreContractTests {

		@Override
		protected IdempotencyStore createStore() {
			return new BrokenStore() {

				@Override
				public boolean complete(RecordKey key, String owner, long fence, StoredResult result,
						Duration retention) {
					return super.release(key, owner, fence, retention);
				}

			};
		}

	}

	/**
	 * Answers every renewal of a completed record as its owner's, so that a zombie whose
	 * successor completed believes it still holds the lease.
	 */
	static class RenewsAnyCompletedRecord extends IdempotencyStoreContractTests {

		@Override
		protected IdempotencyStore createStore() {
			return new BrokenStore() {

				@Override
				public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
					Optional<IdempotencyRecord> record = read(key);
					if (record.isPresent() && record.get().state() == RecordState.COMPLETED) {
						return true;
					}
					return super.renew(key, owner, fence, lease, retention);
				}

			};
		}

	}

	/**
	 * Answers the items of a batch in reverse order.
	 */
	static class AnswersBatchesInReverse extends IdempotencyStoreContractTests {

		@Override
		protected IdempotencyStore createStore() {
			return new BrokenStore() {

				@Override
				public List<AcquireResult> acquireAll(List<BatchAcquire> batch) {
					List<AcquireResult> results = new ArrayList<>(super.acquireAll(batch));
					Collections.reverse(results);
					return results;
				}

			};
		}

	}

	private static class BrokenStore implements IdempotencyStore {

		private final IdempotencyStore delegate = new InMemoryIdempotencyStore();

		@Override
		public AcquireResult acquire(RecordKey key, AcquireRequest request) {
			return this.delegate.acquire(key, request);
		}

		@Override
		public boolean complete(RecordKey key, String owner, long fence, StoredResult result, Duration retention) {
			return this.delegate.complete(key, owner, fence, result, retention);
		}

		@Override
		public boolean release(RecordKey key, String owner, long fence, Duration retention) {
			return this.delegate.release(key, owner, fence, retention);
		}

		@Override
		public boolean renew(RecordKey key, String owner, long fence, Duration lease, Duration retention) {
			return this.delegate.renew(key, owner, fence, lease, retention);
		}

		@Override
		public CompletionStage<Boolean> abandon(RecordKey key, String owner, Duration retention) {
			return this.delegate.abandon(key, owner, retention);
		}

		@Override
		public Optional<IdempotencyRecord> read(RecordKey key) {
			return this.delegate.read(key);
		}

		@Override
		public boolean evict(RecordKey key) {
			return this.delegate.evict(key);
		}

		@Override
		public String type() {
			return "broken";
		}

	}

}
