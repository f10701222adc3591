package dev.idempotency.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.sample.PaymentEvent;
import dev.idempotency.sample.PaymentHandler;

/**
 * Consumers that take deliveries from one queue, each on its own thread, like a broker's
 * consumer group. A delivery that meets another consumer still charging the same event
 * ({@link IdempotencyInProgressException}) goes back to the queue after a backoff, as a
 * negative acknowledgement would; any other delivery is acknowledged when the handler
 * returns, and one that fails otherwise is dead-lettered and reported.
 */
final class ConsumerGroup {

	private final PaymentHandler handler;

	private final int consumers;

	ConsumerGroup(PaymentHandler handler, int consumers) {
		this.handler = handler;
		this.consumers = consumers;
	}

	/**
	 * Deliver every event of the plan until each delivery is acknowledged or the timeout
	 * runs out. All consumers wait at one start gate and are released at once, so the
	 * first deliveries truly race.
	 * @param deliveries the deliveries, in order
	 * @param timeout how long to keep delivering
	 * @return what happened
	 * @throws InterruptedException if interrupted while waiting for the consumers
	 */
	Result deliver(List<PaymentEvent> deliveries, Duration timeout) throws InterruptedException {
		DelayQueue<Delivery> queue = new DelayQueue<>();
		long first = System.nanoTime() - deliveries.size();
		for (int i = 0; i < deliveries.size(); i++) {
			// Due times in the past, one nanosecond apart, keep the planned order
			queue.add(new Delivery(deliveries.get(i), 0, first + i));
		}
		Run run = new Run(queue, deliveries.size(), System.nanoTime() + timeout.toNanos());
		CountDownLatch ready = new CountDownLatch(this.consumers);
		CountDownLatch gate = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		for (int i = 1; i <= this.consumers; i++) {
			Thread thread = new Thread(() -> {
				ready.countDown();
				try {
					gate.await();
					run.consume(this.handler);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}, "consumer-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
		}
		ready.await();
		gate.countDown();
		for (Thread thread : threads) {
			thread.join(timeout.toMillis() + 5_000);
		}
		return new Result(run.redeliveries.get(), run.pending.get(), List.copyOf(run.errors));
	}

	/**
	 * What delivering a plan did.
	 *
	 * @param redeliveries deliveries sent back to the queue because another consumer was
	 * charging the same event
	 * @param unfinished deliveries still not acknowledged when the timeout ran out
	 * @param errors failures other than conflicts, one per dead-lettered delivery
	 */
	record Result(long redeliveries, long unfinished, List<RuntimeException> errors) {

	}

	private static final class Run {

		private final DelayQueue<Delivery> queue;

		private final AtomicLong pending;

		private final AtomicLong redeliveries = new AtomicLong();

		private final List<RuntimeException> errors = new CopyOnWriteArrayList<>();

		private final long deadline;

		Run(DelayQueue<Delivery> queue, long pending, long deadline) {
			this.queue = queue;
			this.pending = new AtomicLong(pending);
			this.deadline = deadline;
		}

		void consume(PaymentHandler handler) throws InterruptedException {
			while (this.pending.get() > 0 && System.nanoTime() < this.deadline) {
				Delivery delivery = this.queue.poll(10, TimeUnit.MILLISECONDS);
				if (delivery == null) {
					continue;
				}
				try {
					handler.handle(delivery.event());
				}
				catch (IdempotencyInProgressException ex) {
					this.redeliveries.incrementAndGet();
					this.queue.add(delivery.redelivery());
					continue;
				}
				catch (RuntimeException ex) {
					this.errors.add(ex);
				}
				this.pending.decrementAndGet();
			}
		}

	}

}
