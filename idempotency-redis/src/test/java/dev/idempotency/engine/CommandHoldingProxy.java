package dev.idempotency.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay in front of a Redis server that, once told to, holds back what the client
 * sends on one of its connections, as a congested network path would: those commands
 * reach Redis only once released, after whatever the client sent meanwhile on its other
 * connections. Replies are relayed as they come.
 */
final class CommandHoldingProxy implements AutoCloseable {

	private static final int NOTHING_HELD = -1;

	private final ServerSocket server;

	private final String host;

	private final int port;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Object lock = new Object();

	private int accepted;

	private int held = NOTHING_HELD;

	CommandHoldingProxy(String host, int port) throws IOException {
		this.host = host;
		this.port = port;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "command-holding-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Return how many connections the client has opened so far.
	 * @return the number of connections, each numbered from 0 in the order opened
	 */
	int connections() {
		synchronized (this.lock) {
			return this.accepted;
		}
	}

	/**
	 * Hold what the client sends on a connection from now on, until released.
	 * @param connection the connection's number, in the order the client opened them
	 */
	void holdCommands(int connection) {
		synchronized (this.lock) {
			this.held = connection;
		}
	}

	/**
	 * Let what was held, and what follows it, go on to Redis.
	 */
	void releaseCommands() {
		synchronized (this.lock) {
			this.held = NOTHING_HELD;
			this.lock.notifyAll();
		}
	}

	private void accept() {
		try {
			while (true) {
				Socket client = this.server.accept();
				Socket upstream = new Socket(this.host, this.port);
				this.sockets.add(client);
				this.sockets.add(upstream);
				int connection;
				synchronized (this.lock) {
					connection = this.accepted++;
				}
				relay(client, upstream, connection);
				relay(upstream, client, NOTHING_HELD);
			}
		}
		catch (IOException ex) {
			// Closed
		}
	}

	private void relay(Socket from, Socket to, int connection) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16384];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitRelease(connection);
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// Closed
			}
		}, "command-holding-proxy-relay");
		thread.setDaemon(true);
		thread.start();
	}

	private void awaitRelease(int connection) throws InterruptedException {
		synchronized (this.lock) {
			while (connection != NOTHING_HELD && this.held == connection) {
				this.lock.wait();
			}
		}
	}

	@Override
	public void close() throws IOException {
		releaseCommands();
		this.server.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
