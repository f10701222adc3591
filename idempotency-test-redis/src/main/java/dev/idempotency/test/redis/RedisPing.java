package dev.idempotency.test.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Waits for a Redis server to answer {@code PING} over a plain socket, with no client
 * library, so that a server is known to be up before any test connects.
 */
final class RedisPing {

	static final Duration START_TIMEOUT = Duration.ofSeconds(20);

	private RedisPing() {
	}

	/**
	 * Wait until the server answers, or fail.
	 * @param server what to call the server in a failure
	 * @param host its host
	 * @param port its port
	 * @param gone why the server can no longer answer (it exited), or {@code null} while
	 * it may still
	 * @param log its log, for a failure
	 */
	static void await(String server, String host, int port, Supplier<@Nullable String> gone, Supplier<String> log) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			String reason = gone.get();
			if (reason != null) {
				throw new IllegalStateException(server + " " + reason + ":\n" + log.get());
			}
			if (answers(host, port)) {
				return;
			}
			pause();
		}
		throw new IllegalStateException(server + " did not answer PING within " + START_TIMEOUT + ":\n" + log.get());
	}

	static boolean answers(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			return "+PONG".equals(in.readLine());
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis to answer", ex);
		}
	}

}
