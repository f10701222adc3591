package dev.idempotency.amqp;

import java.io.IOException;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import com.rabbitmq.client.AMQP.BasicProperties;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Channel;
import org.jspecify.annotations.Nullable;

import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.RoutingConnectionFactory;

/**
 * Publishes the copies a {@link TailRequeue} queues, each confirmed by the broker, on the
 * publisher connection of the container's connection factory, never on the connection its
 * consumers use: a broker that blocks publishers (a memory or disk alarm) stops reading
 * from a connection that publishes, acknowledgements and consumer starts included, so one
 * copy published there would stop every listener on it until the alarm clears.
 * <p>
 * Nothing is published on a connection the broker said it blocks: the message is then
 * requeued at the head, as RabbitMQ does. Each connection is watched from the moment it
 * is opened, since the broker says so only once, when it blocks it, maybe for what the
 * application published on it before any copy. The channels are its own (not the
 * connection factory's cached ones, whose users do not expect confirm mode), in confirm
 * mode, reused one publish at a time, up to {@value #IDLE_CHANNELS} per connection kept
 * idle, for all the containers of a configurer on that connection factory together (see
 * {@link Shared}), those created at run time and discarded included. A channel whose copy
 * was not confirmed in time is aborted on a thread of its own, since a blocked broker
 * does not read the close either, and the consumer must not wait for it.
 */
final class CopyPublisher {

	static final int IDLE_CHANNELS = 8;

	private final ConnectionFactory connectionFactory;

	private final Duration confirmTimeout;

	// Each connection the factory hands out (a new one after a reconnection, one of
	// several in its CONNECTION cache mode), forgotten when it shuts down
	private final Map<com.rabbitmq.client.Connection, Publishing> connections = new ConcurrentHashMap<>();

	private CopyPublisher(ConnectionFactory connectionFactory, Duration confirmTimeout) {
		this.connectionFactory = connectionFactory;
		this.confirmTimeout = confirmTimeout;
	}

	/**
	 * Return a publisher on the publisher connection of a container's connection factory.
	 * @param containerConnectionFactory the container's connection factory
	 * @param confirmTimeout how long to wait for the broker to confirm a copy
	 * @return the publisher, or {@code null} for a connection factory without a publisher
	 * connection factory, or a routing one (whose target the consumer's queue decides)
	 */
	static @Nullable CopyPublisher of(@Nullable ConnectionFactory containerConnectionFactory, Duration confirmTimeout) {
		if (containerConnectionFactory == null || containerConnectionFactory instanceof RoutingConnectionFactory) {
			return null;
		}
		ConnectionFactory publisher = containerConnectionFactory.getPublisherConnectionFactory();
		if (publisher == null || publisher == containerConnectionFactory) {
			return null;
		}
		CopyPublisher copyPublisher = new CopyPublisher(publisher, confirmTimeout);
		// Told of each connection as it is opened, before anything is published on it (at
		// once of one open already): the broker says it blocks a connection only once,
		// when it does, maybe for what the application publishes on it, before any copy
		publisher.addConnectionListener((connection) -> copyPublisher.publishing(connection.getDelegate()));
		return copyPublisher;
	}

	/**
	 * Publish a copy, as mandatory, and wait for the broker to confirm it.
	 * @param exchange the exchange to publish to
	 * @param routingKey the routing key
	 * @param properties the copy's properties
	 * @param body the copy's body
	 * @throws IOException if it was not confirmed: refused, returned as unroutable, not
	 * confirmed in time, or not published since the broker blocks the connection
	 * @throws InterruptedException if interrupted while waiting for the confirmation
	 */
	void publish(String exchange, String routingKey, BasicProperties properties, byte[] body)
			throws IOException, InterruptedException {
		// Held until the copy is confirmed: in the CONNECTION cache mode closing hands
		// the
		// connection back to the cache, which may close it while the copy is on it (in
		// the default CHANNEL mode the connection is shared, and closing does nothing)
		try (Connection held = connection()) {
			publish(held.getDelegate(), exchange, routingKey, properties, body);
		}
	}

	private void publish(com.rabbitmq.client.Connection connection, String exchange, String routingKey,
			BasicProperties properties, byte[] body) throws IOException, InterruptedException {
		Publishing publishing = publishing(connection);
		if (publishing.blocked().get()) {
			throw new IOException("the broker blocks the publisher connection");
		}
		ConfirmChannel channel = channel(connection, publishing.idle());
		boolean answered = false;
		try {
			channel.returned().set(false);
			channel.channel().basicPublish(exchange, routingKey, true, properties, body);
			boolean acknowledged = channel.channel().waitForConfirms(this.confirmTimeout.toMillis());
			answered = true;
			if (!acknowledged) {
				throw new IOException("the broker refused the copy");
			}
			// The broker sends a return before the confirmation of the same message
			if (channel.returned().get()) {
				throw new IOException("the copy was returned as unroutable");
			}
		}
		catch (TimeoutException ex) {
			throw new IOException("the copy was not confirmed within " + this.confirmTimeout.toMillis() + " ms", ex);
		}
		finally {
			release(channel, answered, publishing.idle());
		}
	}

	private Connection connection() throws IOException {
		try {
			return this.connectionFactory.createConnection();
		}
		catch (RuntimeException ex) {
			throw new IOException("no publisher connection", ex);
		}
	}

	private Publishing publishing(com.rabbitmq.client.Connection connection) {
		Publishing publishing = this.connections.get(connection);
		if (publishing != null) {
			return publishing;
		}
		Publishing created = new Publishing(new AtomicBoolean(), new ConcurrentLinkedDeque<>());
		publishing = this.connections.putIfAbsent(connection, created);
		if (publishing != null) {
			return publishing;
		}
		// Outside the map's update: a connection shut down already calls it at once
		connection.addShutdownListener((cause) -> this.connections.remove(connection));
		connection.addBlockedListener(new BlockedListener() {

			@Override
			public void handleBlocked(String reason) {
				created.blocked().set(true);
			}

			@Override
			public void handleUnblocked() {
				created.blocked().set(false);
			}

		});
		return created;
	}

	private ConfirmChannel channel(com.rabbitmq.client.Connection connection, Deque<ConfirmChannel> idle)
			throws IOException {
		ConfirmChannel channel;
		while ((channel = idle.poll()) != null) {
			if (channel.channel().isOpen()) {
				return channel;
			}
		}
		Channel created = connection.createChannel();
		if (created == null) {
			throw new IOException("the publisher connection has no channel left");
		}
		created.confirmSelect();
		AtomicBoolean returned = new AtomicBoolean();
		created.addReturnListener((reply) -> returned.set(true));
		return new ConfirmChannel(created, returned);
	}

	private void release(ConfirmChannel channel, boolean answered, Deque<ConfirmChannel> idle) {
		if (!answered) {
			// Its confirmation may still come, late, for a copy it no longer waits for;
			// and a broker that blocks the connection does not read the close: not on the
			// consumer thread
			Thread aborting = new Thread(() -> close(channel), "idempotency-copy-channel-abort");
			aborting.setDaemon(true);
			aborting.start();
		}
		else if (idle.size() < IDLE_CHANNELS) {
			idle.push(channel);
		}
		else {
			close(channel);
		}
	}

	// Abort, not close: a channel that closed meanwhile, with its connection or by the
	// broker, is no error here
	private static void close(ConfirmChannel channel) {
		try {
			channel.channel().abort();
		}
		catch (IOException | RuntimeException ex) {
			// Closed already, or with its connection: nothing is left to release
		}
	}

	/**
	 * The publishers of the containers of one configurer: one for each publisher
	 * connection factory, so that its connections are watched and their idle channels
	 * kept once, however many containers there are, created and discarded.
	 */
	static final class Shared {

		private final Duration confirmTimeout;

		private final Map<ConnectionFactory, CopyPublisher> publishers = new ConcurrentHashMap<>();

		Shared(Duration confirmTimeout) {
			this.confirmTimeout = confirmTimeout;
		}

		/**
		 * Return the publisher for a container's connection factory, as {@link #of} does,
		 * the same one for every container of a publisher connection factory.
		 * @param containerConnectionFactory the container's connection factory
		 * @return the publisher, or {@code null} where {@link #of} returns none
		 */
		@Nullable CopyPublisher forContainer(@Nullable ConnectionFactory containerConnectionFactory) {
			if (containerConnectionFactory == null || containerConnectionFactory instanceof RoutingConnectionFactory) {
				return null;
			}
			ConnectionFactory publisher = containerConnectionFactory.getPublisherConnectionFactory();
			if (publisher == null) {
				return null;
			}
			return this.publishers.computeIfAbsent(publisher,
					(key) -> of(containerConnectionFactory, this.confirmTimeout));
		}

	}

	private record ConfirmChannel(Channel channel, AtomicBoolean returned) {
	}

	// What the broker said of a connection, and its channels not in use
	private record Publishing(AtomicBoolean blocked, Deque<ConfirmChannel> idle) {
	}

}
