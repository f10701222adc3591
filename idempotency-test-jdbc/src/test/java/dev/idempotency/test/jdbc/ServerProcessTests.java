package dev.idempotency.test.jdbc;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A server started from the binaries does not outlive the JVM that started it, even one
 * killed without running its shutdown hooks.
 */
class ServerProcessTests {

	@ParameterizedTest
	@EnumSource(DatabaseKind.class)
	void serverStopsAndItsDataIsDeletedWhenItsOwnerIsKilled(DatabaseKind kind) throws IOException {
		// A stand-in for the JVM, which a test cannot kill
		Process owner = new ProcessBuilder("sleep", "600").start();
		ServerProcess server;
		try {
			server = ServerProcess.start(ServerBinaries.find(kind).orElseThrow(), owner.pid());
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

}
