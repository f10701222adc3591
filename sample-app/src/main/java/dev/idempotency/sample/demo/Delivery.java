package dev.idempotency.sample.demo;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

import dev.idempotency.sample.PaymentEvent;

/**
 * One delivery of an event, due at a point in time: a
 * {@link java.util.concurrent.DelayQueue} hands deliveries out in order of due time, so
 * redeliveries wait for their backoff.
 *
 * @param event the delivered event
 * @param attempt how many times this delivery was tried before, 0 at first
 * @param dueNanos when it may be handed out, on the {@link System#nanoTime()} scale
 */
record Delivery(PaymentEvent event, int attempt, long dueNanos) implements Delayed {

	private static final long FIRST_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private static final long MAX_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * Return this delivery again, after an exponential backoff (5 ms, 10 ms, ... up to
	 * 100 ms), as a broker redelivers a message that its consumer could not handle yet.
	 * @return the redelivery
	 */
	Delivery redelivery() {
		long backoff = Math.min(FIRST_BACKOFF_NANOS << Math.min(this.attempt, 10), MAX_BACKOFF_NANOS);
		return new Delivery(this.event, this.attempt + 1, System.nanoTime() + backoff);
	}

	@Override
	public long getDelay(TimeUnit unit) {
		return unit.convert(this.dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
	}

	@Override
	public int compareTo(Delayed other) {
		return Long.compare(this.dueNanos, ((Delivery) other).dueNanos);
	}

}
