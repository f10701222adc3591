package dev.idempotency.test.jdbc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * MariaDB's {@code mariadb-install-db} and {@code mariadbd}, from the {@code PATH} or
 * else {@code /usr/bin} and {@code /usr/sbin} (where Debian puts them, the second often
 * not on a user's {@code PATH}). No option file of the machine is read. The server is set
 * up for tests: {@code root} without a password on 127.0.0.1, no binary log, a small
 * buffer pool and the redo log written at each commit but flushed once a second;
 * committed data still survives a crash of the server (though not of the machine).
 */
final class MariadbBinaries extends ServerBinaries {

	private static final List<Path> DEBIAN = List.of(Path.of("/usr/sbin"), Path.of("/usr/bin"));

	private static final Duration INSTALL_TIMEOUT = Duration.ofSeconds(120);

	private static final List<String> SETTINGS = List.of("--skip-log-bin", "--skip-name-resolve",
			"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=2",
			"--max-connections=200");

	private final Path server;

	private final Path install;

	private MariadbBinaries(Path server, Path install) {
		this.server = server;
		this.install = install;
	}

	static Optional<ServerBinaries> find() {
		Optional<Path> server = directoryWith(directories(), "mariadbd");
		Optional<Path> install = directoryWith(directories(), "mariadb-install-db");
		return server.flatMap((s) -> install.map((i) -> new MariadbBinaries(s, i)));
	}

	private static Stream<Path> directories() {
		return Stream.concat(Commands.path(), DEBIAN.stream());
	}

	@Override
	DatabaseKind kind() {
		return DatabaseKind.MARIADB;
	}

	@Override
	String usualUser() {
		return "mysql";
	}

	@Override
	void initialize(Path directory, ServerUser user) {
		List<String> command = new ArrayList<>(
				List.of(this.install.resolve("mariadb-install-db").toString(), "--no-defaults",
						"--datadir=" + data(directory), "--auth-root-authentication-method=normal", "--skip-test-db"));
		command.addAll(user(user));
		command.addAll(SETTINGS);
		Commands.run(command, directory.resolve("install.log"), INSTALL_TIMEOUT);
	}

	@Override
	List<String> command(Path directory, int port, ServerUser user) {
		List<String> command = new ArrayList<>(
				List.of(this.server.resolve("mariadbd").toString(), "--no-defaults", "--datadir=" + data(directory),
						"--port=" + port, "--bind-address=127.0.0.1", "--socket=" + directory.resolve("mariadb.sock"),
						"--pid-file=" + directory.resolve("mariadb.pid"), "--tmpdir=" + directory));
		command.addAll(user(user));
		command.addAll(SETTINGS);
		return command;
	}

	@Override
	String crashSignal() {
		return "KILL";
	}

	// mariadbd drops root itself, given the user
	private static List<String> user(ServerUser user) {
		return (user.name() != null) ? List.of("--user=" + user.name()) : List.of();
	}

	private static String data(Path directory) {
		return directory.resolve("data").toString();
	}

	@Override
	public String toString() {
		return "MariaDB from " + this.server;
	}

}
