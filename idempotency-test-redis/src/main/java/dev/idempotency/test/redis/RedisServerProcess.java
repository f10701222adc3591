package dev.idempotency.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} process of this JVM, on a free port of the loopback interface,
 * without persistence, in its own temporary directory.
 */
final class RedisServerProcess implements StartedRedisServer {

	private static final String HOST = "127.0.0.1";

	private static final Duration CLI_TIMEOUT = Duration.ofSeconds(60);

	private static final Set<RedisServerProcess> RUNNING = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServerProcess::close), "redis-server-shutdown"));
	}

	private final Path binary;

	private final Path directory;

	private final int port;

	private final RedisServerSettings settings;

	private @Nullable Process process;

	private boolean frozen;

	private RedisServerProcess(Path binary, Path directory, int port, RedisServerSettings settings) {
		this.binary = binary;
		this.directory = directory;
		this.port = port;
		this.settings = settings;
	}

	/**
	 * Start a new {@code redis-server} from the {@code PATH} on a free port.
	 * @return the running server
	 * @throws IllegalStateException if there is no {@code redis-server} on the
	 * {@code PATH} or it does not start
	 */
	static RedisServerProcess start() {
		return start(RedisServerSettings.STANDARD);
	}

	/**
	 * Start a new {@code redis-server} from the {@code PATH} on a free port.
	 * @param settings what it runs as
	 * @return the running server
	 * @throws IllegalStateException if there is no {@code redis-server} on the
	 * {@code PATH} or it does not start
	 */
	static RedisServerProcess start(RedisServerSettings settings) {
		Path binary = findBinary().orElseThrow(() -> new IllegalStateException(
				"No redis-server on the PATH; install one (apt-get install redis-server)"));
		Path directory = createDirectory();
		settings.prepare(directory);
		IllegalStateException failure = null;
		// A free port can be taken by someone else before the server binds it.
		for (int attempt = 0; attempt < 5; attempt++) {
			RedisServerProcess server = new RedisServerProcess(binary, directory, settings.freePort(), settings);
			try {
				server.restart();
				return server;
			}
			catch (IllegalStateException ex) {
				failure = ex;
			}
		}
		RedisServers.deleteDirectory(directory);
		throw failure;
	}

	/**
	 * Find {@code redis-server} on the {@code PATH}.
	 * @return its path, if any
	 */
	static Optional<Path> findBinary() {
		return Processes.findOnPath("redis-server");
	}

	@Override
	public String host() {
		return HOST;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public synchronized boolean isRunning() {
		return this.process != null && this.process.isAlive();
	}

	@Override
	public synchronized void restart() {
		if (isRunning()) {
			return;
		}
		Path log = this.directory.resolve("redis.log");
		ProcessBuilder builder = new ProcessBuilder(
				this.settings.command(this.binary.toString(), HOST, this.port, this.directory))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
		Process process;
		try {
			process = builder.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run " + this.binary, ex);
		}
		this.process = process;
		RUNNING.add(this);
		try {
			RedisPing.await(toString(), HOST, this.port,
					() -> process.isAlive() ? null : "exited with " + process.exitValue(), () -> Processes.read(log));
		}
		catch (IllegalStateException ex) {
			kill();
			throw ex;
		}
	}

	@Override
	public synchronized void stop() {
		// A frozen process would not act on SIGTERM
		if (this.frozen) {
			thaw();
		}
		Process process = this.process;
		if (process != null) {
			process.destroy();
			Processes.awaitExit(process);
		}
		this.process = null;
		this.frozen = false;
		RUNNING.remove(this);
	}

	@Override
	public synchronized void kill() {
		Process process = this.process;
		if (process != null) {
			process.destroyForcibly();
			Processes.awaitExit(process);
		}
		this.process = null;
		this.frozen = false;
		RUNNING.remove(this);
	}

	@Override
	public synchronized void freeze() {
		signal("STOP");
		this.frozen = true;
	}

	@Override
	public synchronized void thaw() {
		signal("CONT");
		this.frozen = false;
	}

	@Override
	public synchronized void close() {
		stop();
		RedisServers.deleteDirectory(this.directory);
	}

	@Override
	public String redisCli(String... arguments) {
		Path cli = Processes.findOnPath("redis-cli")
			.orElseThrow(() -> new IllegalStateException(
					"No redis-cli on the PATH; install one (apt-get install redis-tools)"));
		List<String> command = new ArrayList<>();
		command.add(cli.toString());
		command.addAll(List.of(arguments));
		return Processes.run(command, this.directory.resolve("redis-cli.out"), CLI_TIMEOUT);
	}

	@Override
	public String toString() {
		return this.settings.describe("redis-server", HOST, this.port);
	}

	private void signal(String signal) {
		Process process = this.process;
		if (process == null) {
			throw new IllegalStateException(this + " is not running");
		}
		Processes.signal(process, signal, this);
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("redis-server-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
