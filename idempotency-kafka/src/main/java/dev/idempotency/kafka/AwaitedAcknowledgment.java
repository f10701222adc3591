package dev.idempotency.kafka;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.kafka.support.Acknowledgment;

/**
 * The acknowledgment that an awaited asynchronous listener (see {@link AwaitedListeners})
 * hands its listener adapter: the container's own when its ack mode is manual, delegated
 * to, and otherwise none, since the container commits the record itself once the listener
 * has returned, its result complete.
 * <p>
 * It reports out-of-order commits, although the container makes none: spring-kafka's
 * adapter reads that only to warn, on every record, that the container would acknowledge
 * a record before its future completes, which cannot happen here, the future being
 * complete when the listener returns.
 */
final class AwaitedAcknowledgment implements Acknowledgment {

	private final @Nullable Acknowledgment container;

	AwaitedAcknowledgment(@Nullable Acknowledgment container) {
		this.container = container;
	}

	@Override
	public void acknowledge() {
		if (this.container != null) {
			this.container.acknowledge();
		}
	}

	@Override
	public void acknowledge(int index) {
		if (this.container != null) {
			this.container.acknowledge(index);
		}
	}

	@Override
	public void nack(Duration sleep) {
		manual().nack(sleep);
	}

	@Override
	public void nack(int index, Duration sleep) {
		manual().nack(index, sleep);
	}

	@Override
	public boolean isOutOfOrderCommit() {
		return true;
	}

	// spring-kafka would not hand a listener an acknowledgment to nack with outside the
	// manual ack modes either
	private Acknowledgment manual() {
		if (this.container == null) {
			throw new IllegalStateException(
					"nack() needs a listener container with a MANUAL or MANUAL_IMMEDIATE " + "ack mode");
		}
		return this.container;
	}

}
