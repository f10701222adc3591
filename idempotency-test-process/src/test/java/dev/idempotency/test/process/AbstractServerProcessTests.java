package dev.idempotency.test.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A server of the JVM lives in its own directory, restarts under a new watchdog, is gone
 * with its directory once closed or once its owner is killed without running a shutdown
 * hook, and leaves nothing behind when it never starts. The server is a shell that
 * records its port and waits: what is under test is its life, not what it serves.
 */
class AbstractServerProcessTests {

	@Test
	void serverStopsAndItsDirectoryIsDeletedWhenItsOwnerIsKilled() throws IOException {
		// A stand-in for the JVM, which a test cannot kill
		Process owner = new ProcessBuilder("sleep", "600").start();
		WaitingServer server;
		try {
			server = WaitingServer.start(owner.pid(), true);
		}
		catch (RuntimeException ex) {
			owner.destroyForcibly();
			throw ex;
		}
		try {
			Process watchdog = server.watchdog();
			assertThat(watchdog).isNotNull();
			List<ProcessHandle> processes = watchdog.descendants().toList();
			assertThat(processes).isNotEmpty();
			assertThat(watchdog.info().arguments().orElse(new String[0])).contains("test-watchdog");
			owner.destroyForcibly();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				assertThat(watchdog.isAlive()).isFalse();
				assertThat(processes).noneMatch(ProcessHandle::isAlive);
				assertThat(server.directory()).doesNotExist();
			});
		}
		finally {
			server.close();
		}
	}

	@Test
	void restartCrashesTheServerAndStartsItOnTheSamePortUnderANewWatchdog() throws IOException {
		try (WaitingServer server = WaitingServer.start(ProcessHandle.current().pid(), true)) {
			Process before = server.watchdog();
			server.restart();
			assertThat(server.watchdog()).isNotSameAs(before);
			assertThat(before.isAlive()).isFalse();
			assertThat(server.watchdog().isAlive()).isTrue();
			assertThat(Files.readAllLines(server.directory().resolve("ports"))).hasSize(2)
				.containsOnly(Integer.toString(server.port()));
		}
	}

	@Test
	void closeStopsTheServerAndDeletesItsDirectory() {
		WaitingServer server = WaitingServer.start(ProcessHandle.current().pid(), true);
		Process watchdog = server.watchdog();
		List<ProcessHandle> processes = watchdog.descendants().toList();
		server.close();
		assertThat(watchdog.isAlive()).isFalse();
		assertThat(server.directory()).doesNotExist();
		// The watcher's last "sleep 1" may outlive it by a second
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(processes).noneMatch(ProcessHandle::isAlive));
	}

	@Test
	void aServerThatNeverStartsFailsWithItsLogAndLeavesNoDirectory() {
		assertThatIllegalStateException().isThrownBy(() -> WaitingServer.start(ProcessHandle.current().pid(), false))
			.withMessageContaining("exited with 3")
			.withMessageContaining("no luck on");
		assertThat(WaitingServer.DIRECTORIES).hasSize(1)
			.allSatisfy((directory) -> assertThat(directory).doesNotExist());
		assertThat(WaitingServer.PORTS).hasSize(3);
	}

	/**
	 * A shell that appends its port to {@code ports} in its directory and waits, or, when
	 * it must fail, says so and exits.
	 */
	static final class WaitingServer extends AbstractServerProcess {

		static final List<Path> DIRECTORIES = new CopyOnWriteArrayList<>();

		static final List<Integer> PORTS = new CopyOnWriteArrayList<>();

		private final boolean starts;

		private int launches;

		private WaitingServer(Path directory, int port, long owner, boolean starts) {
			super("test-watchdog", directory, port, owner);
			this.starts = starts;
		}

		static WaitingServer start(long owner, boolean starts) {
			DIRECTORIES.clear();
			PORTS.clear();
			return start("idempotency-process-test-", (directory) -> {
				DIRECTORIES.add(directory);
				return (port) -> {
					PORTS.add(port);
					return new WaitingServer(directory, port, owner, starts);
				};
			});
		}

		@Override
		protected List<String> command() {
			this.launches++;
			String script = this.starts ? "echo \"$1\" >> \"$2/ports\"; exec sleep 600"
					: "echo \"no luck on $1\"; exit 3";
			return List.of("sh", "-c", script, "server", Integer.toString(port()), directory().toString());
		}

		@Override
		protected void awaitReady(Supplier<@Nullable String> exited, Supplier<String> log) {
			Readiness.await(describe(), Duration.ofSeconds(30), Duration.ofMillis(20), () -> {
				if (!started()) {
					throw new IllegalStateException("not started yet");
				}
			}, exited, log);
		}

		// Each launch appends a line
		private boolean started() {
			try {
				Path file = directory().resolve("ports");
				return Files.exists(file) && Files.readAllLines(file).size() == this.launches;
			}
			catch (IOException ex) {
				return false;
			}
		}

		@Override
		protected String crashSignal() {
			return "KILL";
		}

		@Override
		public String describe() {
			return "a waiting shell on " + HOST + ":" + port() + " in " + directory();
		}

	}

}
