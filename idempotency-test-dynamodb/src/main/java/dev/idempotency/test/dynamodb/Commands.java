package dev.idempotency.test.dynamodb;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The operating system commands that a server of the tests needs: finding a program,
 * running one to its end, bounded in time, reading a log, deleting a directory.
 */
final class Commands {

	private Commands() {
	}

	/**
	 * Run a command to its end and return what it printed.
	 * @param command the program and its arguments
	 * @return the output, trimmed
	 * @throws IllegalStateException if it cannot run, takes more than 10 seconds or exits
	 * with another status than 0
	 */
	static String output(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + command[0], ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command[0], ex);
		}
	}

	/**
	 * Find a program in the directories of a {@code PATH}.
	 * @param name the program's name
	 * @param path the directories, as in the {@code PATH} variable, or {@code null}
	 * @return its path in the first directory that has it, if any
	 */
	static Optional<Path> onPath(String name, @Nullable String path) {
		if (path == null) {
			return Optional.empty();
		}
		return Stream.of(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, name))
			.filter(Files::isExecutable)
			.findFirst();
	}

	static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	static void deleteDirectory(Path directory) {
		try (Stream<Path> paths = Files.walk(directory)) {
			paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// Left in the temporary directory
		}
	}

}
