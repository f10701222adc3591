package dev.idempotency.codec;

import java.util.concurrent.atomic.AtomicReferenceArray;

import org.jspecify.annotations.Nullable;

import tools.jackson.core.util.BufferRecycler;
import tools.jackson.core.util.RecyclerPool;

/**
 * Jackson's buffers for the codec's own copy of the application's mapper, kept in a few
 * slots that threads pick by id: acquiring and releasing them takes one compare-and-set
 * on a slot that other threads rarely use. Jackson 3's default pool, one
 * {@code ConcurrentLinkedDeque} for every thread, cost a third of decoding a replayed
 * 200-byte record at 8 threads (a deque node per release, and the threads contending for
 * its ends); a thread-local pool would pool nothing for virtual threads. A thread that
 * finds its slot empty gets new buffers, and a release to a full slot drops them: the
 * pool only saves allocations, it never shares a buffer.
 */
final class StripedRecyclerPool implements RecyclerPool<BufferRecycler> {

	private static final long serialVersionUID = 1L;

	// References are 4 or 8 bytes: 16 apart, each slot has a cache line of its own
	private static final int SPREAD = 16;

	private final int mask;

	private final transient AtomicReferenceArray<@Nullable BufferRecycler> slots;

	StripedRecyclerPool() {
		int stripes = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 4 - 1) << 1;
		this.mask = stripes - 1;
		this.slots = new AtomicReferenceArray<>(stripes * SPREAD);
	}

	@Override
	public BufferRecycler acquirePooled() {
		int slot = slot();
		BufferRecycler recycler = this.slots.get(slot);
		if (recycler != null && this.slots.compareAndSet(slot, recycler, null)) {
			return recycler;
		}
		return new BufferRecycler();
	}

	@Override
	public void releasePooled(BufferRecycler recycler) {
		int slot = slot();
		if (this.slots.get(slot) == null) {
			this.slots.compareAndSet(slot, null, recycler);
		}
	}

	// A pool that was serialized with its factory starts empty
	private Object readResolve() {
		return new StripedRecyclerPool();
	}

	// The thread's id, a plain field: consecutive threads take consecutive slots, and
	// picking by the thread's identity hash cost as much as the deque it replaces
	private int slot() {
		long id = Thread.currentThread().getId();
		return ((int) (id ^ (id >>> 32)) & this.mask) * SPREAD;
	}

}
