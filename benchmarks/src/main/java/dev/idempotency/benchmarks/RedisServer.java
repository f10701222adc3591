package dev.idempotency.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A {@code redis-server} from the {@code PATH}, started on a free loopback port in a
 * temporary directory, without persistence, and stopped (directory deleted) on close or
 * when the JVM exits.
 */
final class RedisServer implements AutoCloseable {

	static final String HOST = "127.0.0.1";

	private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

	private final Process process;

	private final Path directory;

	private final int port;

	private final Thread shutdownHook;

	private RedisServer(Process process, Path directory, int port) {
		this.process = process;
		this.directory = directory;
		this.port = port;
		this.shutdownHook = new Thread(this::stop, "redis-server-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Start a server and wait until it answers {@code PING}.
	 * @return the running server
	 * @throws IllegalStateException if {@code redis-server} is not on the {@code PATH} or
	 * does not start
	 */
	static RedisServer start() {
		Path directory = createDirectory();
		int port = freePort();
		Path log = directory.resolve("redis.log");
		ProcessBuilder builder = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", HOST,
				"--save", "", "--appendonly", "no", "--dir", directory.toString(), "--daemonize", "no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException(
					"Could not run redis-server: put it on the PATH (apt-get install redis-server)", ex);
		}
		RedisServer server = new RedisServer(process, directory, port);
		server.awaitPing(log);
		return server;
	}

	int port() {
		return this.port;
	}

	@Override
	public void close() {
		stop();
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// The JVM is already shutting down: the hook stops the server.
		}
	}

	private void stop() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.process.destroyForcibly();
		}
		deleteDirectory(this.directory);
	}

	private void awaitPing(Path log) {
		long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(
						"redis-server exited with " + this.process.exitValue() + ":\n" + readLog(log));
			}
			if (answersPing()) {
				return;
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		close();
		throw new IllegalStateException("redis-server did not answer PING on port " + this.port + ":\n" + readLog(log));
	}

	private boolean answersPing() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, this.port), 200);
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

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("idempotency-benchmarks-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void deleteDirectory(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// A leftover temporary directory is not worth failing a benchmark for.
		}
	}

	private static String readLog(Path log) {
		try {
			return Files.readString(log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
