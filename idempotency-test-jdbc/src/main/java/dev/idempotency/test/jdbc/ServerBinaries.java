package dev.idempotency.test.jdbc;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The programs of a database server installed on this machine, and how to set up, run and
 * crash a server of the tests with them.
 */
abstract class ServerBinaries {

	/**
	 * Find the binaries of a kind of server on this machine.
	 * @param kind the kind of server
	 * @return its binaries, if all are found
	 */
	static Optional<ServerBinaries> find(DatabaseKind kind) {
		return switch (kind) {
			case POSTGRESQL -> PostgresBinaries.find();
			case MARIADB -> MariadbBinaries.find();
		};
	}

	/**
	 * Say how to install the binaries of a kind of server, for messages.
	 * @param kind the kind of server
	 * @return the advice
	 */
	static String install(DatabaseKind kind) {
		return switch (kind) {
			case POSTGRESQL -> "apt-get install postgresql: initdb and postgres, on the PATH or in "
					+ "/usr/lib/postgresql/VERSION/bin";
			case MARIADB -> "apt-get install mariadb-server: mariadb-install-db and mariadbd, on the PATH or in "
					+ "/usr/bin and /usr/sbin";
		};
	}

	/**
	 * Return the first of some directories that holds all the given programs.
	 * @param directories the directories, in the order of preference
	 * @param programs the programs' names
	 * @return the directory, its links resolved, if any
	 */
	static Optional<Path> directoryWith(Stream<Path> directories, String... programs) {
		return directories.filter((directory) -> Stream.of(programs).allMatch((p) -> isExecutable(directory, p)))
			.findFirst()
			.map((directory) -> directory.resolve(programs[0]))
			.flatMap(ServerBinaries::realDirectory);
	}

	private static boolean isExecutable(Path directory, String program) {
		return Files.isExecutable(directory.resolve(program));
	}

	// Debian links some programs into /usr/bin or /usr/local/bin; they find their
	// libraries and siblings from their real place
	private static Optional<Path> realDirectory(Path program) {
		try {
			return Optional.of(program.toRealPath().getParent());
		}
		catch (IOException ex) {
			return Optional.empty();
		}
	}

	abstract DatabaseKind kind();

	/**
	 * Return the user such servers usually run as, to run them as when root.
	 * @return the user's name
	 */
	abstract String usualUser();

	/**
	 * Create a new server's data in its directory.
	 * @param directory the server's directory, owned by the user
	 * @param user the user the server runs as
	 */
	abstract void initialize(Path directory, ServerUser user);

	/**
	 * Return the command that runs the server in the foreground.
	 * @param directory the server's directory
	 * @param port the port it listens to on 127.0.0.1
	 * @param user the user it runs as
	 * @return the command
	 */
	abstract List<String> command(Path directory, int port, ServerUser user);

	/**
	 * Return the signal that stops the server at once, without a clean shutdown, as a
	 * crash would.
	 * @return the signal's name without {@code SIG}
	 */
	abstract String crashSignal();

}
