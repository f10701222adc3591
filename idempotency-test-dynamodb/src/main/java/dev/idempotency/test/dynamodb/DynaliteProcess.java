package dev.idempotency.test.dynamodb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A dynalite of this JVM, in a temporary directory of its own (its data in {@code data},
 * when kept on disk), listening on a free port of 127.0.0.1. It is killed and its
 * directory deleted when the JVM exits, or, through its {@link Watchdog}, within a second
 * or two after the JVM is killed.
 */
final class DynaliteProcess implements PrivateDynamoDbServer {

	private static final String HOST = "127.0.0.1";

	private static final String CRASH_SIGNAL = "KILL";

	private static final Set<DynaliteProcess> RUNNING = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> RUNNING.forEach(DynaliteProcess::close), "dynalite-shutdown"));
	}

	private final Dynalite dynalite;

	private final Path directory;

	private final @Nullable Path data;

	private final int port;

	private final long owner;

	private final URI endpoint;

	private @Nullable Process watchdog;

	private DynaliteProcess(Dynalite dynalite, Path directory, boolean onDisk, int port, long owner) {
		this.dynalite = dynalite;
		this.directory = directory;
		this.data = onDisk ? directory.resolve("data") : null;
		this.port = port;
		this.owner = owner;
		this.endpoint = URI.create("http://" + HOST + ":" + port);
	}

	/**
	 * Start a dynalite and wait until it answers.
	 * @param dynalite the machine's dynalite
	 * @param onDisk whether it keeps its data on disk (which survives a restart) rather
	 * than in memory
	 * @return the running server
	 */
	static DynaliteProcess start(Dynalite dynalite, boolean onDisk) {
		return start(dynalite, onDisk, ProcessHandle.current().pid());
	}

	/**
	 * Start a dynalite that lives no longer than a process, and wait until it answers.
	 * @param dynalite the machine's dynalite
	 * @param onDisk whether it keeps its data on disk rather than in memory
	 * @param owner the process whose end kills the server and deletes its directory
	 * @return the running server
	 */
	static DynaliteProcess start(Dynalite dynalite, boolean onDisk, long owner) {
		Path directory = createDirectory();
		IllegalStateException failure = null;
		// A free port can be taken by someone else before the server binds it
		for (int attempt = 0; attempt < 3; attempt++) {
			DynaliteProcess server = new DynaliteProcess(dynalite, directory, onDisk, freePort(), owner);
			try {
				server.launch();
				return server;
			}
			catch (IllegalStateException ex) {
				server.crash();
				RUNNING.remove(server);
				failure = ex;
			}
		}
		Commands.deleteDirectory(directory);
		throw failure;
	}

	@Override
	public URI endpoint() {
		return this.endpoint;
	}

	@Override
	public String describe() {
		return toString();
	}

	@Override
	public DynamoDbClient client() {
		return Clients.create(this.endpoint);
	}

	@Override
	public synchronized void restart() {
		crash();
		launch();
	}

	@Override
	public synchronized void close() {
		crash();
		RUNNING.remove(this);
		Commands.deleteDirectory(this.directory);
	}

	@Override
	public String toString() {
		return this.dynalite + " on " + HOST + ":" + this.port + " with its data "
				+ ((this.data != null) ? "in " + this.data : "in memory");
	}

	synchronized @Nullable Process watchdog() {
		return this.watchdog;
	}

	Path directory() {
		return this.directory;
	}

	private synchronized void launch() {
		Process watchdog = Watchdog.start(this.dynalite.command(HOST, this.port, this.data), this.directory,
				CRASH_SIGNAL, this.owner);
		this.watchdog = watchdog;
		RUNNING.add(this);
		Answering.await(toString(), this.endpoint,
				() -> watchdog.isAlive() ? null : "exited with " + watchdog.exitValue(),
				() -> Commands.read(Watchdog.log(this.directory)));
	}

	private synchronized void crash() {
		Process watchdog = this.watchdog;
		if (watchdog != null) {
			Watchdog.crash(watchdog, this.directory, CRASH_SIGNAL);
		}
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("idempotency-dynalite-");
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

}
