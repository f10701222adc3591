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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

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
		return start(List.of());
	}

	/**
	 * Start a replica of a server and wait until it is in sync with it.
	 * @param primary the server to replicate
	 * @return the running replica
	 * @throws IllegalStateException if {@code redis-server} is not on the {@code PATH} or
	 * does not start or sync
	 */
	static RedisServer startReplicaOf(RedisServer primary) {
		RedisServer replica = start(List.of("--replicaof", HOST, Integer.toString(primary.port())));
		replica.awaitSync();
		return replica;
	}

	private static RedisServer start(List<String> extraArguments) {
		Path directory = createDirectory();
		int port = freePort();
		Path log = directory.resolve("redis.log");
		List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--bind", HOST,
				"--save", "", "--appendonly", "no", "--dir", directory.toString(), "--daemonize", "no"));
		command.addAll(extraArguments);
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
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
		return "+PONG".equals(firstLineOf("PING"));
	}

	// A replica is in sync once its link to the primary is up: it then has the primary's
	// data set and receives every later write.
	private void awaitSync() {
		long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
		while (System.nanoTime() < deadline) {
			if (String.valueOf(linesOf("INFO replication")).contains("master_link_status:up")) {
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
		throw new IllegalStateException("The replica on port " + this.port + " did not sync with its primary");
	}

	private @Nullable String firstLineOf(String command) {
		List<String> lines = linesOf(command);
		return (lines != null && !lines.isEmpty()) ? lines.get(0) : null;
	}

	// The reply of an inline command, a bulk string's lines included
	private @Nullable List<String> linesOf(String command) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(HOST, this.port), 200);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
			String first = in.readLine();
			if (first == null) {
				return null;
			}
			List<String> lines = new ArrayList<>(List.of(first));
			if (first.startsWith("$")) {
				int length = Integer.parseInt(first.substring(1));
				char[] body = new char[Math.max(length, 0)];
				int read = 0;
				while (read < body.length) {
					int n = in.read(body, read, body.length - read);
					if (n < 0) {
						break;
					}
					read += n;
				}
				lines.addAll(List.of(new String(body, 0, read).split("\r\n")));
			}
			return lines;
		}
		catch (IOException ex) {
			return null;
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
