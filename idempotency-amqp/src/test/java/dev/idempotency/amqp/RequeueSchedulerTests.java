package dev.idempotency.amqp;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RequeueSchedulerTests {

	@Test
	void closingSettlesEveryMessageStillWaitingForItsBackOffOnce() {
		AtomicInteger settled = new AtomicInteger();
		RequeueScheduler scheduler = new RequeueScheduler();
		scheduler.schedule(Duration.ofHours(1), settled::incrementAndGet);
		scheduler.schedule(Duration.ofHours(1), settled::incrementAndGet);
		scheduler.close();
		assertThat(settled).hasValue(2);
		scheduler.close();
		assertThat(settled).hasValue(2);
	}

	@Test
	void messageScheduledOnceClosedIsSettledAtOnce() {
		AtomicInteger settled = new AtomicInteger();
		RequeueScheduler scheduler = new RequeueScheduler();
		scheduler.close();
		scheduler.schedule(Duration.ofHours(1), settled::incrementAndGet);
		assertThat(settled).hasValue(1);
	}

	@Test
	void messageIsSettledOnceAfterItsBackOff() throws InterruptedException {
		CountDownLatch settled = new CountDownLatch(1);
		AtomicInteger runs = new AtomicInteger();
		try (RequeueScheduler scheduler = new RequeueScheduler()) {
			scheduler.schedule(Duration.ofMillis(10), () -> {
				runs.incrementAndGet();
				settled.countDown();
			});
			assertThat(settled.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
		}
		assertThat(runs).hasValue(1);
	}

}
