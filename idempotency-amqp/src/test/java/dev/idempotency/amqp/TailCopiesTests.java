package dev.idempotency.amqp;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the listener sees of a message that carries the headers of a copy requeued to the
 * tail: the exchange and routing key of the message it copies for a copy, which arrives
 * through the default exchange under its queue's name; the message as delivered for any
 * other, whatever headers its producer gave it.
 */
class TailCopiesTests {

	private static final String QUEUE = "orders-queue";

	@Test
	void copyRequeuedToTheTailShowsTheExchangeAndRoutingKeyOfTheMessageItCopies() {
		Message copy = delivered("", QUEUE);
		TailCopies.restore(copy);
		MessageProperties properties = copy.getMessageProperties();
		assertThat(properties.getReceivedExchange()).isEqualTo("orders");
		assertThat(properties.getReceivedRoutingKey()).isEqualTo("orders.tenant-b.42");
		assertThat(properties.getRedelivered()).isTrue();
		assertThat(properties.getHeaders()).doesNotContainKeys(TailCopies.EXCHANGE, TailCopies.ROUTING_KEY);
	}

	// A producer allowed to publish to one exchange (or, by topic permissions, under some
	// routing keys only) must not make a listener see another exchange or routing key: a
	// key made of them would otherwise be any key it likes, another tenant's included,
	// whose message would then be replayed rather than run
	@Test
	void messageDeliveredThroughAnotherExchangeIsLeftAsDeliveredWhateverHeadersItCarries() {
		Message forged = delivered("orders", "orders.tenant-a.1");
		TailCopies.restore(forged);
		MessageProperties properties = forged.getMessageProperties();
		assertThat(properties.getReceivedExchange()).isEqualTo("orders");
		assertThat(properties.getReceivedRoutingKey()).isEqualTo("orders.tenant-a.1");
		assertThat(properties.getRedelivered()).isFalse();
	}

	@Test
	void messageDeliveredThroughTheDefaultExchangeUnderAnotherNameIsLeftAsDelivered() {
		Message forged = delivered("", "another-queue");
		TailCopies.restore(forged);
		assertThat(forged.getMessageProperties().getReceivedExchange()).isEmpty();
		assertThat(forged.getMessageProperties().getReceivedRoutingKey()).isEqualTo("another-queue");
	}

	@Test
	void copyOfACopyShowsTheExchangeAndRoutingKeyOfTheFirstMessage() {
		Message copy = delivered("", QUEUE);
		TailCopies.restore(copy);
		assertThat(TailCopies.properties(copy).getHeaders()).containsEntry(TailCopies.EXCHANGE, "orders")
			.containsEntry(TailCopies.ROUTING_KEY, "orders.tenant-b.42")
			.containsEntry(RedeliveryDelays.REQUEUES, 2);
	}

	private static Message delivered(String exchange, String routingKey) {
		MessageProperties properties = new MessageProperties();
		properties.setConsumerQueue(QUEUE);
		properties.setReceivedExchange(exchange);
		properties.setReceivedRoutingKey(routingKey);
		properties.setRedelivered(false);
		properties.setHeader(RedeliveryDelays.REQUEUES, 1);
		properties.setHeader(TailCopies.EXCHANGE, "orders");
		properties.setHeader(TailCopies.ROUTING_KEY, "orders.tenant-b.42");
		return new Message(new byte[0], properties);
	}

}
