package dev.idempotency.autoconfigure.amqp;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.rabbitmq.client.ConnectionFactory;

/**
 * A {@code rabbitmq-server} of this JVM, in a temporary directory of its own: its own
 * node name, AMQP, distribution and {@code epmd} ports (free ones, on the loopback
 * interface, never the machine's broker on 5672 or its {@code epmd} on 4369), database,
 * logs, configuration and a {@code HOME} for its Erlang cookie; no plugins.
 */
final class RabbitServerProcess {

	private static final String HOST = "127.0.0.1";

	private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

	// Runs the broker ($1) and stops it, and the epmd it started, once the JVM that
	// started it ($2) is gone: a JVM that is killed runs no shutdown hook, and the
	// broker and epmd would otherwise outlive it, holding their ports for good
	private static final String WATCHDOG = """
			"$1" &
			broker=$!
			trap 'kill -TERM "$broker" 2>/dev/null; wait "$broker"; exit 0' TERM
			while kill -0 "$2" 2>/dev/null && kill -0 "$broker" 2>/dev/null; do sleep 1; done
			kill -TERM "$broker" 2>/dev/null
			wait "$broker"
			epmd -port "$ERL_EPMD_PORT" -kill >/dev/null 2>&1
			""";

	private final Process process;

	private final Path directory;

	private final int port;

	private final int epmdPort;

	private final Map<String, String> environment;

	private RabbitServerProcess(Process process, Path directory, int port, int epmdPort,
			Map<String, String> environment) {
		this.process = process;
		this.directory = directory;
		this.port = port;
		this.epmdPort = epmdPort;
		this.environment = Map.copyOf(environment);
	}

	/**
	 * Find {@code rabbitmq-server} on the {@code PATH}. Debian's {@code /usr/sbin} one is
	 * a wrapper that, run as root, becomes the {@code rabbitmq} user with its home (and
	 * the machine's cookie): the script it wraps, in {@code /usr/lib/rabbitmq/bin}, is
	 * taken instead.
	 * @return the script to run, if any
	 */
	static Optional<Path> findBinary() {
		String path = System.getenv("PATH");
		if (path == null) {
			return Optional.empty();
		}
		return Stream.of(path.split(File.pathSeparator))
			.filter((directory) -> !directory.isEmpty())
			.map((directory) -> Path.of(directory, "rabbitmq-server"))
			.filter(Files::isExecutable)
			.findFirst()
			.map(RabbitServerProcess::unwrapped);
	}

	private static Path unwrapped(Path binary) {
		Path wrapped = binary.toAbsolutePath().getParent().resolveSibling("lib/rabbitmq/bin/rabbitmq-server");
		return Files.isExecutable(wrapped) ? wrapped : binary;
	}

	/**
	 * Start a broker and wait until it accepts AMQP connections.
	 * @return the running broker, stopped by {@link TestRabbit.Running#stop()}
	 */
	static TestRabbit.Running start() {
		return start(ProcessHandle.current().pid()).running();
	}

	/**
	 * Start a broker that lives no longer than the given process, and wait until it
	 * accepts AMQP connections.
	 * @param ownerPid the process whose end stops the broker
	 * @return the running broker
	 */
	static RabbitServerProcess start(long ownerPid) {
		Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
				"No rabbitmq-server on the PATH; install one (apt-get install rabbitmq-server)"));
		IllegalStateException failure = null;
		// A free port can be taken by someone else before the broker binds it
		for (int attempt = 0; attempt < 3; attempt++) {
			RabbitServerProcess server = launch(binary, ownerPid);
			try {
				server.awaitReady();
				return server;
			}
			catch (IllegalStateException ex) {
				server.stop();
				failure = ex;
			}
		}
		throw failure;
	}

	TestRabbit.Running running() {
		return new TestRabbit.Running("amqp://guest:guest@" + HOST + ":" + this.port, this::stop);
	}

	Process process() {
		return this.process;
	}

	int epmdPort() {
		return this.epmdPort;
	}

	private static RabbitServerProcess launch(Path binary, long ownerPid) {
		Path directory = createDirectory();
		int port = freePort();
		int epmdPort = freePort();
		try {
			Files.writeString(directory.resolve("rabbitmq.conf"), "");
			Files.writeString(directory.resolve("rabbitmq-env.conf"), "");
			Files.writeString(directory.resolve("enabled_plugins"), "[].");
			ProcessBuilder builder = new ProcessBuilder("sh", "-c", WATCHDOG, "rabbitmq-watchdog", binary.toString(),
					Long.toString(ownerPid))
				.directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("console.log").toFile());
			Map<String, String> environment = builder.environment();
			environment.keySet().removeIf((name) -> name.startsWith("RABBITMQ_") || name.startsWith("ERL_"));
			environment.put("HOME", directory.toString());
			environment.put("RABBITMQ_NODENAME",
					"idempotency-test-" + UUID.randomUUID().toString().substring(0, 8) + "@localhost");
			environment.put("RABBITMQ_NODE_IP_ADDRESS", HOST);
			environment.put("RABBITMQ_NODE_PORT", Integer.toString(port));
			environment.put("RABBITMQ_DIST_PORT", Integer.toString(freePort()));
			environment.put("ERL_EPMD_PORT", Integer.toString(epmdPort));
			environment.put("ERL_EPMD_ADDRESS", HOST);
			environment.put("RABBITMQ_CONF_ENV_FILE", directory.resolve("rabbitmq-env.conf").toString());
			environment.put("RABBITMQ_CONFIG_FILE", directory.resolve("rabbitmq.conf").toString());
			environment.put("RABBITMQ_ENABLED_PLUGINS_FILE", directory.resolve("enabled_plugins").toString());
			environment.put("RABBITMQ_MNESIA_BASE", directory.resolve("mnesia").toString());
			environment.put("RABBITMQ_LOG_BASE", directory.resolve("log").toString());
			environment.put("RABBITMQ_PID_FILE", directory.resolve("rabbitmq.pid").toString());
			return new RabbitServerProcess(builder.start(), directory, port, epmdPort, environment);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + binary, ex);
		}
	}

	/**
	 * Run {@code rabbitmqctl} against this broker (its node, cookie and {@code epmd}),
	 * and return what it printed.
	 * @param arguments the command and its arguments
	 * @return the output
	 */
	String rabbitmqctl(String... arguments) {
		Path binary = findBinary().orElseThrow().resolveSibling("rabbitmqctl");
		List<String> command = new ArrayList<>(
				List.of(binary.toString(), "-n", this.environment.get("RABBITMQ_NODENAME")));
		command.addAll(List.of(arguments));
		ProcessBuilder builder = new ProcessBuilder(command).directory(this.directory.toFile())
			.redirectErrorStream(true);
		builder.environment().keySet().removeIf((name) -> name.startsWith("RABBITMQ_") || name.startsWith("ERL_"));
		builder.environment().putAll(this.environment);
		try {
			Process ctl = builder.start();
			String output = new String(ctl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!ctl.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || ctl.exitValue() != 0) {
				ctl.destroyForcibly();
				throw new IllegalStateException("rabbitmqctl " + String.join(" ", arguments) + " failed:\n" + output);
			}
			return output;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running rabbitmqctl", ex);
		}
	}

	private void awaitReady() {
		ConnectionFactory factory = new ConnectionFactory();
		factory.setHost(HOST);
		factory.setPort(this.port);
		factory.setConnectionTimeout(1000);
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		Exception last = null;
		while (System.nanoTime() < deadline) {
			if (!this.process.isAlive()) {
				throw new IllegalStateException(
						"rabbitmq-server exited with " + this.process.exitValue() + ":\n" + console());
			}
			try {
				factory.newConnection().close();
				return;
			}
			catch (Exception ex) {
				last = ex;
			}
			pause();
		}
		throw new IllegalStateException("rabbitmq-server did not accept connections on port " + this.port + " within "
				+ START_TIMEOUT + " (" + last + "):\n" + console(), last);
	}

	/**
	 * Stop the broker (the script runs the Erlang VM as its child), the {@code epmd} it
	 * started (a daemon of its own, on its own port), and delete its directory.
	 */
	private void stop() {
		this.process.descendants().forEach(ProcessHandle::destroy);
		this.process.destroy();
		awaitExit(this.process.toHandle());
		this.process.descendants().forEach(ProcessHandle::destroyForcibly);
		killEpmd();
		deleteDirectory();
	}

	private static void awaitExit(ProcessHandle handle) {
		try {
			handle.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			handle.destroyForcibly();
		}
	}

	private void killEpmd() {
		try {
			Process kill = new ProcessBuilder("epmd", "-port", Integer.toString(this.epmdPort), "-kill")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!kill.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				kill.destroyForcibly();
			}
		}
		catch (IOException ex) {
			// No epmd on the PATH: it ran from Erlang's own directory; it holds only a
			// port
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private String console() {
		try {
			return Files.readString(this.directory.resolve("console.log"));
		}
		catch (IOException ex) {
			return "(no console output: " + ex.getMessage() + ")";
		}
	}

	private void deleteDirectory() {
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
		}
		catch (IOException ex) {
			// Left in the temporary directory
		}
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("rabbitmq-server-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void pause() {
		try {
			Thread.sleep(200);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for rabbitmq-server", ex);
		}
	}

}
