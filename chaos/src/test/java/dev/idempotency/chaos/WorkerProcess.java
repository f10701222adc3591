package dev.idempotency.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.idempotency.test.jdbc.TestDatabase;

/**
 * One {@link ChaosWorkerApplication} in a JVM of its own, the events delivered to it and
 * not yet answered, and the last lines it printed that were no answer (for failure
 * messages).
 */
final class WorkerProcess {

	private final int number;

	private final Process process;

	private final Writer input;

	private final Map<String, Long> unanswered = new ConcurrentHashMap<>();

	private final Deque<String> otherLines = new ArrayDeque<>();

	private volatile boolean ready;

	private WorkerProcess(int number, Process process) {
		this.number = number;
		this.process = process;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
	}

	/**
	 * Start a worker on a database; each line it answers goes to {@code answers}, and
	 * {@code exited} runs once its output ends (it exited or was killed).
	 */
	static WorkerProcess start(int number, TestDatabase database, String leaseTime, Consumer<String> answers,
			Consumer<WorkerProcess> exited) throws IOException {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx192m",
				"-cp", System.getProperty("java.class.path"), ChaosWorkerApplication.class.getName(),
				"--spring.datasource.url=" + database.url(), "--spring.datasource.username=" + database.username(),
				"--spring.datasource.password=" + database.password(),
				"--spring.datasource.hikari.connection-timeout=5000", "--spring.datasource.hikari.maximum-pool-size=4",
				"--idempotency.store=jdbc", "--idempotency.lock-timeout=" + leaseTime, "--logging.level.root=WARN"));
		ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
		WorkerProcess worker = new WorkerProcess(number, builder.start());
		Thread reader = new Thread(() -> worker.read(answers, exited), "chaos-worker-" + number);
		reader.setDaemon(true);
		reader.start();
		return worker;
	}

	private void read(Consumer<String> answers, Consumer<WorkerProcess> exited) {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.equals("READY")) {
					this.ready = true;
				}
				else if (line.startsWith("ACK ") || line.startsWith("NACK ")) {
					this.unanswered.remove(line.split(" ")[1]);
					answers.accept(line);
				}
				else {
					remember(line);
				}
			}
		}
		catch (IOException ex) {
			remember("output lost: " + ex);
		}
		exited.accept(this);
	}

	private synchronized void remember(String line) {
		this.otherLines.addLast(line);
		if (this.otherLines.size() > 40) {
			this.otherLines.removeFirst();
		}
	}

	synchronized String lastLines() {
		return String.join(System.lineSeparator(), this.otherLines);
	}

	int number() {
		return this.number;
	}

	long pid() {
		return this.process.pid();
	}

	boolean ready() {
		return this.ready && this.process.isAlive();
	}

	/**
	 * The events delivered and not answered, with the {@link System#nanoTime()} of their
	 * delivery.
	 */
	Map<String, Long> unanswered() {
		return this.unanswered;
	}

	/**
	 * Deliver an event; false when the worker's input is closed (it died).
	 */
	boolean deliver(String event) {
		this.unanswered.put(event, System.nanoTime());
		try {
			synchronized (this.input) {
				this.input.write(event + "\n");
				this.input.flush();
			}
			return true;
		}
		catch (IOException ex) {
			this.unanswered.remove(event);
			return false;
		}
	}

	void signal(String signal) throws IOException, InterruptedException {
		Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).inheritIO().start();
		if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
			throw new IllegalStateException("kill -" + signal + " " + pid() + " failed");
		}
	}

	/**
	 * Close its input, so that it finishes and exits, and wait for that.
	 */
	boolean stop() throws InterruptedException {
		try {
			synchronized (this.input) {
				this.input.close();
			}
		}
		catch (IOException ex) {
			// Already gone
		}
		boolean exited = this.process.waitFor(60, TimeUnit.SECONDS);
		this.process.destroyForcibly();
		return exited;
	}

	void destroy() {
		this.process.destroyForcibly();
	}

}
