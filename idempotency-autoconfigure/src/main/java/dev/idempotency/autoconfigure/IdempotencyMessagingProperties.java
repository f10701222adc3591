package dev.idempotency.autoconfigure;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Settings of listener containers of message brokers (Kafka, RabbitMQ), bound from
 * {@code idempotency.messaging}.
 *
 * @see IdempotencyProperties#getMessaging()
 */
public class IdempotencyMessagingProperties {

	/**
	 * Whether to turn on transaction synchronization in Kafka transaction managers that
	 * have none, so that an idempotent call made in a listener container's Kafka
	 * transaction completes its record only once that transaction has committed, and
	 * releases it once it has rolled back. When off, such a record completes when the
	 * method returns, and a rollback after that leaves it done.
	 */
	private boolean kafkaTransactionSynchronization = true;

	/**
	 * Whether the auto-configured Kafka error handler waits out the back-off of a record
	 * (in progress elsewhere, or meeting a store outage) by pausing only that record's
	 * partition, so that the consumer goes on with the other partitions it was assigned.
	 * When off, the consumer thread sleeps through each back-off, holding every partition
	 * of that consumer.
	 */
	private boolean kafkaPausePartitions = true;

	@NestedConfigurationProperty
	private final IdempotencyInProgressRetryProperties inProgressRetry = new IdempotencyInProgressRetryProperties();

	public boolean isKafkaTransactionSynchronization() {
		return this.kafkaTransactionSynchronization;
	}

	public void setKafkaTransactionSynchronization(boolean kafkaTransactionSynchronization) {
		this.kafkaTransactionSynchronization = kafkaTransactionSynchronization;
	}

	public boolean isKafkaPausePartitions() {
		return this.kafkaPausePartitions;
	}

	public void setKafkaPausePartitions(boolean kafkaPausePartitions) {
		this.kafkaPausePartitions = kafkaPausePartitions;
	}

	public IdempotencyInProgressRetryProperties getInProgressRetry() {
		return this.inProgressRetry;
	}

}
