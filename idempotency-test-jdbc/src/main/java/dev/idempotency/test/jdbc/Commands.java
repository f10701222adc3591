package dev.idempotency.test.jdbc;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operating system commands that setting up a server of the tests needs: running a
 * program to its end, bounded in time, reading its log, finding the directories of the
 * {@code PATH}.
 */
final class Commands {

	private Commands() {
	}

	/**
	 * Run a command to its end, with its output and errors appended to a file.
	 * @param command the program and its arguments
	 * @param log the file that takes the output
	 * @param timeout how long the command may take
	 * @throws IllegalStateException if the command cannot run, takes too long or exits
	 * with another status than 0, with its output
	 */
	static void run(List<String> command, Path log, Duration timeout) {
		String line = String.join(" ", command);
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(line + " did not finish within " + timeout + ":\n" + read(log));
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(line + " exited with " + process.exitValue() + ":\n" + read(log));
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + line, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + line, ex);
		}
	}

	/**
	 * Run a command to its end and return what it printed.
	 * @param command the program and its arguments
	 * @return the output, trimmed
	 */
	static String output(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
			if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
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
	 * Return the directories of the {@code PATH}.
	 * @return the directories, in their order
	 */
	static Stream<Path> path() {
		String path = System.getenv("PATH");
		return (path != null) ? Stream.of(path.split(File.pathSeparator)).filter((d) -> !d.isEmpty()).map(Path::of)
				: Stream.empty();
	}

	static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
