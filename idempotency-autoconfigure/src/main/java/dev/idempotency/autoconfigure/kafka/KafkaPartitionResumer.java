package dev.idempotency.autoconfigure.kafka;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The scheduler that resumes the partitions the auto-configured Kafka error handler
 * pauses, owned by the auto-configuration. Not the application's {@link TaskScheduler}
 * (Spring Boot's, with {@code @EnableScheduling}): that one runs the application's
 * {@code @Scheduled} work on one thread by default, which would hold a resume back for as
 * long as a task runs, and as a lifecycle bean it stops before the listener containers
 * do, so a back-off while they stop would be refused on the consumer thread. Nor a
 * {@link TaskScheduler} bean itself, which would become the scheduler of the
 * application's {@code @Scheduled} methods.
 * <p>
 * Its one thread starts at the first pause, and is a daemon, so that it never keeps the
 * JVM alive. It shuts down when the context is destroyed, after the listener containers
 * have stopped, dropping the resumes still pending: a stopped container polls nothing.
 */
final class KafkaPartitionResumer implements DisposableBean {

	private final ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();

	KafkaPartitionResumer() {
		this.scheduler.setThreadNamePrefix("idempotency-kafka-resume-");
		this.scheduler.setDaemon(true);
		this.scheduler.initialize();
	}

	TaskScheduler scheduler() {
		return this.scheduler;
	}

	@Override
	public void destroy() {
		this.scheduler.shutdown();
	}

}
