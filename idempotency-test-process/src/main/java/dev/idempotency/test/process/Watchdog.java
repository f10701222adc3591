package dev.idempotency.test.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a server under a shell that crashes it and deletes its directory once the JVM that
 * started it is gone: a JVM that is killed ({@code kill -9}) runs no shutdown hook, and
 * its servers would otherwise outlive it, holding their ports and files for good. The
 * shell ends when the server does.
 */
public final class Watchdog {

	private static final String PID_FILE = "server.pid";

	private static final String LOG_FILE = "server.log";

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);

	// $0 the shell's name (what ps shows), $1 the owner's pid, $2 the server's directory,
	// $3 the signal that crashes the server, then the server's command. The watcher polls
	// once a second.
	private static final String SCRIPT = """
			owner="$1"; directory="$2"; signal="$3"; shift 3
			"$@" &
			server=$!
			echo "$server" > "$directory/%s"
			(while kill -0 "$owner" 2>/dev/null; do sleep 1; done; kill -"$signal" "$server" 2>/dev/null) &
			watcher=$!
			wait "$server"; status=$?
			kill "$watcher" 2>/dev/null
			if ! kill -0 "$owner" 2>/dev/null; then rm -rf "$directory"; fi
			exit $status
			""".formatted(PID_FILE);

	private Watchdog() {
	}

	/**
	 * Start a server that lives no longer than a process.
	 * @param name the watchdog's process name, as {@code ps} shows it (such as
	 * {@code database-watchdog})
	 * @param command the server's command
	 * @param directory the server's directory, deleted once the owner is gone; it takes
	 * the server's output in its {@linkplain #log(Path) log}
	 * @param crashSignal the signal that stops the server at once, without {@code SIG}
	 * @param owner the process whose end stops the server
	 * @return the watchdog, which ends when the server does
	 * @throws IllegalStateException if the shell cannot be started
	 */
	public static Process start(String name, List<String> command, Path directory, String crashSignal, long owner) {
		List<String> script = new ArrayList<>(
				List.of("sh", "-c", SCRIPT, name, Long.toString(owner), directory.toString(), crashSignal));
		script.addAll(command);
		try {
			return new ProcessBuilder(script).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log(directory).toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + command.get(0), ex);
		}
	}

	/**
	 * Crash the server that a watchdog runs, and wait for both to end.
	 * @param watchdog the watchdog
	 * @param directory the server's directory
	 * @param crashSignal the signal that stops the server at once, without {@code SIG}
	 */
	public static void crash(Process watchdog, Path directory, String crashSignal) {
		if (watchdog.isAlive()) {
			try {
				String pid = Files.readString(directory.resolve(PID_FILE)).trim();
				kill(crashSignal, pid);
			}
			catch (IOException | IllegalStateException ex) {
				// Gone already, or not yet known: ended below
			}
		}
		try {
			if (!watchdog.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
				watchdog.destroyForcibly().waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			watchdog.descendants().forEach(ProcessHandle::destroyForcibly);
		}
	}

	/**
	 * Return the file of a server's directory that takes the output of the server and of
	 * its watchdog.
	 * @param directory the server's directory
	 * @return the log file
	 */
	public static Path log(Path directory) {
		return directory.resolve(LOG_FILE);
	}

	// kill(1) rather than ProcessHandle, which sends only SIGTERM or SIGKILL: PostgreSQL
	// crashes on SIGQUIT
	private static void kill(String signal, String pid) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, pid).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!kill.waitFor(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				kill.destroyForcibly();
				throw new IllegalStateException("kill -" + signal + " " + pid + " did not finish");
			}
			if (kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + pid + " exited with " + kill.exitValue());
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run kill", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running kill", ex);
		}
	}

}
