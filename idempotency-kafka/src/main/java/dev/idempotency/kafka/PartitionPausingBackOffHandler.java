package dev.idempotency.kafka;

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BackOffHandler;
import org.springframework.kafka.listener.DefaultBackOffHandler;
import org.springframework.kafka.listener.ListenerContainerPauseService;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.scheduling.TaskScheduler;

/**
 * Waits out a back-off by pausing only the partition of the record that failed, and
 * resuming it when the delay has passed, so that the consumer goes on polling the other
 * partitions it was assigned. spring-kafka hands a back-off handler no record, so this is
 * also the error handler's retry listener: it learns the record's partition from the
 * failed delivery that spring-kafka reports, on the same consumer thread, just before the
 * back-off. Without it (another retry listener replaced this one) or without a container,
 * the consumer thread sleeps, as spring-kafka's default handler does; so it does once the
 * scheduler has shut down.
 */
final class PartitionPausingBackOffHandler implements BackOffHandler, RetryListener {

	private final ThreadLocal<TopicPartition> failed = new ThreadLocal<>();

	private final ListenerContainerPauseService pauser;

	private final BackOffHandler sleeper = new DefaultBackOffHandler();

	PartitionPausingBackOffHandler(TaskScheduler scheduler) {
		this.pauser = new ListenerContainerPauseService(null, scheduler);
	}

	@Override
	public void failedDelivery(ConsumerRecord<?, ?> record, @Nullable Exception ex, int deliveryAttempt) {
		this.failed.set(new TopicPartition(record.topic(), record.partition()));
	}

	@Override
	public void recovered(ConsumerRecord<?, ?> record, @Nullable Exception ex) {
		this.failed.remove();
	}

	@Override
	public void recoveryFailed(ConsumerRecord<?, ?> record, @Nullable Exception original, Exception failure) {
		this.failed.remove();
	}

	@Override
	public void onNextBackOff(@Nullable MessageListenerContainer container, @Nullable Exception exception,
			long nextBackOff) {
		TopicPartition partition = this.failed.get();
		this.failed.remove();
		if (container == null || partition == null) {
			this.sleeper.onNextBackOff(container, exception, nextBackOff);
		}
		else if (nextBackOff > 0) {
			// The error handler seeks the partition back to the record, which is fetched
			// again once the partition is resumed
			try {
				this.pauser.pausePartition(container, partition, Duration.ofMillis(nextBackOff));
			}
			catch (RejectedExecutionException ex) {
				// The scheduler has shut down while this consumer still runs (the context
				// closed before its container stopped): nothing would resume the
				// partition, paused already
				container.resumePartition(partition);
				this.sleeper.onNextBackOff(container, exception, nextBackOff);
			}
		}
	}

}
