package dev.idempotency.engine;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.BatchOutcome.InProgress;
import dev.idempotency.BatchOutcome.KeyReused;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.engine.LeaseRenewer.Renewal;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * The record of the items of a batch with one key ({@link BatchItems}), and what became
 * of it: taken and renewed, run, deferred to the end of the caller's transaction, and the
 * outcome that the first item with that key gets.
 *
 * @param <I> the item type
 */
final class BatchSlot<I> {

	private final int first;

	private final I item;

	private final RecordKey record;

	private final AcquireRequest request;

	private final Call call;

	private final Listeners listeners;

	private @Nullable Attempt attempt;

	private boolean takeover;

	private @Nullable Renewal renewal;

	private @Nullable Ticket ticket;

	private boolean ran;

	private boolean bypassed;

	private @Nullable Object value;

	private @Nullable BatchOutcome<I, @Nullable Object> outcome;

	private @Nullable Error encodingError;

	// Settled once the caller's transaction has ended (BatchAfterCommit), which ends
	// its call and ticket then
	private boolean deferred;

	BatchSlot(int first, I item, RecordKey record, AcquireRequest request, Call call, Listeners listeners) {
		this.first = first;
		this.item = item;
		this.record = record;
		this.request = request;
		this.call = call;
		this.listeners = listeners;
	}

	/**
	 * Return the index of the first item with this slot's key, the one that decides.
	 */
	int first() {
		return this.first;
	}

	I item() {
		return this.item;
	}

	RecordKey record() {
		return this.record;
	}

	AcquireRequest request() {
		return this.request;
	}

	Call call() {
		return this.call;
	}

	Attempt attempt() {
		Attempt attempt = this.attempt;
		Assert.state(attempt != null, "Not taken");
		return attempt;
	}

	boolean takeover() {
		return this.takeover;
	}

	void admitted(Ticket ticket) {
		this.ticket = ticket;
	}

	Ticket ticket() {
		Ticket ticket = this.ticket;
		Assert.state(ticket != null, "Not admitted");
		return ticket;
	}

	void bypassed() {
		this.bypassed = true;
	}

	boolean isBypassed() {
		return this.bypassed;
	}

	boolean hasRun() {
		return this.ran;
	}

	@Nullable Object value() {
		return this.value;
	}

	void taken(Attempt attempt, boolean takeover, Renewal renewal) {
		this.attempt = attempt;
		this.takeover = takeover;
		this.renewal = renewal;
	}

	void ran(@Nullable Object value) {
		this.ran = true;
		this.value = value;
	}

	@Nullable Error encodingError() {
		return this.encodingError;
	}

	void encodingError(@Nullable Error error) {
		this.encodingError = error;
	}

	void executed(@Nullable Object value) {
		this.outcome = new Executed<>(item(), this.record.key(), value);
	}

	void replayed(@Nullable Object value) {
		this.outcome = new Replayed<>(item(), this.record.key(), value);
	}

	void inProgress(Duration retryAfter) {
		this.outcome = new InProgress<>(item(), this.record.key(), retryAfter);
	}

	void keyReused() {
		this.outcome = new KeyReused<>(item(), this.record.key());
	}

	void failed(Throwable exception) {
		this.outcome = new Failed<>(item(), this.record.key(), exception);
	}

	/**
	 * Leave the record of an item that ran to be settled once the caller's transaction
	 * has ended: its value is its outcome now.
	 */
	void defer() {
		this.deferred = true;
		executed(this.value);
	}

	boolean isDeferred() {
		return this.deferred;
	}

	/**
	 * End a deferred item's call, once its record is settled.
	 * @param error what kept its record from completing, or {@code null}
	 */
	void settled(@Nullable Throwable error) {
		stopRenewal();
		leave();
		this.listeners.end(this.call, this.record, error);
	}

	/**
	 * End the admitted call of this slot's key, once.
	 */
	void leave() {
		Ticket ticket = this.ticket;
		if (ticket != null) {
			this.ticket = null;
			ticket.end();
		}
	}

	void stopRenewal() {
		Renewal renewal = this.renewal;
		if (renewal != null) {
			renewal.stop();
		}
	}

	BatchOutcome<I, @Nullable Object> outcome() {
		BatchOutcome<I, @Nullable Object> outcome = this.outcome;
		Assert.state(outcome != null, () -> "No outcome for " + this.record);
		return outcome;
	}

}
