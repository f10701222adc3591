package dev.idempotency.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.DefaultDestinationTopicResolver;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IdempotencyListenerContainerFactoryConfigurer}: what the error handler
 * of a retry-topic container does with each failure of a record, with and without
 * blocking retries of the application's.
 */
class IdempotencyListenerContainerFactoryConfigurerTests {

	private static final InProgressBackOff BACK_OFF = new InProgressBackOff(Duration.ofMillis(1), 1,
			Duration.ofMillis(1));

	private final List<ConsumerRecord<?, ?>> forwarded = new CopyOnWriteArrayList<>();

	private final IdempotencyListenerContainerFactoryConfigurer configurer = new IdempotencyListenerContainerFactoryConfigurer(
			(context) -> {
			}, new DeadLetterPublishingRecovererFactory(new DefaultDestinationTopicResolver()), Clock.systemUTC(),
			BACK_OFF);

	private final ConsumerRecord<String, String> record = new ConsumerRecord<>("payments", 0, 7, "k", "v");

	@Test
	void recordInProgressElsewhereOrMeetingAStoreFailureIsRetriedInPlaceNeverForwarded() {
		DefaultErrorHandler handler = handler();
		for (int attempt = 0; attempt < 12; attempt++) {
			assertThat(
					fail(handler, new IdempotencyInProgressException("kafka.charges", "evt-1", Duration.ofMillis(1))))
				.isFalse();
		}
		for (int attempt = 0; attempt < 12; attempt++) {
			assertThat(fail(handler, new IdempotencyStoreException("down"))).isFalse();
		}
		assertThat(this.forwarded).isEmpty();
	}

	@Test
	void reusedKeyAndOtherExceptionsAreForwardedAtOnce() {
		DefaultErrorHandler handler = handler();
		assertThat(fail(handler, new IdempotencyKeyReuseException("kafka.charges", "evt-1"))).isTrue();
		assertThat(fail(handler, new IllegalStateException("boom"))).isTrue();
		assertThat(this.forwarded).hasSize(2);
	}

	@Test
	void blockingRetriesOfTheApplicationKeepTheirBackOffBesideTheRules() {
		this.configurer.setBlockingRetriesBackOff(new FixedBackOff(0, 2));
		this.configurer.setBlockingRetryableExceptions(IllegalStateException.class);
		DefaultErrorHandler handler = handler();
		assertThat(fail(handler, new IllegalStateException("boom"))).isFalse();
		assertThat(fail(handler, new IllegalStateException("boom"))).isFalse();
		assertThat(fail(handler, new IllegalStateException("boom"))).isTrue();
		assertThat(fail(handler, new IllegalArgumentException("bad"))).isTrue();
		for (int attempt = 0; attempt < 12; attempt++) {
			assertThat(
					fail(handler, new IdempotencyInProgressException("kafka.charges", "evt-1", Duration.ofMillis(1))))
				.isFalse();
		}
		assertThat(this.forwarded).hasSize(2);
	}

	@Test
	void blockingBackOffWithoutRetriesStillRetriesRecordsInProgressElsewhere() {
		this.configurer.setBlockingRetriesBackOff(new FixedBackOff(0, 0));
		DefaultErrorHandler handler = handler();
		for (int attempt = 0; attempt < 12; attempt++) {
			assertThat(
					fail(handler, new IdempotencyInProgressException("kafka.charges", "evt-1", Duration.ofMillis(1))))
				.isFalse();
		}
		assertThat(this.forwarded).isEmpty();
	}

	private DefaultErrorHandler handler() {
		return (DefaultErrorHandler) this.configurer.createErrorHandler(new Forwarder());
	}

	private boolean fail(DefaultErrorHandler handler, Exception exception) {
		return handler.handleOne(new ListenerExecutionFailedException("Listener failed", exception), this.record, null,
				null);
	}

	// Records what the retry topics would forward, to the next topic or the dead-letter
	// topic
	private final class Forwarder extends DeadLetterPublishingRecoverer {

		Forwarder() {
			super(new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of())));
		}

		@Override
		public void accept(ConsumerRecord<?, ?> record, @Nullable Consumer<?, ?> consumer, Exception exception) {
			IdempotencyListenerContainerFactoryConfigurerTests.this.forwarded.add(record);
		}

	}

}
