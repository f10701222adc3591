package dev.idempotency.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports that are free on this machine now; a server that then fails to bind one (taken by
 * someone else meanwhile) is started again on another.
 */
final class FreePorts {

	// Ports of cluster nodes and their buses (port + 10000) both stay below the usual
	// ephemeral range (32768 and up on Linux), so that no outgoing connection takes a bus
	// port between the check and the node's start.
	private static final int CLUSTER_LOWEST = 12000;

	private static final int CLUSTER_HIGHEST = 22000;

	private static final int CLUSTER_BUS_OFFSET = 10000;

	private FreePorts() {
	}

	/**
	 * Return a port that is free now.
	 * @return the port
	 */
	static int any() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return a port that is free now, and whose cluster bus port (10000 higher) is free
	 * too.
	 * @return the port
	 */
	static int withClusterBus() {
		for (int attempt = 0; attempt < 1000; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(CLUSTER_LOWEST, CLUSTER_HIGHEST);
			if (isFree(port) && isFree(port + CLUSTER_BUS_OFFSET)) {
				return port;
			}
		}
		throw new IllegalStateException("Found no free port between " + CLUSTER_LOWEST + " and " + CLUSTER_HIGHEST
				+ " whose cluster bus port is free too");
	}

	static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
