package dev.idempotency.test.dynamodb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A dynalite does not outlive the JVM that started it, even one killed without running
 * its shutdown hooks; and it is found under {@code npm root -g} when not on the
 * {@code PATH}.
 */
class DynaliteProcessTests {

	@Test
	void serverStopsAndItsDirectoryIsDeletedWhenItsOwnerIsKilled() throws IOException {
		// A stand-in for the JVM, which a test cannot kill
		Process owner = new ProcessBuilder("sleep", "600").start();
		DynaliteProcess server;
		try {
			server = DynaliteProcess.start(Dynalite.find().orElseThrow(), true, owner.pid());
		}
		catch (RuntimeException ex) {
			owner.destroyForcibly();
			throw ex;
		}
		try {
			Process watchdog = server.watchdog();
			assertThat(watchdog).isNotNull();
			List<ProcessHandle> processes = watchdog.descendants().toList();
			assertThat(processes).anyMatch((process) -> process.info().command().orElse("").contains("node"));
			assertThat(server.directory().resolve("data")).isDirectory();
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
	void dynaliteIsFoundUnderTheNpmRootWhenNotOnThePath(@TempDir Path bin) throws IOException {
		// A PATH with node and npm, and no dynalite
		for (String program : new String[] { "node", "npm" }) {
			Path real = Commands.onPath(program, System.getenv("PATH")).orElseThrow();
			Files.createSymbolicLink(bin.resolve(program), real.toRealPath());
		}
		Dynalite dynalite = Dynalite.lookUp(bin.toString()).orElseThrow();
		assertThat(dynalite.toString()).endsWith("/dynalite/cli.js");
		assertThat(dynalite.command("127.0.0.1", 4567, null).get(0)).startsWith(bin.toString());
		try (DynaliteProcess server = DynaliteProcess.start(dynalite, false); DynamoDbClient client = server.client()) {
			String table = Tables.create(client);
			Tables.put(client, table, "k1", "v1");
			assertThat(Tables.get(client, table, "k1")).isEqualTo("v1");
		}
	}

	@Test
	void npmWarningsDoNotHideTheNpmRoot(@TempDir Path bin) throws IOException {
		// npm warns on its standard error, about an unknown npm_config_* variable for
		// example, while printing the root on its standard output
		Path node = Commands.onPath("node", System.getenv("PATH")).orElseThrow();
		Path npm = Commands.onPath("npm", System.getenv("PATH")).orElseThrow();
		Files.createSymbolicLink(bin.resolve("node"), node.toRealPath());
		Files.writeString(bin.resolve("npm"),
				"#!/bin/sh\necho 'npm warn Unknown env config \"foo\"' >&2\nexec '" + npm + "' \"$@\"\n");
		assertThat(bin.resolve("npm").toFile().setExecutable(true)).isTrue();
		Dynalite dynalite = Dynalite.lookUp(bin.toString()).orElseThrow();
		assertThat(dynalite.toString()).endsWith("/dynalite/cli.js");
	}

	@Test
	void nothingIsFoundWithoutDynaliteOrNode(@TempDir Path empty) {
		assertThat(Dynalite.lookUp(empty.toString())).isEmpty();
		assertThat(Dynalite.lookUp(null)).isEmpty();
	}

}
