package dev.idempotency.autoconfigure.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;

import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.MessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Waits until every consumer group of the test listeners has settled: each consumer of a
 * container holds partitions, together all of them. The first consumer to join holds
 * every partition for a moment, and a record it is then handed (a first attempt held at a
 * gate, say) holds up the rebalance that would give the second consumer its share.
 */
final class SettledGroups {

	private static final Duration DEADLINE = Duration.ofSeconds(60);

	private SettledGroups() {
	}

	static void await(KafkaListenerEndpointRegistry registry, int partitionsPerTopic) {
		for (MessageListenerContainer container : registry.getListenerContainers()) {
			int partitions = partitionsPerTopic * container.getContainerProperties().getTopics().length;
			Awaitility.await().atMost(DEADLINE).untilAsserted(() -> {
				List<? extends MessageListenerContainer> consumers = consumers(container);
				assertThat(consumers).allSatisfy((consumer) -> assertThat(assigned(consumer)).isNotEmpty());
				assertThat(consumers.stream().mapToInt((consumer) -> assigned(consumer).size()).sum())
					.as(container.getListenerId())
					.isEqualTo(partitions);
			});
		}
	}

	private static List<? extends MessageListenerContainer> consumers(MessageListenerContainer container) {
		return (container instanceof ConcurrentMessageListenerContainer<?, ?> concurrent) ? concurrent.getContainers()
				: List.of(container);
	}

	private static Collection<TopicPartition> assigned(MessageListenerContainer consumer) {
		Collection<TopicPartition> assigned = consumer.getAssignedPartitions();
		return (assigned != null) ? assigned : List.of();
	}

}
