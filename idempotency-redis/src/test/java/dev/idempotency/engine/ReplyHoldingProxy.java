package dev.idempotency.engine;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay in front of a Redis server that, once told to, holds back every reply until
 * the client has sent a given number of {@code EVALSHA} commands. A client that awaits a
 * reply before sending its next script never gets there, and times out: the relay proves
 * pipelining by counting, not by timing.
 */
final class ReplyHoldingProxy implements AutoCloseable {

	// How a RESP client sends the command name: a bulk string
	private static final byte[] EVALSHA = "$7\r\nEVALSHA\r\n".getBytes(StandardCharsets.US_ASCII);

	// A script sent in full
	private static final byte[] EVAL = "$4\r\nEVAL\r\n".getBytes(StandardCharsets.US_ASCII);

	private final AtomicInteger evals = new AtomicInteger();

	private final ServerSocket server;

	private final String host;

	private final int port;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Object lock = new Object();

	// Scripts still to come before replies may flow again; 0 while nothing is held
	private int awaited;

	private int sentWhileHeld;

	// Bytes of replies relayed at a time, then a pause: a slow link; 0 relays at once
	private volatile int trickleBytes;

	private volatile long tricklePauseMillis;

	ReplyHoldingProxy(String host, int port) throws IOException {
		this.host = host;
		this.port = port;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "reply-holding-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Hold every reply from now on until the client has sent this many scripts.
	 * @param scripts the number of {@code EVALSHA} commands to wait for
	 */
	void holdRepliesUntil(int scripts) {
		synchronized (this.lock) {
			this.awaited = scripts;
			this.sentWhileHeld = 0;
		}
	}

	/**
	 * Relay replies from now on a few bytes at a time, pausing after each, like a slow
	 * link: every reply arrives soon after the one before it, the last long after the
	 * first.
	 * @param bytes how many bytes to relay at a time
	 * @param pause how long to pause after each
	 */
	void trickleReplies(int bytes, Duration pause) {
		this.tricklePauseMillis = pause.toMillis();
		this.trickleBytes = bytes;
	}

	/**
	 * Return how many scripts the client sent in full ({@code EVAL}) and forget them.
	 * @return the number of scripts sent in full since the last call
	 */
	int takeEvals() {
		return this.evals.getAndSet(0);
	}

	/**
	 * Return how many scripts the client sent while replies were held, the last time.
	 * @return the number of scripts
	 */
	int scriptsSentWhileHeld() {
		synchronized (this.lock) {
			return this.sentWhileHeld;
		}
	}

	private void accept() {
		try {
			while (true) {
				Socket client = this.server.accept();
				Socket upstream = new Socket(this.host, this.port);
				this.sockets.add(client);
				this.sockets.add(upstream);
				relay(client, upstream, true);
				relay(upstream, client, false);
			}
		}
		catch (IOException ex) {
			// Closed
		}
	}

	private void relay(Socket from, Socket to, boolean commands) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16384];
			// The end of the previous read, so a name split between reads is counted
			byte[] window = new byte[buffer.length + EVALSHA.length];
			int carried = 0;
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					if (commands) {
						System.arraycopy(buffer, 0, window, carried, read);
						int length = carried + read;
						sent(count(window, length, EVALSHA));
						// A whole EVAL in the carried end was counted with the read
						// before
						this.evals.addAndGet(count(window, length, EVAL) - count(window, carried, EVAL));
						carried = Math.min(EVALSHA.length - 1, length);
						System.arraycopy(window, length - carried, window, 0, carried);
					}
					else {
						awaitRelease();
					}
					int trickle = commands ? 0 : this.trickleBytes;
					if (trickle == 0) {
						out.write(buffer, 0, read);
						out.flush();
					}
					for (int offset = 0; trickle > 0 && offset < read; offset += trickle) {
						out.write(buffer, offset, Math.min(trickle, read - offset));
						out.flush();
						// The pause of a slow link, not a synchronisation
						Thread.sleep(this.tricklePauseMillis);
					}
				}
			}
			catch (IOException | InterruptedException ex) {
				// Closed
			}
		}, "reply-holding-proxy-relay");
		thread.setDaemon(true);
		thread.start();
	}

	private void sent(int scripts) {
		synchronized (this.lock) {
			if (this.awaited > 0) {
				this.sentWhileHeld += scripts;
				if (this.sentWhileHeld >= this.awaited) {
					this.awaited = 0;
					this.lock.notifyAll();
				}
			}
		}
	}

	private void awaitRelease() throws InterruptedException {
		synchronized (this.lock) {
			while (this.awaited > 0) {
				this.lock.wait();
			}
		}
	}

	private static int count(byte[] bytes, int length, byte[] name) {
		int count = 0;
		for (int i = 0; i + name.length <= length; i++) {
			int j = 0;
			while (j < name.length && bytes[i + j] == name[j]) {
				j++;
			}
			if (j == name.length) {
				count++;
			}
		}
		return count;
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		for (Socket socket : this.sockets) {
			socket.close();
		}
	}

}
