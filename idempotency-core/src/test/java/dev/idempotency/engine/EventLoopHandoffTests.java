package dev.idempotency.engine;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link EventLoopHandoff} with more blocking work handed over from an event loop than it
 * has threads for.
 */
class EventLoopHandoffTests {

	private static final Duration DEADLINE = Duration.ofSeconds(20);

	@Test
	void workPastTheThreadBoundWaitsForAThreadAndNoneIsDropped() throws Exception {
		int queued = 10;
		int total = EventLoopHandoff.MAX_THREADS + queued;
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		AtomicInteger ran = new AtomicInteger();
		CountDownLatch finish = new CountDownLatch(1);
		try (EventLoopHandoff handoff = new EventLoopHandoff()) {
			Runnable blocking = () -> {
				mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
				try {
					finish.await(30, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				running.decrementAndGet();
				ran.incrementAndGet();
			};
			Thread eventLoop = new FastThreadLocalThread(() -> {
				for (int i = 0; i < total; i++) {
					handoff.execute(blocking);
				}
			}, "test-event-loop");
			eventLoop.start();
			eventLoop.join(DEADLINE.toMillis());
			assertThat(eventLoop.isAlive()).as("the event loop blocked").isFalse();
			await().atMost(DEADLINE).until(() -> running.get() == EventLoopHandoff.MAX_THREADS);
			assertThat(ran).hasValue(0);
			finish.countDown();
			await().atMost(DEADLINE).until(() -> ran.get() == total);
			assertThat(mostAtOnce).hasValue(EventLoopHandoff.MAX_THREADS);
		}
		finally {
			finish.countDown();
		}
	}

}
