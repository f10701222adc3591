package dev.idempotency.amqp;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.SimpleRoutingConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which connection factories a copy requeued to the tail can be published through: only a
 * publisher connection factory, never the consumers' own connection (no connection is
 * opened here).
 */
class CopyPublisherTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	@Test
	void copiesOfAContainerOnACachingConnectionFactoryGoOnItsPublisherConnection() {
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory();
		try {
			assertThat(connectionFactory.getPublisherConnectionFactory()).isNotNull();
			assertThat(CopyPublisher.of(connectionFactory, TIMEOUT)).isNotNull();
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void connectionFactoryWithoutAPublisherConnectionFactoryRequeuesAtTheHead() {
		CachingConnectionFactory connectionFactory = new CachingConnectionFactory();
		try {
			ConnectionFactory publisher = connectionFactory.getPublisherConnectionFactory();
			assertThat(publisher).isNotNull();
			assertThat(publisher.getPublisherConnectionFactory()).isNull();
			assertThat(CopyPublisher.of(publisher, TIMEOUT)).isNull();
			assertThat(CopyPublisher.of(null, TIMEOUT)).isNull();
		}
		finally {
			connectionFactory.destroy();
		}
	}

	@Test
	void routingConnectionFactoryRequeuesAtTheHead() {
		CachingConnectionFactory target = new CachingConnectionFactory();
		try {
			SimpleRoutingConnectionFactory routing = new SimpleRoutingConnectionFactory();
			routing.setTargetConnectionFactories(Map.of("a", target));
			routing.setDefaultTargetConnectionFactory(target);
			assertThat(CopyPublisher.of(routing, TIMEOUT)).isNull();
		}
		finally {
			target.destroy();
		}
	}

}
