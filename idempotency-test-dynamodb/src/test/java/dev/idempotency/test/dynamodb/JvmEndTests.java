package dev.idempotency.test.dynamodb;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dynalites of a test JVM, shared and private, do not outlive it, whether it exits
 * (its shutdown hook kills them) or is killed with {@code kill -9} (their watchdogs do).
 */
class JvmEndTests {

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void dynalitesEndAndTheirDirectoriesAreDeletedWithTheirJvm(boolean killed) throws Exception {
		ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-cp", System.getProperty("java.class.path"), TestJvm.class.getName())
			.redirectError(ProcessBuilder.Redirect.INHERIT);
		builder.environment().put(DynamoDbDiscovery.SOURCE_VARIABLE, "binary");
		Process jvm = builder.start();
		try {
			List<String[]> servers = new ArrayList<>();
			BufferedReader output = new BufferedReader(
					new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8));
			for (int i = 0; i < 2; i++) {
				String line = output.readLine();
				assertThat(line).as("the test JVM's servers").isNotNull();
				servers.add(line.split(" "));
			}
			for (String[] server : servers) {
				assertThat(answers(URI.create(server[0]))).as(server[0]).isTrue();
				assertThat(Path.of(server[1])).isDirectory();
			}
			if (killed) {
				jvm.destroyForcibly();
			}
			else {
				try (OutputStream input = jvm.getOutputStream()) {
					input.write('\n');
				}
			}
			assertThat(jvm.waitFor(30, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				for (String[] server : servers) {
					assertThat(answers(URI.create(server[0]))).as(server[0]).isFalse();
					assertThat(Path.of(server[1])).doesNotExist();
				}
			});
		}
		finally {
			jvm.destroyForcibly();
		}
	}

	private static boolean answers(URI endpoint) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 1000);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
