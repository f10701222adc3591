package dev.idempotency.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a {@code redis-server} of the tests runs as, beyond what every one of them has (a
 * port of its own on one interface, no persistence): a plain server, one with more
 * arguments (a replica, a cluster node), or a sentinel with a configuration file of its
 * own, which it rewrites as it learns the topology.
 */
final class RedisServerSettings {

	static final RedisServerSettings STANDARD = new RedisServerSettings("", List.of(), null, false);

	private static final String SENTINEL_CONFIG = "sentinel.conf";

	private final String label;

	private final List<String> arguments;

	private final @Nullable String sentinelConfig;

	private final boolean clusterBus;

	private RedisServerSettings(String label, List<String> arguments, @Nullable String sentinelConfig,
			boolean clusterBus) {
		this.label = label;
		this.arguments = List.copyOf(arguments);
		this.sentinelConfig = sentinelConfig;
		this.clusterBus = clusterBus;
	}

	/**
	 * A replica of another server.
	 * @param host the host of its primary
	 * @param port the port of its primary
	 * @return the settings
	 */
	static RedisServerSettings replicaOf(String host, int port) {
		return new RedisServerSettings("replica of " + host + ":" + port,
				List.of("--replicaof", host, Integer.toString(port)), null, false);
	}

	/**
	 * A cluster node: its cluster bus listens on its port plus 10000, which must be free
	 * too.
	 * @param arguments the cluster arguments
	 * @return the settings
	 */
	static RedisServerSettings clusterNode(String... arguments) {
		return new RedisServerSettings("cluster node", Arrays.asList(arguments), null, true);
	}

	/**
	 * A sentinel ({@code redis-server <config> --sentinel}).
	 * @param config the first content of its configuration file
	 * @return the settings
	 */
	static RedisServerSettings sentinel(String config) {
		return new RedisServerSettings("sentinel", List.of(), config, false);
	}

	boolean isSentinel() {
		return this.sentinelConfig != null;
	}

	/**
	 * Return a port for the server that is free now (and one whose cluster bus port is
	 * free too, for a cluster node).
	 * @return the port
	 */
	int freePort() {
		return this.clusterBus ? FreePorts.withClusterBus() : FreePorts.any();
	}

	/**
	 * Write what the server needs in its directory before it first starts: a sentinel's
	 * configuration file, writable by whichever user runs it.
	 * @param directory the server's directory
	 */
	void prepare(Path directory) {
		if (this.sentinelConfig == null) {
			return;
		}
		try {
			Path config = directory.resolve(SENTINEL_CONFIG);
			Files.writeString(config, this.sentinelConfig);
			Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-rw-rw-"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the command line of the server.
	 * @param executable the {@code redis-server} to run
	 * @param bind the address to listen on
	 * @param port the port
	 * @param directory its working directory, or {@code null} to keep the default one
	 * @return the command line
	 */
	List<String> command(String executable, String bind, int port, @Nullable Path directory) {
		List<String> command = new ArrayList<>();
		command.add(executable);
		if (this.sentinelConfig != null) {
			if (directory == null) {
				throw new IllegalStateException("A sentinel needs a directory for its configuration file");
			}
			command.add(directory.resolve(SENTINEL_CONFIG).toString());
			command.add("--sentinel");
		}
		// A replica gets its first copy at once, not after the 5 seconds that a primary
		// waits by default for more replicas to share one diskless transfer.
		command.addAll(List.of("--port", Integer.toString(port), "--bind", bind, "--protected-mode", "no", "--save", "",
				"--appendonly", "no", "--daemonize", "no", "--repl-diskless-sync-delay", "0"));
		if (directory != null) {
			command.addAll(List.of("--dir", directory.toString()));
		}
		command.addAll(this.arguments);
		return command;
	}

	/**
	 * Describe the server for messages.
	 * @param server what it is (a {@code redis-server}, a container)
	 * @param host its host
	 * @param port its port
	 * @return the description
	 */
	String describe(String server, String host, int port) {
		return server + (this.label.isEmpty() ? "" : " (" + this.label + ")") + " on " + host + ":" + port;
	}

}
