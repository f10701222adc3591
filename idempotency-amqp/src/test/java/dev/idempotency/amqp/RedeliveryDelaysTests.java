package dev.idempotency.amqp;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.messaging.InProgressBackOff;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

import static org.assertj.core.api.Assertions.assertThat;

class RedeliveryDelaysTests {

	private final RedeliveryDelays delays = new RedeliveryDelays(
			new InProgressBackOff(Duration.ofMillis(100), 2, Duration.ofSeconds(10)));

	@Test
	void copyRequeuedByOtherInstancesIsHeldAsLongAsItsOwnCountSaysOnAnInstanceThatNeverSawItsKey() {
		assertThat(this.delays.next(inProgress("a"), message(RedeliveryDelays.REQUEUES, 3)))
			.isEqualTo(Duration.ofMillis(800));
	}

	@Test
	void quorumQueuesDeliveryCountCountsWhenTheMessageCarriesNoRequeuesOfOurs() {
		assertThat(this.delays.next(inProgress("b"), message(RedeliveryDelays.DELIVERY_COUNT, 2L)))
			.isEqualTo(Duration.ofMillis(400));
		Message both = message(RedeliveryDelays.REQUEUES, 1);
		both.getMessageProperties().setHeader(RedeliveryDelays.DELIVERY_COUNT, 5L);
		assertThat(this.delays.next(inProgress("c"), both)).isEqualTo(Duration.ofMillis(200));
	}

	@Test
	void requeuesHeaderThatIsNoCountLeavesTheQuorumQueuesDeliveryCount() {
		for (Object forged : new Object[] { "many", -7, Boolean.TRUE }) {
			Message message = message(RedeliveryDelays.REQUEUES, forged);
			message.getMessageProperties().setHeader(RedeliveryDelays.DELIVERY_COUNT, 3L);
			assertThat(this.delays.next(inProgress("forged-" + forged), message)).isEqualTo(Duration.ofMillis(800));
		}
	}

	@Test
	void keysCountHereWinsOverAMessageThatCarriesLess() {
		for (int i = 0; i < 3; i++) {
			this.delays.next(inProgress("d"), null);
		}
		assertThat(this.delays.next(inProgress("d"), message(RedeliveryDelays.REQUEUES, 0)))
			.isEqualTo(Duration.ofMillis(800));
	}

	@Test
	void unusableCountsAreIgnored() {
		assertThat(this.delays.next(inProgress("e"), message(RedeliveryDelays.REQUEUES, "many")))
			.isEqualTo(Duration.ofMillis(100));
		assertThat(this.delays.next(inProgress("f"), message(RedeliveryDelays.REQUEUES, -7)))
			.isEqualTo(Duration.ofMillis(100));
		assertThat(this.delays.next(inProgress("g"), message(RedeliveryDelays.REQUEUES, Long.MAX_VALUE)))
			.isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void storeOutageIsCountedByTheMessagesReturnsWhenMessagesHandledMeanwhileResetTheFailuresInARow() {
		this.delays.next(storeFailure(), null);
		this.delays.storeAnswered();
		assertThat(this.delays.next(storeFailure(), message(RedeliveryDelays.DELIVERY_COUNT, 3L)))
			.isEqualTo(Duration.ofMillis(800));
		Message copy = message(RedeliveryDelays.REQUEUES, 1);
		copy.getMessageProperties().setHeader(RedeliveryDelays.DELIVERY_COUNT, 4L);
		this.delays.storeAnswered();
		assertThat(this.delays.next(storeFailure(), copy)).isEqualTo(Duration.ofMillis(1600));
	}

	@Test
	void storeFailuresInARowCountWhenTheMessageCarriesLess() {
		for (int i = 0; i < 3; i++) {
			this.delays.next(storeFailure(), null);
		}
		assertThat(this.delays.next(storeFailure(), message(RedeliveryDelays.DELIVERY_COUNT, 1L)))
			.isEqualTo(Duration.ofMillis(800));
	}

	private static ListenerFailure storeFailure() {
		ListenerFailure failure = ListenerFailure.of(new IdempotencyStoreException("Redis is down"));
		assertThat(failure).isNotNull();
		return failure;
	}

	private static ListenerFailure inProgress(String key) {
		ListenerFailure failure = ListenerFailure
			.of(new IdempotencyInProgressException("op", key, Duration.ofSeconds(30)));
		assertThat(failure).isNotNull();
		return failure;
	}

	private static Message message(String header, Object value) {
		MessageProperties properties = new MessageProperties();
		properties.setHeader(header, value);
		return new Message(new byte[0], properties);
	}

}
