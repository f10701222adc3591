package dev.idempotency.test.process;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * A server of this JVM, started from the machine's binaries under a {@link Watchdog}, in
 * a temporary directory of its own, listening on a free port of {@value #HOST}. It is
 * crashed and its directory deleted when the JVM exits, or, through its watchdog, within
 * a second or two after the JVM is killed. A subclass says what is its own: the command
 * that runs the server, how to tell that it answers, the signal that crashes it, and how
 * to describe it.
 */
public abstract class AbstractServerProcess implements AutoCloseable {

	/**
	 * The address the servers listen on: never the machine's own servers.
	 */
	protected static final String HOST = "127.0.0.1";

	// A free port can be taken by someone else before the server binds it
	private static final int PORT_ATTEMPTS = 3;

	private static final Set<AbstractServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(
					new Thread(() -> RUNNING.forEach(AbstractServerProcess::close), "server-process-shutdown"));
	}

	private final String watchdogName;

	private final Path directory;

	private final int port;

	private final long owner;

	private @Nullable Process watchdog;

	/**
	 * Create a server, not started yet.
	 * @param watchdogName the name of its watchdog's process (such as
	 * {@code database-watchdog})
	 * @param directory its directory
	 * @param port the port it listens on
	 * @param owner the process whose end crashes the server and deletes its directory
	 */
	protected AbstractServerProcess(String watchdogName, Path directory, int port, long owner) {
		this.watchdogName = watchdogName;
		this.directory = directory;
		this.port = port;
		this.owner = owner;
	}

	/**
	 * Create a temporary directory, prepare it, then start a server in it on a free port
	 * (on another one, twice at most, when it fails to start), and wait until it answers.
	 * The directory is deleted if the server never starts.
	 * @param <S> the type of server
	 * @param directoryPrefix the prefix of the directory's name
	 * @param prepare sets up the directory (such as a database's files) and returns what
	 * creates a server in it, given a port
	 * @return the running server
	 * @throws IllegalStateException if the server does not start
	 */
	protected static <S extends AbstractServerProcess> S start(String directoryPrefix,
			Function<Path, IntFunction<S>> prepare) {
		Path directory = createDirectory(directoryPrefix);
		RuntimeException failure = null;
		try {
			IntFunction<S> create = prepare.apply(directory);
			for (int attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
				S server = create.apply(freePort());
				// Its private methods, which a type variable does not give access to
				AbstractServerProcess process = server;
				try {
					process.launch();
					return server;
				}
				catch (IllegalStateException ex) {
					process.crash();
					RUNNING.remove(process);
					failure = ex;
				}
			}
		}
		catch (RuntimeException ex) {
			failure = ex;
		}
		deleteDirectory(directory);
		throw failure;
	}

	/**
	 * Return the command that runs the server in the foreground, on {@link #port()}.
	 * @return the command
	 */
	protected abstract List<String> command();

	/**
	 * Wait until the server that was just started answers.
	 * @param exited says why the server will never answer (it exited), or {@code null}
	 * while it may
	 * @param log returns the server's log, for a failure
	 * @throws IllegalStateException if the server exits or does not answer in time
	 */
	protected abstract void awaitReady(Supplier<@Nullable String> exited, Supplier<String> log);

	/**
	 * Return the signal that stops the server at once, without a clean shutdown, as a
	 * crash would.
	 * @return the signal's name without {@code SIG}
	 */
	protected abstract String crashSignal();

	/**
	 * Describe the server, for messages.
	 * @return what it is and where it runs
	 */
	public abstract String describe();

	/**
	 * Crash the server, then start it again on the same port and directory, and wait
	 * until it answers.
	 * @throws IllegalStateException if it does not start again
	 */
	public synchronized void restart() {
		crash();
		launch();
	}

	/**
	 * Crash the server and delete its directory.
	 */
	@Override
	public synchronized void close() {
		crash();
		RUNNING.remove(this);
		deleteDirectory(this.directory);
	}

	/**
	 * Return the watchdog that runs the server now.
	 * @return the watchdog, or {@code null} before the server was first launched
	 */
	public synchronized @Nullable Process watchdog() {
		return this.watchdog;
	}

	/**
	 * Return the server's directory, deleted when it is closed.
	 * @return the directory
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Return the port the server listens on, on {@value #HOST}.
	 * @return the port
	 */
	protected int port() {
		return this.port;
	}

	@Override
	public String toString() {
		return describe();
	}

	private synchronized void launch() {
		Process watchdog = Watchdog.start(this.watchdogName, command(), this.directory, crashSignal(), this.owner);
		this.watchdog = watchdog;
		RUNNING.add(this);
		awaitReady(() -> watchdog.isAlive() ? null : "exited with " + watchdog.exitValue(),
				() -> read(Watchdog.log(this.directory)));
	}

	private synchronized void crash() {
		Process watchdog = this.watchdog;
		if (watchdog != null) {
			Watchdog.crash(watchdog, this.directory, crashSignal());
		}
	}

	private static Path createDirectory(String prefix) {
		try {
			return Files.createTempDirectory(prefix);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
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

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private static void deleteDirectory(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// Left in the temporary directory
		}
	}

}
