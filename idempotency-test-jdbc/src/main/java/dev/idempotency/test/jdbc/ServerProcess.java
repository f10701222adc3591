package dev.idempotency.test.jdbc;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.test.process.AbstractServerProcess;

/**
 * A database server of this JVM, started from the machine's binaries in a temporary
 * directory of its own, listening on a free port of 127.0.0.1 (never the machine's own
 * server), as the user {@link ServerUser} chooses. It is crashed and its directory
 * deleted when the JVM exits, or, through its watchdog, within a second or two after the
 * JVM is killed.
 */
final class ServerProcess extends AbstractServerProcess implements PrivateDatabaseServer {

	private final ServerBinaries binaries;

	private final ServerUser user;

	private final UrlServer server;

	private ServerProcess(ServerBinaries binaries, Path directory, ServerUser user, int port, long owner) {
		super("database-watchdog", directory, port, owner);
		this.binaries = binaries;
		this.user = user;
		this.server = new UrlServer(binaries.kind(), binaries.kind().adminUrl(HOST, port), describe());
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
		String prefix = "idempotency-" + binaries.kind().name().toLowerCase(Locale.ROOT) + "-";
		return start(prefix, (directory) -> {
			ServerUser user = ServerUser.owning(directory, binaries.usualUser());
			binaries.initialize(directory, user);
			return (port) -> new ServerProcess(binaries, directory, user, port, owner);
		});
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
	public String describe() {
		return this.binaries + " on " + HOST + ":" + port() + " in " + directory();
	}

	@Override
	protected List<String> command() {
		return this.binaries.command(directory(), port(), this.user);
	}

	@Override
	protected void awaitReady(Supplier<@Nullable String> exited, Supplier<String> log) {
		Connectable.await(describe(), this.binaries.kind().adminUrl(HOST, port()), exited, log);
	}

	@Override
	protected String crashSignal() {
		return this.binaries.crashSignal();
	}

}
