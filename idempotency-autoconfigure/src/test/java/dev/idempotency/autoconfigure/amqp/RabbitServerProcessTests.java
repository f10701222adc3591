package dev.idempotency.autoconfigure.amqp;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The broker {@link RabbitServerProcess} starts does not outlive the JVM that started it,
 * even one killed without running its shutdown hooks.
 */
class RabbitServerProcessTests {

	@Test
	void brokerAndItsEpmdStopWhenTheirOwnerIsKilled() throws IOException {
		// A stand-in for the JVM, which a test cannot kill
		Process owner = new ProcessBuilder("sleep", "600").start();
		RabbitServerProcess server;
		try {
			server = RabbitServerProcess.start(owner.pid());
		}
		finally {
			owner.destroyForcibly();
		}
		try {
			List<ProcessHandle> broker = server.process().descendants().toList();
			assertThat(broker).isNotEmpty();
			await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
				assertThat(server.process().isAlive()).isFalse();
				assertThat(broker).noneMatch(ProcessHandle::isAlive);
				assertThat(isFree(server.epmdPort())).isTrue();
			});
		}
		finally {
			server.running().stop().run();
		}
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
			return socket.isBound();
		}
		catch (IOException ex) {
			return false;
		}
	}

}
