package dev.idempotency.test.jdbc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * A database server of this JVM, started from the machine's binaries in a temporary
 * directory of its own, listening on a free port of 127.0.0.1 (never the machine's own
 * server), as the user {@link ServerUser} chooses. It is crashed and its directory
 * deleted when the JVM exits, or, through its {@link Watchdog}, within a second or two
 * after the JVM is killed.
 */
final class ServerProcess implements PrivateDatabaseServer {

	private static final String HOST = "127.0.0.1";

	private static final Set<ServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> RUNNING.forEach(ServerProcess::close), "database-server-shutdown"));
	}

	private final ServerBinaries binaries;

	private final Path directory;

	private final ServerUser user;

	private final int port;

	private final long owner;

	private final UrlServer server;

	private @Nullable Process watchdog;

	private ServerProcess(ServerBinaries binaries, Path directory, ServerUser user, int port, long owner) {
		this.binaries = binaries;
		this.directory = directory;
		this.user = user;
		this.port = port;
		this.owner = owner;
		this.server = new UrlServer(binaries.kind(), binaries.kind().adminUrl(HOST, port), toString());
	}

	/**
	 * Set up and start a server, and wait until it accepts connections.
	 * @param binaries the server's binaries
	 * @return the running server
	 */
	static ServerProcess start(ServerBinaries binaries) {
		return start(binaries, ProcessHandle.current().pid());
	}

	/**
	 * Set up and start a server that lives no longer than a process, and wait until it
	 * accepts connections.
	 * @param binaries the server's binaries
	 * @param owner the process whose end crashes the server and deletes its data
	 * @return the running server
	 */
	static ServerProcess start(ServerBinaries binaries, long owner) {
		Path directory = createDirectory(binaries.kind());
		IllegalStateException failure = null;
		try {
			ServerUser user = ServerUser.owning(directory, binaries.usualUser());
			binaries.initialize(directory, user);
			// A free port can be taken by someone else before the server binds it
			for (int attempt = 0; attempt < 3; attempt++) {
				ServerProcess server = new ServerProcess(binaries, directory, user, freePort(), owner);
				try {
					server.launch();
					return server;
				}
				catch (IllegalStateException ex) {
					server.crash();
					failure = ex;
				}
			}
		}
		catch (IllegalStateException ex) {
			failure = ex;
		}
		Commands.deleteDirectory(directory);
		throw failure;
	}

	@Override
	public DatabaseKind kind() {
		return this.binaries.kind();
	}

	@Override
	public TestDatabase createDatabase() {
		return this.server.createDatabase();
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
	public String describe() {
		return toString();
	}

	@Override
	public String toString() {
		return this.binaries + " on " + HOST + ":" + this.port + " in " + this.directory;
	}

	synchronized @Nullable Process watchdog() {
		return this.watchdog;
	}

	Path directory() {
		return this.directory;
	}

	private synchronized void launch() {
		Process watchdog = Watchdog.start(this.binaries.command(this.directory, this.port, this.user), this.directory,
				this.binaries.crashSignal(), this.owner);
		this.watchdog = watchdog;
		RUNNING.add(this);
		Connectable.await(toString(), this.binaries.kind().adminUrl(HOST, this.port),
				() -> watchdog.isAlive() ? null : "exited with " + watchdog.exitValue(),
				() -> Commands.read(Watchdog.log(this.directory)));
	}

	private synchronized void crash() {
		Process watchdog = this.watchdog;
		if (watchdog != null) {
			Watchdog.crash(watchdog, this.directory, this.binaries.crashSignal());
		}
	}

	private static Path createDirectory(DatabaseKind kind) {
		try {
			return Files.createTempDirectory("idempotency-" + kind.name().toLowerCase(Locale.ROOT) + "-");
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
