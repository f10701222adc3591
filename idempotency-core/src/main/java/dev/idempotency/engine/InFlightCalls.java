package dev.idempotency.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.store.IdempotencyStore;

/**
 * The calls an engine runs, each from before its first store request until its record is
 * completed or released, so that a shutdown can refuse new calls and wait for the running
 * ones.
 * <p>
 * Once the engine {@link #refuse refuses} calls, none is admitted, and a call admitted
 * before whose acquire is answered after that does not {@link Ticket#hold hold} its
 * record for its method: it releases it. Calls that held their record before keep
 * running, their leases renewed, until they end. At the shutdown's bound,
 * {@link #abandonUnstarted(IdempotencyStore)} releases the records of the calls whose
 * methods have not started (batch items waiting for the items before them), which then
 * never start; a method that runs is left to finish or to its lease.
 * <p>
 * A call that runs wholly on the thread that admitted it (not an asynchronous one) is not
 * waited for by a refusal from that very thread, such as a method that closes the
 * application context: it can only end once the refusal's waiting has.
 * <p>
 * Admitting and ending a call adds it to and removes it from a concurrent set: no lock on
 * the path of a call.
 */
final class InFlightCalls {

	private static final Log logger = LogFactory.getLog(InFlightCalls.class);

	private final Set<Ticket> calls = ConcurrentHashMap.newKeySet();

	// Completes once no call is left after a refusal began; each refusal has its own
	private volatile CompletableFuture<Void> drained = CompletableFuture.completedFuture(null);

	private volatile boolean refusing;

	// The thread that began the refusal, whose own calls it does not wait for
	private volatile @Nullable Thread refusingThread;

	/**
	 * Admit a call, before it asks the store for anything.
	 * @param thread the thread the call runs on from its admission to its end, or
	 * {@code null} for a call that goes on on other threads
	 * @return its ticket, to {@link Ticket#end() end} once its record is settled, or
	 * {@code null} when the engine refuses calls
	 */
	@Nullable Ticket admit(@Nullable Thread thread) {
		Ticket ticket = new Ticket(thread);
		this.calls.add(ticket);
		// Read after the add: either refuse() sees this call and waits for it, or this
		// sees the refusal
		if (this.refusing) {
			ticket.end();
			return null;
		}
		return ticket;
	}

	/**
	 * Return whether the engine refuses calls, so that a call waiting for another attempt
	 * stops waiting.
	 * @return whether calls are refused
	 */
	boolean isRefusing() {
		return this.refusing;
	}

	/**
	 * Refuse new calls from now on.
	 * @param thread the thread that refuses them, whose own calls (those that run wholly
	 * on it) can only end after it stops waiting, or {@code null}
	 * @return a future that completes once every call admitted before has ended, but
	 * those of that thread
	 */
	synchronized CompletableFuture<Void> refuse(@Nullable Thread thread) {
		if (!this.refusing) {
			this.drained = new CompletableFuture<>();
			this.refusingThread = thread;
			this.refusing = true;
		}
		CompletableFuture<Void> drained = this.drained;
		// Read after the refusal: either a call that ends now sees it, or this sees the
		// call gone
		if (onlyCallsOfTheRefusingThread()) {
			drained.complete(null);
		}
		return drained;
	}

	/**
	 * Admit calls again, as after a restart of the application context.
	 */
	synchronized void admitAgain() {
		this.refusing = false;
	}

	/**
	 * Return how many calls are running.
	 * @return the number of calls admitted that have not ended
	 */
	int running() {
		return this.calls.size();
	}

	/**
	 * Return how many calls run wholly on a thread.
	 * @param thread the thread
	 * @return the number of its calls admitted that have not ended
	 */
	int runningOn(Thread thread) {
		int running = 0;
		for (Ticket ticket : this.calls) {
			if (ticket.thread == thread) {
				running++;
			}
		}
		return running;
	}

	// Iterates the calls only while refusing: never on the path of a call otherwise
	private boolean onlyCallsOfTheRefusingThread() {
		Thread thread = this.refusingThread;
		for (Ticket ticket : this.calls) {
			if (thread == null || ticket.thread != thread) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Keep every call still running from starting its method, and release the records of
	 * those that hold one for a method that has not started. One store request each, not
	 * retried: the store is about to close. Nothing is abandoned once the refusal is over
	 * (calls are admitted again, or refused by a later refusal): the calls then running
	 * are not this refusal's.
	 * @param store the store to release the records in
	 * @param refusal the future {@link #refuse} returned
	 * @return the number of calls left running and of records released
	 */
	synchronized Unfinished abandonUnstarted(IdempotencyStore store, CompletableFuture<Void> refusal) {
		if (!this.refusing || this.drained != refusal) {
			return new Unfinished(0, 0);
		}
		// Every call is kept from starting before any record is released: a release takes
		// a store round trip, and a method that started meanwhile would run past the
		// bound
		List<Ticket> held = new ArrayList<>();
		int left = 0;
		for (Ticket ticket : this.calls) {
			left++;
			if (ticket.abandon() == State.HELD) {
				held.add(ticket);
			}
		}
		int released = 0;
		for (Ticket ticket : held) {
			if (release(store, ticket)) {
				released++;
			}
		}
		return new Unfinished(left, released);
	}

	private static boolean release(IdempotencyStore store, Ticket ticket) {
		Attempt attempt = ticket.attempt;
		Duration retention = ticket.retention;
		if (attempt == null || retention == null) {
			return false;
		}
		try {
			return store.release(attempt.record(), attempt.owner(), attempt.fence(), retention);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not release the record of " + attempt + " at shutdown; it is left to its lease", ex);
			return false;
		}
	}

	private enum State {

		ADMITTED, HELD, STARTED, ABANDONED

	}

	/**
	 * What a shutdown left when it reached its bound.
	 *
	 * @param calls the calls still running
	 * @param released how many of them held a record for a method that had not started,
	 * and released it
	 */
	record Unfinished(int calls, int released) {
	}

	/**
	 * One admitted call: admitted, then holding its record for its method, then running
	 * its method, or abandoned at the shutdown's bound before its method started.
	 */
	final class Ticket {

		private static final AtomicReferenceFieldUpdater<Ticket, State> STATE = AtomicReferenceFieldUpdater
			.newUpdater(Ticket.class, State.class, "state");

		private volatile State state = State.ADMITTED;

		private final @Nullable Thread thread;

		// Written before the state turns HELD, read after it is seen HELD
		private @Nullable Attempt attempt;

		private @Nullable Duration retention;

		private Ticket(@Nullable Thread thread) {
			this.thread = thread;
		}

		/**
		 * Hold the record an acquire took, for the call's method, unless the engine
		 * refuses calls by now: an acquire answered after the refusal began starts no
		 * method.
		 * @param attempt the attempt that owns the record
		 * @param retention how long its record keeps its fence once released
		 * @return whether it holds the record; if not, the caller releases it
		 */
		boolean hold(Attempt attempt, Duration retention) {
			this.attempt = attempt;
			this.retention = retention;
			return !InFlightCalls.this.refusing && STATE.compareAndSet(this, State.ADMITTED, State.HELD);
		}

		/**
		 * Start the method of a call that holds its record.
		 * @return whether it may start: {@code false} once the shutdown's bound released
		 * the record
		 */
		boolean start() {
			return STATE.compareAndSet(this, State.HELD, State.STARTED);
		}

		/**
		 * Start the method of a call that runs without a record, since the store failed
		 * to take it.
		 * @return whether it may start: {@code false} once the shutdown's bound passed
		 */
		boolean startUnprotected() {
			return STATE.compareAndSet(this, State.ADMITTED, State.STARTED);
		}

		/**
		 * End the call, once its record is completed or released or it never took one.
		 */
		void end() {
			InFlightCalls.this.calls.remove(this);
			if (InFlightCalls.this.refusing && onlyCallsOfTheRefusingThread()) {
				InFlightCalls.this.drained.complete(null);
			}
		}

		// Returns the state it was in; a call whose method started is left as it is
		private State abandon() {
			while (true) {
				State current = this.state;
				if (current == State.STARTED || current == State.ABANDONED
						|| STATE.compareAndSet(this, current, State.ABANDONED)) {
					return current;
				}
			}
		}

	}

}
