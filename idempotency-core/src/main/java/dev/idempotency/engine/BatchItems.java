package dev.idempotency.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.BatchOutcome.Executed;
import dev.idempotency.BatchOutcome.Failed;
import dev.idempotency.BatchOutcome.InProgress;
import dev.idempotency.BatchOutcome.KeyReused;
import dev.idempotency.BatchOutcome.Replayed;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * The items of a batch, grouped by record: one {@link BatchSlot} per distinct key,
 * decided by the first item with that key, in the order of those first items. Every item
 * has its own observed call, detached from the caller's thread at once: the items' calls
 * overlap, so none can be made current there.
 *
 * @param <I> the item type
 */
final class BatchItems<I> {

	private final Listeners listeners;

	private final List<? extends I> items;

	private final List<BatchSlot<I>> slotOf;

	private final byte @Nullable [][] fingerprints;

	private final Call[] calls;

	private final List<BatchSlot<I>> slots;

	BatchItems(Listeners listeners, List<? extends I> items, Function<? super I, RecordKey> records,
			@Nullable Function<? super I, byte @Nullable []> fingerprints,
			Function<byte @Nullable [], AcquireRequest> requests) {
		this.listeners = listeners;
		// A copy: the work may change the caller's list (a buffer drained as it is
		// handled), and each item's work and outcome must be those of the item it was
		// called with
		this.items = new ArrayList<>(items);
		int size = this.items.size();
		RecordKey[] keys = new RecordKey[size];
		this.fingerprints = (fingerprints != null) ? new byte[size][] : null;
		// Every key and payload is checked before any call is observed or anything runs
		for (int i = 0; i < size; i++) {
			I item = this.items.get(i);
			Assert.isTrue(item != null, () -> "'items' must not contain null elements");
			keys[i] = records.apply(item);
			if (fingerprints != null) {
				this.fingerprints[i] = fingerprints.apply(item);
			}
		}
		Map<RecordKey, BatchSlot<I>> byRecord = new LinkedHashMap<>();
		this.slotOf = new ArrayList<>(size);
		this.calls = new Call[size];
		for (int i = 0; i < size; i++) {
			int index = i;
			Call call = listeners.start(keys[i]);
			listeners.detach(call, keys[i]);
			this.calls[i] = call;
			this.slotOf.add(byRecord.computeIfAbsent(keys[i], (record) -> new BatchSlot<>(index, this.items.get(index),
					record, requests.apply(fingerprint(index)), call, listeners)));
		}
		this.slots = List.copyOf(byRecord.values());
	}

	List<BatchSlot<I>> slots() {
		return this.slots;
	}

	private byte @Nullable [] fingerprint(int index) {
		return (this.fingerprints != null) ? this.fingerprints[index] : null;
	}

	/**
	 * Return one outcome per item, reporting and ending the call of every item whose key
	 * an earlier item had, and ending the others'.
	 */
	List<BatchOutcome<I, @Nullable Object>> outcomes() {
		List<BatchOutcome<I, @Nullable Object>> outcomes = new ArrayList<>(this.items.size());
		for (int i = 0; i < this.items.size(); i++) {
			BatchSlot<I> slot = this.slotOf.get(i);
			BatchOutcome<I, @Nullable Object> outcome = (slot.first() == i) ? slot.outcome() : duplicate(i, slot);
			outcomes.add(outcome);
			if (!slot.isDeferred() || slot.first() != i) {
				this.listeners.end(this.calls[i], slot.record(),
						(outcome instanceof Failed<?, ?> failed) ? failed.exception() : null);
			}
		}
		return outcomes;
	}

	// The first item with the key decides: its result is replayed, anything else repeated
	private BatchOutcome<I, @Nullable Object> duplicate(int index, BatchSlot<I> slot) {
		I item = this.items.get(index);
		String key = slot.record().key();
		byte[] fingerprint = fingerprint(index);
		byte[] firstFingerprint = fingerprint(slot.first());
		BatchOutcome<I, @Nullable Object> first = slot.outcome();
		BatchOutcome<I, @Nullable Object> outcome;
		Outcome counted;
		if (fingerprint != null && firstFingerprint != null && !Arrays.equals(fingerprint, firstFingerprint)) {
			outcome = new KeyReused<>(item, key);
			counted = Outcome.KEY_REUSE;
		}
		else if (first instanceof Executed<I, Object> executed) {
			outcome = new Replayed<>(item, key, executed.result());
			counted = Outcome.REPLAYED;
		}
		else if (first instanceof Replayed<I, Object> replayed) {
			outcome = new Replayed<>(item, key, replayed.result());
			counted = Outcome.REPLAYED;
		}
		else if (first instanceof InProgress<I, Object> inProgress) {
			outcome = new InProgress<>(item, key, inProgress.retryAfter());
			counted = Outcome.IN_PROGRESS;
		}
		else if (first instanceof Failed<I, Object> failed) {
			outcome = new Failed<>(item, key, failed.exception());
			counted = Outcome.FAILED;
		}
		else {
			outcome = new KeyReused<>(item, key);
			counted = Outcome.KEY_REUSE;
		}
		this.listeners.onOutcome(this.calls[index], slot.record().name(), counted);
		return outcome;
	}

	/**
	 * Admit the call of every distinct key, before the batch asks the store for anything.
	 * @param inFlight the engine's running calls
	 * @return whether they were admitted; if not, none is
	 */
	boolean admit(InFlightCalls inFlight) {
		for (BatchSlot<I> slot : this.slots) {
			Ticket ticket = inFlight.admit(Thread.currentThread());
			if (ticket == null) {
				leave();
				return false;
			}
			slot.admitted(ticket);
		}
		return true;
	}

	/**
	 * End the admitted call of every distinct key, once its record is settled.
	 */
	void leave() {
		for (BatchSlot<I> slot : this.slots) {
			if (!slot.isDeferred()) {
				slot.leave();
			}
		}
	}

	/**
	 * End every item's call with the failure of the whole batch.
	 */
	void end(Throwable failure) {
		for (int i = 0; i < this.items.size(); i++) {
			this.listeners.end(this.calls[i], this.slotOf.get(i).record(), failure);
		}
	}

	/**
	 * Return the first error raised while encoding a result, to throw once every record
	 * is complete.
	 */
	@Nullable Error encodingError() {
		for (BatchSlot<I> slot : this.slots) {
			if (slot.encodingError() != null) {
				return slot.encodingError();
			}
		}
		return null;
	}

}
