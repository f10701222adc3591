package dev.idempotency.test.dynamodb;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

/**
 * The operating system commands that finding dynalite needs: finding a program, running
 * one to its end, bounded in time.
 */
final class Commands {

	static final int OUTPUT_TIMEOUT_SECONDS = 10;

	private Commands() {
	}

	/**
	 * Run a command to its end and return what it printed on its standard output; its
	 * errors (npm's warnings among them) are left out, and it is bounded in time even
	 * when it hangs.
	 * @param command the program and its arguments
	 * @return the output, trimmed
	 * @throws IllegalStateException if it cannot run, takes more than
	 * {@value #OUTPUT_TIMEOUT_SECONDS} seconds or exits with another status than 0
	 */
	static String output(String... command) {
		String line = String.join(" ", command);
		Path output = null;
		try {
			output = Files.createTempFile("idempotency-command-", ".out");
			Process process = new ProcessBuilder(command).redirectOutput(output.toFile())
				.redirectError(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(OUTPUT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(line + " did not finish within " + OUTPUT_TIMEOUT_SECONDS + "s");
			}
			String printed = Files.readString(output).trim();
			if (process.exitValue() != 0) {
				throw new IllegalStateException(line + " exited with " + process.exitValue() + ": " + printed);
			}
			return printed;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + line, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + line, ex);
		}
		finally {
			if (output != null) {
				output.toFile().delete();
			}
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

}
