package dev.idempotency.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyContext;
import dev.idempotency.IdempotencyContextHolder;
import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyLockLostException;
import dev.idempotency.IdempotencyShutdownException;
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
 * batch at once, runs the work of the items it took on the caller's thread, records their
 * outcomes at once ({@link BatchRecorder}), and hands every item its outcome, items with
 * the same key that of the first ({@link BatchItems}).
 *
 * @param <I> the item type
 */
final class BatchCall<I> {

	private final IdempotencyEngine engine;

	private final Operation operation;

	private final BatchItems<I> items;

	private final Function<? super I, ?> work;

	// An Error from the work or the renewer: it stops the batch, and is thrown once every
	// record is recorded
	private @Nullable Error fatal;

	// Whether an item with too little lease left renews it before it is refused: not
	// once the store has failed to, so that a store that hangs is not waited for at
	// every item
	private boolean renewLateItems = true;

	BatchCall(IdempotencyEngine engine, Operation operation, BatchItems<I> items, Function<? super I, ?> work) {
		this.engine = engine;
		this.operation = operation;
		this.items = items;
		this.work = work;
	}

	List<BatchOutcome<I, @Nullable Object>> run() {
		List<BatchItems<I>.Slot> slots = this.items.slots();
		List<? extends @Nullable AcquireResult> results;
		long sentNanos = this.engine.nanoClock().getAsLong();
		@Nullable RuntimeException failure = null;
		boolean interrupted = Thread.interrupted();
		try {
			results = this.engine.getStore()
				.acquireAll(slots.stream().map((slot) -> new BatchAcquire(slot.record(), slot.request())).toList());
		}
		catch (RuntimeException ex) {
			List<@Nullable AcquireResult> answered = answered(ex, slots.size());
			for (int i = 0; i < slots.size(); i++) {
				if (answered == null || answered.get(i) == null) {
					this.engine.acquirer().abandon(slots.get(i).record(), slots.get(i).request());
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
		Assert.state(answers == slots.size(), () -> "Store " + this.engine.getStore().type() + " answered " + answers
				+ " results to a batch of " + slots.size() + " acquires");
		if (failure == null) {
			this.engine.outage().answered();
		}
		List<BatchItems<I>.Slot> taken = new ArrayList<>();
		List<BatchItems<I>.Slot> toRun = new ArrayList<>();
		try {
			for (int i = 0; i < slots.size(); i++) {
				BatchItems<I>.Slot slot = slots.get(i);
				AcquireResult result = results.get(i);
				if (result == null) {
					// Reports the item bypassed: only the items the store failed to
					// answer run unprotected, an item it answered completed is replayed;
					// none once the engine refuses calls
					RuntimeException unanswered = Objects.requireNonNull(failure);
					if (this.engine.bypass(slot.call(), this.operation, slot.record(), unanswered)) {
						slot.bypassed();
						toRun.add(slot);
					}
					else {
						slot.failed(IdempotencyEngine.storeException("acquire", slot.record(), unanswered));
					}
				}
				else if (decide(slot, result, sentNanos)) {
					taken.add(slot);
					toRun.add(slot);
				}
			}
			runAll(toRun);
			List<BatchItems<I>.Slot> ran = taken.stream().filter(BatchItems.Slot::hasRun).toList();
			if (!ran.isEmpty() && AfterCommit.defers(this.engine.getStore())) {
				// Recorded once the caller's transaction has ended, renewed until then
				new BatchAfterCommit<>(this.engine, this.operation, ran).register();
			}
			else {
				new BatchRecorder(this.engine, this.operation).record(taken);
			}
		}
		finally {
			for (BatchItems<I>.Slot slot : taken) {
				if (!slot.isDeferred()) {
					slot.stopRenewal();
				}
			}
		}
		return finish();
	}

	// Whether the slot's record was taken and its lease is being renewed
	private boolean decide(BatchItems<I>.Slot slot, AcquireResult result, long sentNanos) {
		Call call = slot.call();
		if (result instanceof Acquired acquired) {
			Attempt attempt = this.engine.attempt(this.operation, slot.record(), slot.request(), acquired,
					new Claim(acquired, sentNanos));
			try {
				slot.taken(attempt, acquired.takeover(),
						this.engine.renew(call, this.operation, attempt, slot.ticket()));
				return true;
			}
			catch (Throwable ex) {
				// renew() released the record and reported the item failed, or refused at
				// shutdown
				stopOn(ex);
				slot.failed(ex);
				return false;
			}
		}
		if (result instanceof Completed completed) {
			try {
				Throwable failure = this.engine.replayedFailure(call, this.operation, slot.record(), completed);
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
			this.engine.report(call, this.operation, slot.record(), Outcome.REPLAYED);
			slot.replayed(holding.value(slot.record()));
			return false;
		}
		this.engine.refusal(call, this.operation, slot.record(), result);
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
		if (this.engine.proceedsUnprotected() && ex instanceof BatchAcquireException partial
				&& partial.results().size() == size) {
			return partial.results();
		}
		return null;
	}

	private void runAll(List<BatchItems<I>.Slot> toRun) {
		for (BatchItems<I>.Slot slot : toRun) {
			if (slot.isBypassed()) {
				runUnprotected(slot);
				continue;
			}
			Attempt attempt = slot.attempt();
			Error stop = this.fatal;
			if (stop != null) {
				this.engine.released(slot.call(), this.operation, attempt, stop);
				slot.failed(stop);
				continue;
			}
			IdempotencyLockLostException late = this.engine.tooLateToStart(slot.call(), this.operation, attempt,
					this.renewLateItems);
			if (late != null) {
				this.renewLateItems = false;
				slot.failed(late);
				continue;
			}
			if (!slot.ticket().start()) {
				// Released by the shutdown, which reached its bound
				slot.failed(this.engine.refused(slot.call(), this.operation, slot.record()));
				continue;
			}
			IdempotencyContext outer = IdempotencyContextHolder.set(attempt);
			try {
				slot.ran(this.work.apply(slot.item()));
			}
			catch (Throwable ex) {
				stopOn(ex);
				failed(slot, attempt, ex);
			}
			finally {
				IdempotencyContextHolder.restore(outer);
			}
		}
	}

	private void failed(BatchItems<I>.Slot slot, Attempt attempt, Throwable ex) {
		try {
			this.engine.failed(slot.call(), this.operation, attempt, ex);
			slot.failed(ex);
		}
		catch (IdempotencyException recordingFailure) {
			// A failure the operation replays, which could not be stored
			slot.failed(recordingFailure);
		}
	}

	// The store failed to take the keys: fail the batch, or run it unprotected
	private List<BatchOutcome<I, @Nullable Object>> unacquired(RuntimeException ex) {
		List<BatchItems<I>.Slot> slots = this.items.slots();
		if (!this.engine.proceedsUnprotected()) {
			IdempotencyStoreException failure = IdempotencyEngine.storeException("acquire", slots.get(0).record(), ex);
			for (BatchItems<I>.Slot slot : slots) {
				// Reports the store error: bypass() runs nothing under this policy
				this.engine.bypass(slot.call(), this.operation, slot.record(), ex);
			}
			this.items.end(failure);
			throw failure;
		}
		for (BatchItems<I>.Slot slot : slots) {
			if (this.engine.bypass(slot.call(), this.operation, slot.record(), ex)) {
				runUnprotected(slot);
			}
			else {
				// The engine began to refuse calls meanwhile
				slot.failed(IdempotencyEngine.storeException("acquire", slot.record(), ex));
			}
		}
		return finish();
	}

	private void runUnprotected(BatchItems<I>.Slot slot) {
		Error stop = this.fatal;
		if (stop != null) {
			slot.failed(stop);
			return;
		}
		if (!slot.ticket().startUnprotected()) {
			// The shutdown reached its bound: no item starts any more
			slot.failed(new IdempotencyShutdownException(slot.record().name(), slot.record().key()));
			return;
		}
		try {
			slot.executed(this.work.apply(slot.item()));
		}
		catch (Throwable failure) {
			stopOn(failure);
			slot.failed(failure);
		}
	}

	private List<BatchOutcome<I, @Nullable Object>> finish() {
		List<BatchOutcome<I, @Nullable Object>> outcomes = this.items.outcomes();
		Error stop = this.fatal;
		if (stop == null) {
			stop = this.items.encodingError();
		}
		if (stop != null) {
			throw stop;
		}
		return outcomes;
	}

	private void stopOn(Throwable ex) {
		if (ex instanceof Error error && this.fatal == null) {
			this.fatal = error;
		}
	}

}
