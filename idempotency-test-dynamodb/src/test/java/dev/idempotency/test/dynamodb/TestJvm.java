package dev.idempotency.test.dynamodb;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A JVM of tests, for {@link JvmEndTests}: takes the shared dynalite and a private one,
 * prints their endpoints and directories, then waits for a line on its input to exit, or
 * to be killed.
 */
final class TestJvm {

	private TestJvm() {
	}

	public static void main(String[] args) throws Exception {
		DynaliteProcess shared = (DynaliteProcess) TestDynamoDb.get();
		DynaliteProcess own = (DynaliteProcess) TestDynamoDb.startPrivateServer();
		System.out.println(shared.endpoint() + " " + shared.directory());
		System.out.println(own.endpoint() + " " + own.directory());
		System.out.flush();
		new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
		System.exit(0);
	}

}
