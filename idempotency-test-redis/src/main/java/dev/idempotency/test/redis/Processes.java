package dev.idempotency.test.redis;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operating system commands a {@code redis-server} process of this JVM needs: finding
 * programs on the {@code PATH}, running one to its end, sending a process a signal and
 * waiting for one to exit, each bounded in time.
 */
final class Processes {

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private Processes() {
	}

	/**
	 * Find a program on the {@code PATH}.
	 * @param name the program's name
	 * @return its path, if any
	 */
	static Optional<Path> findOnPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		return Stream.of(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, name))
			.filter(Files::isExecutable)
			.findFirst();
	}

	/**
	 * Run a command to its end, with its output and errors written to a file.
	 * @param command the program and its arguments
	 * @param output the file that takes the output
	 * @param timeout how long the command may take
	 * @return the output
	 * @throws IllegalStateException if the command cannot run, takes too long or exits
	 * with another status than 0, with its output
	 */
	static String run(List<String> command, Path output, Duration timeout) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(output.toFile())
				.start();
			if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(
						String.join(" ", command) + " did not finish within " + timeout + ":\n" + read(output));
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						String.join(" ", command) + " exited with " + process.exitValue() + ":\n" + read(output));
			}
			return read(output);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + command.get(0), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + String.join(" ", command), ex);
		}
	}

	/**
	 * Send a signal to a running process with {@code kill}.
	 * @param process the process
	 * @param signal the signal's name without {@code SIG}, such as {@code STOP}
	 * @param name what the process is, for the messages
	 * @throws IllegalStateException if the process does not run or the signal cannot be
	 * sent
	 */
	static void signal(Process process, String signal, Object name) {
		if (!process.isAlive()) {
			throw new IllegalStateException(name + " is not running");
		}
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
			if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("Could not send SIG" + signal + " to " + name);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run kill", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while sending SIG" + signal + " to " + name, ex);
		}
	}

	/**
	 * Wait for a process that was asked to exit, killing it if it does not in time.
	 * @param process the process
	 */
	static void awaitExit(Process process) {
		try {
			if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				process.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
		}
	}

	/**
	 * Read a file of output.
	 * @param file the file
	 * @return its content, or why there is none
	 */
	static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

}
