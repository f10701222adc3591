package dev.idempotency.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import com.github.dockerjava.api.DockerClient;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import org.springframework.util.StringUtils;

/**
 * A Redis container on the host's network, listening on a free port of the loopback
 * interface, so that it keeps its port when stopped and started again and other servers
 * reach it at the same address as the tests do (for replication). Its working directory
 * is a temporary directory of this machine, mounted at the same path, as a
 * {@code redis-server} process of this JVM has. Needs a Docker daemon on this machine
 * that supports host networking (Linux).
 */
final class RedisServerContainer implements StartedRedisServer {

	private static final String HOST = "127.0.0.1";

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

	private static final Set<RedisServerContainer> OPEN = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> OPEN.forEach(RedisServerContainer::close), "redis-container-shutdown"));
	}

	private final GenericContainer<?> container;

	private final int port;

	private final Path directory;

	private final RedisServerSettings settings;

	private boolean frozen;

	private RedisServerContainer(int port, Path directory, RedisServerSettings settings) {
		this.port = port;
		this.directory = directory;
		this.settings = settings;
		this.container = new GenericContainer<>(RedisContainers.IMAGE).withNetworkMode("host")
			.withFileSystemBind(directory.toString(), directory.toString(), BindMode.READ_WRITE)
			.withCommand(settings.command("redis-server", HOST, port, directory).toArray(String[]::new))
			.waitingFor(RedisContainers.ready(settings));
	}

	static RedisServerContainer start(RedisServerSettings settings) {
		checkLocalDocker();
		IllegalStateException failure = null;
		// A free port can be taken by someone else before the server binds it.
		for (int attempt = 0; attempt < 5; attempt++) {
			Path directory = createDirectory();
			settings.prepare(directory);
			RedisServerContainer server = new RedisServerContainer(settings.freePort(), directory, settings);
			try {
				server.container.start();
				OPEN.add(server);
				server.awaitPing();
				return server;
			}
			catch (RuntimeException ex) {
				server.close();
				failure = (ex instanceof IllegalStateException illegalState) ? illegalState
						: new IllegalStateException(server + " did not start", ex);
			}
		}
		throw failure;
	}

	// Writable by whichever user the image runs Redis as.
	private static Path createDirectory() {
		try {
			Path directory = Files.createTempDirectory("redis-server-");
			return Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void checkLocalDocker() {
		URI docker = DockerClientFactory.instance().getTransportConfig().getDockerHost();
		if (!isLocal(docker)) {
			throw new IllegalStateException("A Redis server that a test stops and restarts runs on the host's "
					+ "network, but the Docker daemon is at " + docker + ", not on this machine; install "
					+ "redis-server on the PATH (apt-get install redis-server) instead");
		}
	}

	private static boolean isLocal(URI docker) {
		if ("unix".equals(docker.getScheme()) || "npipe".equals(docker.getScheme())) {
			return true;
		}
		try {
			return docker.getHost() != null && InetAddress.getByName(docker.getHost()).isLoopbackAddress();
		}
		catch (UnknownHostException ex) {
			return false;
		}
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
		String id = this.container.getContainerId();
		return id != null && Boolean.TRUE.equals(docker().inspectContainerCmd(id).exec().getState().getRunning());
	}

	@Override
	public synchronized void restart() {
		if (isRunning()) {
			return;
		}
		docker().startContainerCmd(this.container.getContainerId()).exec();
		awaitPing();
	}

	@Override
	public synchronized void stop() {
		thawIfFrozen();
		if (isRunning()) {
			this.container.getDockerClient()
				.stopContainerCmd(this.container.getContainerId())
				.withTimeout((int) STOP_TIMEOUT.toSeconds())
				.exec();
		}
	}

	@Override
	public synchronized void kill() {
		thawIfFrozen();
		if (isRunning()) {
			String id = this.container.getContainerId();
			docker().killContainerCmd(id).withSignal("KILL").exec();
			// The signal is sent; the container is dead once Docker has seen it exit.
			this.container.getDockerClient()
				.waitContainerCmd(id)
				.start()
				.awaitStatusCode(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		}
	}

	// SIGSTOP from the host, as for a redis-server of this JVM: the port stays open and
	// nothing answers. (Pausing through the cgroup freezer is not available on every
	// machine whose Docker API is podman's.)
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

	private void signal(String signal) {
		if (!isRunning()) {
			throw new IllegalStateException(this + " is not running");
		}
		docker().killContainerCmd(this.container.getContainerId()).withSignal(signal).exec();
	}

	@Override
	public synchronized void close() {
		OPEN.remove(this);
		thawIfFrozen();
		this.container.stop();
		RedisServers.deleteDirectory(this.directory);
	}

	@Override
	public String redisCli(String... arguments) {
		String[] command = StringUtils.concatenateStringArrays(new String[] { "redis-cli" }, arguments);
		ExecResult result;
		try {
			result = this.container.execInContainer(command);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Failed to run redis-cli in " + this, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running redis-cli in " + this, ex);
		}
		if (result.getExitCode() != 0) {
			throw new IllegalStateException(String.join(" ", command) + " exited with " + result.getExitCode() + " in "
					+ this + ":\n" + result.getStdout() + result.getStderr());
		}
		return result.getStdout();
	}

	@Override
	public String toString() {
		return this.settings.describe("Redis container", HOST, this.port);
	}

	// A frozen server would not act on SIGTERM.
	private void thawIfFrozen() {
		if (this.frozen) {
			thaw();
		}
	}

	// Testcontainers exposes docker-java's client as its own API.
	private DockerClient docker() {
		return this.container.getDockerClient();
	}

	private void awaitPing() {
		RedisPing.await(toString(), HOST, this.port, () -> isRunning() ? null : "exited", this.container::getLogs);
	}

}
