package dev.idempotency.test.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * PostgreSQL's {@code initdb} and {@code postgres}, from the {@code PATH} or else the
 * newest {@code /usr/lib/postgresql/VERSION/bin} (where Debian puts them). The server is
 * set up for tests: trust authentication, the superuser {@code postgres}, no
 * {@code fsync} and small buffers; committed data still survives a crash of the server
 * (though not of the machine).
 */
final class PostgresBinaries extends ServerBinaries {

	private static final Path DEBIAN = Path.of("/usr/lib/postgresql");

	private static final Duration INITDB_TIMEOUT = Duration.ofSeconds(120);

	private final Path directory;

	private PostgresBinaries(Path directory) {
		this.directory = directory;
	}

	static Optional<ServerBinaries> find() {
		return directoryWith(Stream.concat(Commands.path(), debianVersions()), "initdb", "postgres")
			.map(PostgresBinaries::new);
	}

	private static Stream<Path> debianVersions() {
		try (Stream<Path> versions = Files.list(DEBIAN)) {
			return versions.filter((version) -> version.getFileName().toString().matches("\\d+(\\.\\d+)?"))
				.sorted(Comparator
					.comparingDouble((Path version) -> Double.parseDouble(version.getFileName().toString()))
					.reversed())
				.map((version) -> version.resolve("bin"))
				.toList()
				.stream();
		}
		catch (IOException ex) {
			return Stream.empty();
		}
	}

	@Override
	DatabaseKind kind() {
		return DatabaseKind.POSTGRESQL;
	}

	@Override
	String usualUser() {
		return "postgres";
	}

	@Override
	void initialize(Path directory, ServerUser user) {
		Commands.run(
				user.run(List.of(program("initdb"), "--pgdata=" + data(directory), "--username=postgres",
						"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")),
				directory.resolve("initdb.log"), INITDB_TIMEOUT);
	}

	@Override
	List<String> command(Path directory, int port, ServerUser user) {
		return user.run(List.of(program("postgres"), "-D", data(directory), "-p", Integer.toString(port), "-k",
				directory.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c",
				"full_page_writes=off", "-c", "shared_buffers=16MB", "-c", "max_connections=200"));
	}

	// What pg_ctl stop -m immediate sends: the postmaster ends every backend at once and
	// the next start recovers from the WAL
	@Override
	String crashSignal() {
		return "QUIT";
	}

	private String program(String name) {
		return this.directory.resolve(name).toString();
	}

	private static String data(Path directory) {
		return directory.resolve("data").toString();
	}

	@Override
	public String toString() {
		return "PostgreSQL from " + this.directory;
	}

}
