package dev.idempotency.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.Acquired;
import dev.idempotency.store.AcquireResult.Completed;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.BatchAcquire;
import dev.idempotency.store.BatchAcquireException;

import org.springframework.util.Assert;

/**
 * One call of {@link IdempotencyEngine#executeAll}: acquires every distinct key of a
 * batch at once and decides each from the store's answer, has the work of the items it
 * took run on the caller's thread ({@link BatchWork}), records their outcomes at once
 * ({@link BatchRecorder}), and hands every item its outcome, items with the same key that
 * of the first ({@link BatchItems}).
 *
 * @param <I> the item type
 */
final class BatchCall<I> {

	private final BatchSteps steps;

	private final Operation operation;

	private final BatchItems<I> items;

	private final BatchWork<I> work;

	BatchCall(BatchSteps steps, Operation operation, BatchItems<I> items, Function<? super I, ?> work) {
		this.steps = steps;
		this.operation = operation;
		this.items = items;
		this.work = new BatchWork<>(steps, operation, work);
	}

	List<BatchOutcome<I, @Nullable Object>> run() {
		List<BatchSlot<I>> slots = this.items.slots();
		List<? extends @Nullable AcquireResult> results;
		long sentNanos = this.steps.starter().nanoClock().getAsLong();
		@Nullable RuntimeException failure = null;
		boolean interrupted = Thread.interrupted();
		try {
			results = this.steps.store()
				.acquireAll(slots.stream().map((slot) -> new BatchAcquire(slot.record(), slot.request())).toList());
		}
		catch (RuntimeException ex) {
			List<@Nullable AcquireResult> answered = answered(ex, slots.size());
			for (int i = 0; i < slots.size(); i++) {
				if (answered == null || answered.get(i) == null) {
					this.steps.acquirer().abandon(slots.get(i).record(), slots.get(i).request());
				}
			}
			if (answered == null) {
				return unacquired(ex);
			}
			results = answered;
			failure = ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		int answers = results.size();
		Assert.state(answers == slots.size(), () -> "Store " + this.steps.store().type() + " answered " + answers
				+ " results to a batch of " + slots.size() + " acquires");
		if (failure == null) {
			this.steps.failures().answered();
		}
		List<BatchSlot<I>> taken = new ArrayList<>();
		List<BatchSlot<I>> toRun = new ArrayList<>();
		try {
			for (int i = 0; i < slots.size(); i++) {
				BatchSlot<I> slot = slots.get(i);
				AcquireResult result = results.get(i);
				if (result == null) {
					// Reports the item bypassed: only the items the store failed to
					// answer run unprotected, an item it answered completed is replayed;
					// none once the engine refuses calls
					RuntimeException unanswered = Objects.requireNonNull(failure);
					if (this.steps.failures().bypass(slot.call(), this.operation, slot.record(), unanswered)) {
						slot.bypassed();
						toRun.add(slot);
					}
					else {
						slot.failed(StoreExceptions.of("acquire", slot.record(), unanswered));
					}
				}
				else if (decide(slot, result, sentNanos)) {
					taken.add(slot);
					toRun.add(slot);
				}
			}
			this.work.runAll(toRun);
			List<BatchSlot<I>> ran = taken.stream().filter(BatchSlot::hasRun).toList();
			if (!ran.isEmpty() && AfterCommit.defers(this.steps.store())) {
				// Recorded once the caller's transaction has ended, renewed until then
				new BatchAfterCommit<>(this.steps.recorder(), this.steps.outcomes(), this.operation, ran).register();
			}
			else {
				List<JoinedTransaction> joined = new ArrayList<>();
				if (!ran.isEmpty() && AfterCommit.joins(this.steps.store())) {
					// Completed inside the caller's transaction: released if it does not
					// commit
					ran.forEach((slot) -> joined
						.add(this.steps.outcomes().releaseAfterRollback(this.operation, slot.attempt())));
				}
				try {
					this.steps.recorder().record(this.operation, taken);
					for (int i = 0; i < joined.size(); i++) {
						joined.get(i).completedWith(ran.get(i).value());
					}
				}
				catch (RuntimeException ex) {
					// Only inside a transaction the store joins, for it to roll back
					this.items.end(ex);
					throw ex;
				}
			}
		}
		finally {
			for (BatchSlot<I> slot : taken) {
				if (!slot.isDeferred()) {
					slot.stopRenewal();
				}
			}
		}
		return this.work.finish(this.items);
	}

	// Whether the slot's record was taken and its lease is being renewed
	private boolean decide(BatchSlot<I> slot, AcquireResult result, long sentNanos) {
		Call call = slot.call();
		if (result instanceof Acquired acquired) {
			Attempt attempt = this.steps.starter()
				.attempt(this.operation, slot.record(), slot.request(), acquired, new Claim(acquired, sentNanos));
			try {
				slot.taken(attempt, acquired.takeover(),
						this.steps.starter().renew(call, this.operation, attempt, slot.ticket()));
				return true;
			}
			catch (Throwable ex) {
				// renew() released the record and reported the item failed, or refused at
				// shutdown
				this.work.stopOn(ex);
				slot.failed(ex);
				return false;
			}
		}
		if (result instanceof Completed completed) {
			try {
				Throwable failure = this.steps.reporter()
					.replayedFailure(call, this.operation, slot.record(), completed);
				if (failure != null) {
					slot.failed(failure);
				}
				else {
					slot.replayed(Replay.decode(this.operation, slot.record(), completed.result()));
				}
			}
			catch (IdempotencyException ex) {
				slot.failed(ex);
			}
			return false;
		}
		TransactionOutcome holding = (result instanceof InProgress) ? AfterCommit.holding(slot.record()) : null;
		if (holding != null) {
			// A duplicate in the transaction that ran the work: what it will commit
			this.steps.reporter().report(call, this.operation, slot.record(), Outcome.REPLAYED);
			slot.replayed(holding.value(slot.record()));
			return false;
		}
		this.steps.reporter().refusal(call, this.operation, slot.record(), result);
		if (result instanceof InProgress inProgress) {
			slot.inProgress(inProgress.leaseRemaining());
		}
		else {
			slot.keyReused();
		}
		return false;
	}

	// Under on-store-failure=proceed, the answers of the items a partly failed batch
	// acquire did answer, or null when the batch must be treated as unanswered
	private @Nullable List<@Nullable AcquireResult> answered(RuntimeException ex, int size) {
		if (this.steps.failures().proceedsUnprotected() && ex instanceof BatchAcquireException partial
				&& partial.results().size() == size) {
			return partial.results();
		}
		return null;
	}

	// The store failed to take the keys: fail the batch, or run it unprotected
	private List<BatchOutcome<I, @Nullable Object>> unacquired(RuntimeException ex) {
		List<BatchSlot<I>> slots = this.items.slots();
		if (!this.steps.failures().proceedsUnprotected()) {
			IdempotencyStoreException failure = StoreExceptions.of("acquire", slots.get(0).record(), ex);
			for (BatchSlot<I> slot : slots) {
				// Reports the store error: bypass() runs nothing under this policy
				this.steps.failures().bypass(slot.call(), this.operation, slot.record(), ex);
			}
			this.items.end(failure);
			throw failure;
		}
		for (BatchSlot<I> slot : slots) {
			if (this.steps.failures().bypass(slot.call(), this.operation, slot.record(), ex)) {
				this.work.runUnprotected(slot);
			}
			else {
				// The engine began to refuse calls meanwhile
				slot.failed(StoreExceptions.of("acquire", slot.record(), ex));
			}
		}
		return this.work.finish(this.items);
	}

}
