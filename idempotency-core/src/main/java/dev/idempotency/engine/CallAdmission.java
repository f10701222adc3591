package dev.idempotency.engine;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyShutdownException;
import dev.idempotency.engine.IdempotencyObserver.Call;
import dev.idempotency.engine.InFlightCalls.Ticket;
import dev.idempotency.store.RecordKey;

/**
 * Admits calls among the engine's running ones, and refuses those that come once a
 * shutdown began: such a call fails with a store exception, and counts as a store error.
 */
final class CallAdmission {

	private final InFlightCalls inFlight;

	private final OutcomeReporter reporter;

	CallAdmission(InFlightCalls inFlight, OutcomeReporter reporter) {
		this.inFlight = inFlight;
		this.reporter = reporter;
	}

	InFlightCalls inFlight() {
		return this.inFlight;
	}

	/**
	 * Admit a call.
	 * @param thread the thread the call runs its method on, or {@code null} when that is
	 * not known yet
	 * @return the call's ticket
	 * @throws IdempotencyShutdownException if the engine refuses calls
	 */
	Ticket admit(Call call, Operation operation, RecordKey record, @Nullable Thread thread) {
		Ticket ticket = this.inFlight.admit(thread);
		if (ticket == null) {
			throw refused(call, operation, record);
		}
		return ticket;
	}

	/**
	 * Report a call whose method the engine does not start because it is shutting down.
	 * @return the exception to fail it with
	 */
	IdempotencyShutdownException refused(Call call, Operation operation, RecordKey record) {
		this.reporter.report(call, operation, record, Outcome.STORE_ERROR);
		return new IdempotencyShutdownException(record.name(), record.key());
	}

	/**
	 * Refuse a whole batch that could not be admitted, before anything runs, as when the
	 * store fails to acquire it: every item is reported and its call ended.
	 * @return the exception to throw
	 */
	IdempotencyShutdownException refused(Operation operation, BatchItems<?> batch) {
		for (BatchSlot<?> slot : batch.slots()) {
			this.reporter.report(slot.call(), operation, slot.record(), Outcome.STORE_ERROR);
		}
		RecordKey first = batch.slots().get(0).record();
		IdempotencyShutdownException refusal = new IdempotencyShutdownException(first.name(), first.key());
		batch.end(refusal);
		return refusal;
	}

}
