package dev.idempotency.engine;

import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.Idempotent.OnInProgress;
import dev.idempotency.store.AcquireRequest;
import dev.idempotency.store.AcquireResult;
import dev.idempotency.store.AcquireResult.InProgress;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

/**
 * Takes the record of a call: one acquire, and with {@code WAIT}, polls while another
 * attempt holds it.
 * <p>
 * The caller's interrupt flag is cleared for the acquire and set again afterwards: a
 * client may refuse to wait on an interrupted thread after it has sent the command. After
 * an acquire that failed, possibly after the store ran it (a timeout), whatever it may
 * have taken is abandoned without waiting, so that an attempt that will never run does
 * not block the key for a whole lease. A {@code WAIT} ends, as one that waited in vain,
 * once the engine refuses calls: a shutdown does not wait for it.
 */
final class Acquirer {

	private static final Log logger = LogFactory.getLog(Acquirer.class);

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	private final BooleanSupplier refusing;

	private final InProgressWaiter waiter = new InProgressWaiter();

	Acquirer(IdempotencyStore store, LongSupplier nanoClock, BooleanSupplier refusing) {
		this.store = store;
		this.nanoClock = nanoClock;
		this.refusing = refusing;
	}

	/**
	 * Acquire a record.
	 * @param record the record
	 * @param request the attempt's request
	 * @param settings the operation's settings
	 * @return what the last acquire found, and when it was sent
	 * @throws RuntimeException the store's failure
	 */
	Claim acquire(RecordKey record, AcquireRequest request, OperationSettings settings) {
		Claim claim = acquireOnce(record, request);
		// Not for a record this very transaction holds: it stays in progress until then
		if (claim.result() instanceof InProgress inProgress && settings.onInProgress() == OnInProgress.WAIT
				&& AfterCommit.holding(record) == null) {
			try {
				return this.waiter.await(this.store, record, request, inProgress, settings.waitTimeout(),
						this.nanoClock, this.refusing);
			}
			catch (RuntimeException ex) {
				abandon(record, request);
				throw ex;
			}
		}
		return claim;
	}

	/**
	 * Acquire a record once, never waiting for another attempt.
	 * @param record the record
	 * @param request the attempt's request
	 * @return what the acquire found, and when it was sent
	 * @throws RuntimeException the store's failure, after abandoning what it may have
	 * taken
	 */
	Claim acquireOnce(RecordKey record, AcquireRequest request) {
		long sentNanos = this.nanoClock.getAsLong();
		AcquireResult result;
		boolean interrupted = Thread.interrupted();
		try {
			result = this.store.acquire(record, request);
		}
		catch (RuntimeException ex) {
			abandon(record, request);
			throw ex;
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		return new Claim(result, sentNanos);
	}

	/**
	 * Return whether waits should end, because the engine refuses calls.
	 * @return whether a wait ends at its next poll
	 */
	boolean isRefusing() {
		return this.refusing.getAsBoolean();
	}

	void abandon(RecordKey record, AcquireRequest request) {
		try {
			this.store.abandon(record, request.owner(), request.retention()).whenComplete((released, ex) -> {
				if (ex != null && logger.isDebugEnabled()) {
					logger.debug("Could not abandon the failed acquire of " + record, ex);
				}
			});
		}
		catch (RuntimeException ex) {
			logger.debug("Could not abandon the failed acquire of " + record, ex);
		}
	}

}
