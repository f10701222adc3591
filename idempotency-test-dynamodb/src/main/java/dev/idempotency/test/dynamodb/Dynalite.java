package dev.idempotency.test.dynamodb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * The dynalite of this machine, and the command that runs a server of the tests with it:
 * {@code dynalite} on the {@code PATH}, else {@code $(npm root -g)/dynalite/cli.js} run
 * with {@code node}. Tables are created, updated and deleted at once
 * ({@code --createTableMs 0} and the like), not after dynalite's default half second.
 */
final class Dynalite {

	static final String INSTALL = "Node 20+ and npm install -g dynalite@4.0.0: dynalite on the PATH, or "
			+ "dynalite/cli.js under npm root -g with node on the PATH";

	private static @Nullable Optional<Dynalite> found;

	private final List<String> program;

	private final String description;

	private Dynalite(List<String> program, String description) {
		this.program = program;
		this.description = description;
	}

	/**
	 * Find dynalite on this machine, once per JVM.
	 * @return it, if found
	 */
	static synchronized Optional<Dynalite> find() {
		Optional<Dynalite> dynalite = found;
		if (dynalite == null) {
			dynalite = lookUp(System.getenv("PATH"));
			found = dynalite;
		}
		return dynalite;
	}

	/**
	 * Look for dynalite: {@code dynalite} in a {@code PATH}, else {@code dynalite/cli.js}
	 * under {@code npm root -g}, with {@code npm} and {@code node} in that {@code PATH}.
	 * @param path the directories, as in the {@code PATH} variable, or {@code null}
	 * @return dynalite, if found
	 */
	static Optional<Dynalite> lookUp(@Nullable String path) {
		return Commands.onPath("dynalite", path)
			.map((program) -> new Dynalite(List.of(program.toString()), "dynalite from " + program))
			.or(() -> underNpmRoot(path));
	}

	private static Optional<Dynalite> underNpmRoot(@Nullable String path) {
		Optional<Path> node = Commands.onPath("node", path);
		Optional<Path> npm = Commands.onPath("npm", path);
		if (node.isEmpty() || npm.isEmpty()) {
			return Optional.empty();
		}
		String root;
		try {
			root = Commands.output(npm.get().toString(), "root", "-g");
		}
		catch (IllegalStateException ex) {
			return Optional.empty();
		}
		Path cli = Path.of(root, "dynalite", "cli.js");
		return Files.isRegularFile(cli)
				? Optional.of(new Dynalite(List.of(node.get().toString(), cli.toString()), "dynalite from " + cli))
				: Optional.empty();
	}

	/**
	 * Return the command that runs a server in the foreground.
	 * @param port the port it listens to on {@code host}
	 * @param host the address it listens to
	 * @param data the directory of its data, or {@code null} to keep it in memory
	 * @return the command
	 */
	List<String> command(String host, int port, @Nullable Path data) {
		List<String> command = new ArrayList<>(this.program);
		command.addAll(List.of("--host", host, "--port", Integer.toString(port), "--createTableMs", "0",
				"--deleteTableMs", "0", "--updateTableMs", "0"));
		if (data != null) {
			command.addAll(List.of("--path", data.toString()));
		}
		return command;
	}

	@Override
	public String toString() {
		return this.description;
	}

}
