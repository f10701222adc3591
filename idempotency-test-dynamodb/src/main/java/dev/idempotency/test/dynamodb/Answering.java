package dev.idempotency.test.dynamodb;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.test.process.Readiness;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Waits until a server that was just started answers DynamoDB's calls, polling until a
 * deadline: first until its port accepts connections, then until it lists its tables.
 */
final class Answering {

	static final Duration START_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration INTERVAL = Duration.ofMillis(50);

	private static final int CONNECT_TIMEOUT_MILLIS = 1000;

	private Answering() {
	}

	/**
	 * Wait until a server answers.
	 * @param what the server, for messages
	 * @param endpoint its endpoint
	 * @param exited says why the server will never answer (it exited), or {@code null}
	 * while it may
	 * @param log returns the server's log, for a failure
	 * @throws IllegalStateException if the server exits or does not answer in time
	 */
	static void await(String what, URI endpoint, Supplier<@Nullable String> exited, Supplier<String> log) {
		try (DynamoDbClient client = Clients.probe(endpoint)) {
			Readiness.await(what, START_TIMEOUT, INTERVAL, () -> {
				connect(endpoint);
				client.listTables((request) -> request.limit(1));
			}, exited, log);
		}
	}

	private static void connect(URI endpoint) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), CONNECT_TIMEOUT_MILLIS);
		}
	}

}
