package dev.idempotency.test.dynamodb;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.core.exception.SdkException;
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
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		Exception last = null;
		try (DynamoDbClient client = Clients.probe(endpoint)) {
			while (System.nanoTime() < deadline) {
				String end = exited.get();
				if (end != null) {
					throw new IllegalStateException(what + " " + end + ":\n" + log.get());
				}
				try {
					connect(endpoint);
					client.listTables((request) -> request.limit(1));
					return;
				}
				catch (IOException | SdkException ex) {
					last = ex;
				}
				pause(what);
			}
		}
		throw new IllegalStateException(what + " did not answer within " + START_TIMEOUT + " ("
				+ ((last != null) ? last.getMessage() : "") + "):\n" + log.get(), last);
	}

	private static void connect(URI endpoint) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), CONNECT_TIMEOUT_MILLIS);
		}
	}

	private static void pause(String what) {
		try {
			Thread.sleep(INTERVAL.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + what, ex);
		}
	}

}
