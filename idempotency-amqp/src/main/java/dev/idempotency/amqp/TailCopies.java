package dev.idempotency.amqp;

import java.util.HashMap;
import java.util.Map;

import com.rabbitmq.client.AMQP.BasicProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.MessagePropertiesConverter;

/**
 * The copy of a message that a {@link TailRequeue} queues, which the listener must see as
 * the message it copies, delivered again.
 * <p>
 * A copy goes to its queue through the default exchange, under the queue's name, so it
 * carries the exchange and routing key the message was delivered with in headers of its
 * own, which {@link #restore} puts back where the listener reads them (an
 * {@code @Idempotent} key or a {@code @Header} made of the routing key would otherwise
 * differ, and the effect run twice). It also carries the {@code retry-count} that Spring
 * AMQP takes out of the headers into {@link MessageProperties#getRetryCount()}, and
 * everything else the message was delivered with but the {@code x-delivery-count} that is
 * the broker's to set.
 */
final class TailCopies {

	/**
	 * The header of a copy: the exchange the message was delivered from.
	 */
	static final String EXCHANGE = "x-idempotency-exchange";

	/**
	 * The header of a copy: the routing key the message was delivered with.
	 */
	static final String ROUTING_KEY = "x-idempotency-routing-key";

	private static final MessagePropertiesConverter CONVERTER = new DefaultMessagePropertiesConverter();

	private TailCopies() {
	}

	/**
	 * Return the properties of the copy of a message.
	 * @param message the message, as delivered (and {@linkplain #restore restored})
	 * @return the copy's properties
	 */
	static BasicProperties properties(Message message) {
		MessageProperties received = message.getMessageProperties();
		Map<String, @Nullable Object> headers = new HashMap<>(received.getHeaders());
		headers.remove(RedeliveryDelays.DELIVERY_COUNT);
		headers.put(RedeliveryDelays.REQUEUES, RedeliveryDelays.earlierDeliveries(message) + 1);
		putIfPresent(headers, EXCHANGE, received.getReceivedExchange());
		putIfPresent(headers, ROUTING_KEY, received.getReceivedRoutingKey());
		if (received.getRetryCount() > 0) {
			headers.put(MessageProperties.RETRY_COUNT, received.getRetryCount());
		}
		MessageDeliveryMode deliveryMode = received.getReceivedDeliveryMode();
		BasicProperties.Builder builder = CONVERTER.fromMessageProperties(received, "UTF-8")
			.builder()
			.headers(headers)
			.userId(received.getReceivedUserId());
		if (deliveryMode != null) {
			builder.deliveryMode(MessageDeliveryMode.toInt(deliveryMode));
		}
		return builder.build();
	}

	/**
	 * Make a copy look as the message it copies, delivered again: its exchange, routing
	 * key, and {@code redelivered}. Any other message is left as it is, whatever headers
	 * it carries: only one that came through the default exchange under the name of the
	 * queue it was consumed from can be a copy.
	 * @param message a message as delivered
	 */
	static void restore(Message message) {
		MessageProperties properties = message.getMessageProperties();
		Map<String, @Nullable Object> headers = properties.getHeaders();
		// Only a copy carries the count of its requeues; and a producer that may publish
		// to some exchange, or under some routing keys, only must not make the listener
		// see another (a key made of them would be any key it likes)
		if (!headers.containsKey(RedeliveryDelays.REQUEUES) || !isCopyRoute(properties)) {
			return;
		}
		Object exchange = headers.remove(EXCHANGE);
		Object routingKey = headers.remove(ROUTING_KEY);
		if (exchange != null) {
			properties.setReceivedExchange(exchange.toString());
		}
		if (routingKey != null) {
			properties.setReceivedRoutingKey(routingKey.toString());
		}
		properties.setRedelivered(true);
	}

	private static boolean isCopyRoute(MessageProperties properties) {
		String queue = properties.getConsumerQueue();
		return "".equals(properties.getReceivedExchange()) && queue != null
				&& queue.equals(properties.getReceivedRoutingKey());
	}

	private static void putIfPresent(Map<String, @Nullable Object> headers, String name, @Nullable String value) {
		if (value != null) {
			headers.put(name, value);
		}
	}

}
