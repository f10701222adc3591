package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.core.KafkaAdmin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The offsets consumer groups committed on the test's broker: what a listener's container
 * took as done.
 */
final class CommittedOffsets implements AutoCloseable {

	private static final Duration DEADLINE = Duration.ofSeconds(45);

	private final Admin admin;

	CommittedOffsets(KafkaAdmin kafkaAdmin) {
		this.admin = Admin.create(kafkaAdmin.getConfigurationProperties());
	}

	long of(String group, String topic, int partition) {
		Map<TopicPartition, OffsetAndMetadata> offsets;
		try {
			offsets = this.admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not read the offsets of group " + group, ex);
		}
		OffsetAndMetadata committed = offsets.get(new TopicPartition(topic, partition));
		return (committed != null) ? committed.offset() : 0;
	}

	// Every partition's committed offset past the given last offset: nothing left behind
	void awaitPast(String group, String topic, Map<Integer, Long> lastOffsets) {
		await().atMost(DEADLINE)
			.untilAsserted(() -> lastOffsets
				.forEach((partition, offset) -> assertThat(of(group, topic, partition)).as("partition " + partition)
					.isGreaterThan(offset)));
	}

	@Override
	public void close() {
		this.admin.close(Duration.ofSeconds(5));
	}

}
