package dev.idempotency.engine;

import dev.idempotency.IdempotencyContext;
import dev.idempotency.store.RecordKey;

/**
 * The attempt that owns a record while its method runs.
 */
final class Attempt implements IdempotencyContext {

	private final RecordKey record;

	private final String owner;

	private final long fence;

	private volatile boolean leaseHeld = true;

	Attempt(RecordKey record, String owner, long fence) {
		this.record = record;
		this.owner = owner;
		this.fence = fence;
	}

	RecordKey record() {
		return this.record;
	}

	String owner() {
		return this.owner;
	}

	void leaseHeld(boolean held) {
		this.leaseHeld = held;
	}

	@Override
	public String name() {
		return this.record.name();
	}

	@Override
	public String key() {
		return this.record.key();
	}

	@Override
	public long fence() {
		return this.fence;
	}

	@Override
	public boolean isLeaseHeld() {
		return this.leaseHeld;
	}

	@Override
	public String toString() {
		return "Attempt[" + this.record + ", fence=" + this.fence + "]";
	}

}
