package dev.idempotency.test;

import java.io.BufferedReader;
import java.io.File;
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
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} process of this test JVM, on a free port of the loopback
 * interface, without persistence, in its own temporary directory. It can be stopped,
 * killed and restarted on the same port, for tests of an unreachable store.
 * <p>
 * Close it when done; any process still running when the JVM exits is stopped by a
 * shutdown hook.
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final String HOST = "127.0.0.1";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServerProcess::close), "redis-server-shutdown"));
	}

	private final Path binary;

	private final Path directory;

	private final int port;

	private @Nullable Process process;

	private boolean frozen;

	private RedisServerProcess(Path binary, Path directory, int port) {
		this.binary = binary;
		this.directory = directory;
		this.port = port;
	}

	/**
	 * Start a new {@code redis-server} from the {@code PATH} on a free port.
	 * @return the running server
	 * @throws IllegalStateException if there is no {@code redis-server} on the
	 * {@code PATH} or it does not start
	 */
	public static RedisServerProcess start() {
		Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
				"No redis-server on the PATH; install one (apt-get install redis-server)"));
		Path directory = createDirectory();
		IllegalStateException failure = null;
		// A free port can be taken by someone else before the server binds it.
		for (int attempt = 0; attempt < 5; attempt++) {
			RedisServerProcess server = new RedisServerProcess(binary, directory, freePort());
			try {
				server.restart();
				return server;
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		deleteDirectory(directory);
		throw failure;
	}

	/**
	 * Find {@code redis-server} on the {@code PATH}.
	 * @return its path, if any
	 */
	public static Optional<Path> findBinary() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		return Stream.of(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, "redis-server"))
			.filter(Files::isExecutable)
			.findFirst();
	}

	/**
	 * Return the host the server listens on.
	 * @return the loopback address
	 */
	public String host() {
		return HOST;
	}

	/**
	 * Return the port the server listens on, which stays the same across restarts.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return a {@code redis://} URL of the server.
	 * @return the URL
	 */
	public String url() {
		return "redis://" + HOST + ":" + this.port;
	}

	/**
	 * Return whether the process is running.
	 * @return whether it runs
	 */
	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Start the server again on the same port, and wait until it answers {@code PING}.
	 * Does nothing if it is running.
	 * @throws IllegalStateException if it does not answer in time
	 */
	public synchronized void restart() {
		if (isRunning()) {
			return;
		}
		Path log = this.directory.resolve("redis.log");
		ProcessBuilder builder = new ProcessBuilder(this.binary.toString(), "--port", Integer.toString(this.port),
				"--bind", HOST, "--save", "", "--appendonly", "no", "--dir", this.directory.toString(), "--daemonize",
				"no")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		try {
			this.process = builder.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + this.binary, ex);
		}
		RUNNING.add(this);
		awaitPing(this.process, log);
	}

	/**
	 * Stop the server gracefully, as an operator would.
	 */
	public synchronized void stop() {
		// A frozen process would not act on SIGTERM
		if (this.frozen) {
			thaw();
		}
		Process process = this.process;
		if (process != null) {
			process.destroy();
			awaitExit(process);
		}
		this.process = null;
		this.frozen = false;
		RUNNING.remove(this);
	}

	/**
	 * Kill the server abruptly, as a crash would.
	 */
	public synchronized void kill() {
		Process process = this.process;
		if (process != null) {
			process.destroyForcibly();
			awaitExit(process);
		}
		this.process = null;
		this.frozen = false;
		RUNNING.remove(this);
	}

	/**
	 * Freeze the server ({@code SIGSTOP}): connections stay open and new ones are
	 * accepted by the kernel, but nothing is answered until {@link #thaw()}, as with a
	 * server that hangs or a network that drops replies.
	 */
	public synchronized void freeze() {
		signal("STOP");
		this.frozen = true;
	}

	/**
	 * Let a frozen server go on ({@code SIGCONT}).
	 */
	public synchronized void thaw() {
		signal("CONT");
		this.frozen = false;
	}

	/**
	 * Stop the server and delete its directory.
	 */
	@Override
	public synchronized void close() {
		stop();
		deleteDirectory(this.directory);
	}

	@Override
	public String toString() {
		return "redis-server on " + HOST + ":" + this.port;
	}

	private void signal(String signal) {
		Process process = this.process;
		if (process == null || !process.isAlive()) {
			throw new IllegalStateException(this + " is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
			if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("Could not send SIG" + signal + " to " + this);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run kill", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal + " to " + this, ex);
		}
	}

	private void awaitPing(Process process, Path log) {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			if (!process.isAlive()) {
				RUNNING.remove(this);
				throw new IllegalStateException(this + " exited with " + process.exitValue() + ":\n" + read(log));
			}
			if (answersPing()) {
				return;
			}
			pause();
		}
		process.destroyForcibly();
		RUNNING.remove(this);
		throw new IllegalStateException(this + " did not answer PING within " + START_TIMEOUT + ":\n" + read(log));
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

	private static void awaitExit(Process process) {
		try {
			if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
		}
	}

	private static void pause() {
		try {
			Thread.sleep(20);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
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
			return Files.createTempDirectory("redis-server-");
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
			// A leftover temporary directory is not worth failing a test run for.
		}
	}

	private static String read(Path log) {
		try {
			return Files.readString(log);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
