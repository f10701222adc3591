package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link PartitionPausingBackOffHandler}: it pauses the partition of the record
 * spring-kafka reported as failed, resumes it after the delay, and never sleeps on the
 * consumer thread for it.
 */
class PartitionPausingBackOffHandlerTests {

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	private final RecordingContainer container = new RecordingContainer();

	private final PartitionPausingBackOffHandler handler;

	PartitionPausingBackOffHandlerTests() {
		this.scheduler.initialize();
		this.handler = new PartitionPausingBackOffHandler(this.scheduler);
	}

	@AfterEach
	void shutDown() {
		this.scheduler.shutdown();
	}

	@Test
	void pausesOnlyThePartitionOfTheFailedRecordAndResumesItAfterTheDelay() {
		this.handler.failedDelivery(new ConsumerRecord<>("payments", 2, 42, "k", "v"), null, 1);
		long start = System.nanoTime();
		this.handler.onNextBackOff(this.container, new IllegalStateException("failed"), 300);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(200));
		assertThat(this.container.paused).containsExactly(new TopicPartition("payments", 2));
		assertThat(this.container.resumed).isEmpty();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.container.resumed).containsExactly(new TopicPartition("payments", 2)));
	}

	@Test
	void sleepsWhenNoFailedRecordWasReported() {
		this.handler.failedDelivery(new ConsumerRecord<>("payments", 2, 42, "k", "v"), null, 1);
		this.handler.recovered(new ConsumerRecord<>("payments", 2, 42, "k", "v"), null);
		long start = System.nanoTime();
		this.handler.onNextBackOff(this.container, new IllegalStateException("failed"), 100);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(this.container.paused).isEmpty();
	}

	// The context closes while a consumer still runs (its container took longer to stop
	// than the shutdown phase allows, or it is not a bean): nothing would resume the
	// partition, and the scheduler's refusal would reach the container
	@Test
	void sleepsAndLeavesThePartitionResumedWhenTheSchedulerHasShutDown() {
		this.scheduler.shutdown();
		this.handler.failedDelivery(new ConsumerRecord<>("payments", 2, 42, "k", "v"), null, 1);
		long start = System.nanoTime();
		this.handler.onNextBackOff(this.container, new IllegalStateException("failed"), 100);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
		assertThat(this.container.resumed).isEqualTo(this.container.paused);
	}

	private static final class RecordingContainer implements MessageListenerContainer {

		private final List<TopicPartition> paused = new CopyOnWriteArrayList<>();

		private final List<TopicPartition> resumed = new CopyOnWriteArrayList<>();

		@Override
		public void pausePartition(TopicPartition topicPartition) {
			this.paused.add(topicPartition);
		}

		@Override
		public void resumePartition(TopicPartition topicPartition) {
			this.resumed.add(topicPartition);
		}

		@Override
		public void setupMessageListener(Object messageListener) {
		}

		@Override
		public Map<String, Map<MetricName, ? extends Metric>> metrics() {
			return Map.of();
		}

		@Override
		public void start() {
		}

		@Override
		public void stop() {
		}

		@Override
		public boolean isRunning() {
			return true;
		}

	}

}
