package dev.idempotency.engine;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RenewalResult;

/**
 * The check before an attempt's method, or a batch item's work, starts: at least a
 * {@linkplain Attempt#canStart() third of its lease} must be left. When less is, one
 * renewal is sent and waited for first. A reply that came late was often granted late as
 * well (the first command of a connection still being made, one re-sent after a
 * reconnect, a claim waiting for a replica), while the engine counts the lease from when
 * the acquire was sent; a renewal the store confirms gives the attempt a lease counted
 * from when the renewal was sent. It is waited for only as long as its reply can take and
 * still leave the third the method needs, so a store that stays slow still refuses the
 * start.
 * <p>
 * The caller's interrupt flag is cleared for the wait and set again afterwards, as for
 * the other store calls of an attempt.
 */
final class StartMargin {

	private static final Log logger = LogFactory.getLog(StartMargin.class);

	private final IdempotencyStore store;

	private final LongSupplier nanoClock;

	StartMargin(IdempotencyStore store, LongSupplier nanoClock) {
		this.store = store;
		this.nanoClock = nanoClock;
	}

	/**
	 * Return whether an attempt may start its method, renewing its lease once when too
	 * little of it is left.
	 * @param attempt the attempt
	 * @param settings its operation's settings
	 * @param renew whether to renew first when too little is left
	 * @return whether at least a third of the lease is left
	 */
	boolean mayStart(Attempt attempt, OperationSettings settings, boolean renew) {
		// One reading of the clock on the path of every call
		boolean canStart = attempt.canStart();
		if (canStart || !renew) {
			return canStart;
		}
		long sent = this.nanoClock.getAsLong();
		long waitNanos = attempt.leaseNanos() - attempt.leaseNanos() / Attempt.START_MARGIN_DIVISOR;
		boolean interrupted = Thread.interrupted();
		try {
			RenewalResult result = this.store
				.renewLease(attempt.record(), attempt.owner(), attempt.fence(), settings.lockTimeout(),
						settings.retention())
				.toCompletableFuture()
				.get(waitNanos, TimeUnit.NANOSECONDS);
			attempt.renewal(result, sent);
		}
		catch (InterruptedException ex) {
			interrupted = true;
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			logger.debug("Could not renew the lease of " + attempt + " before its method", ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		return attempt.canStart();
	}

}
