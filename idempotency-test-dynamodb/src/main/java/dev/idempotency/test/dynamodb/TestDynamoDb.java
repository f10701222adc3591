package dev.idempotency.test.dynamodb;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The real DynamoDB-compatible server that tests run against, one per test JVM, found the
 * first time it is asked for, in this order:
 * <ol>
 * <li>the environment variable {@code IDEMPOTENCY_TEST_DYNAMODB_URL}, the endpoint of a
 * running server (for example {@code http://127.0.0.1:4567}), on which tests create their
 * tables and leave them;</li>
 * <li>a dynalite (an open-source DynamoDB on LevelDB, {@code npm install -g
 * dynalite@4.0.0}, Node 20+) started from the machine: {@code dynalite} on the
 * {@code PATH}, else {@code $(npm root -g)/dynalite/cli.js} run with {@code node}; on a
 * free port of 127.0.0.1, its data in memory, tables created and deleted at once. It is
 * killed when the JVM exits, or, by a watchdog process, a second or two after the JVM is
 * killed.</li>
 * </ol>
 * The environment variable {@code IDEMPOTENCY_TEST_DYNAMODB} ({@code url} or
 * {@code binary}) demands one source and fails rather than fall back. When none is
 * available, {@link #get()} fails with a message saying how to get one, and so does every
 * test that needs it: such tests are never skipped. Amazon's DynamoDB Local is not open
 * source and is never used.
 * <p>
 * Clients come from {@link DynamoDbServer#client()}; any credentials and region do.
 */
public final class TestDynamoDb {

	private static @Nullable DynamoDbServer server;

	private TestDynamoDb() {
	}

	/**
	 * Return the server that the tests share, found the first time it is asked for.
	 * @return the server
	 * @throws IllegalStateException if none can be found, with what to do about it
	 */
	public static synchronized DynamoDbServer get() {
		DynamoDbServer found = server;
		if (found == null) {
			found = locate(DynamoDbDiscovery.ofThisMachine());
			System.err.println("Tests use " + found.describe());
			server = found;
		}
		return found;
	}

	/**
	 * Start a dynalite that only the calling test uses, to crash and restart it
	 * ({@link PrivateDynamoDbServer#restart()}), its data on disk in a temporary
	 * directory; the test closes it when done, or it is stopped when the JVM exits. Only
	 * the machine's dynalite gives one, whatever the shared server comes from.
	 * @return the running server
	 * @throws IllegalStateException if dynalite is not found,
	 * {@code IDEMPOTENCY_TEST_DYNAMODB} demands another source, or it does not start
	 */
	public static PrivateDynamoDbServer startPrivateServer() {
		DynamoDbDiscovery.ofThisMachine().privateSource();
		return DynaliteProcess.start(dynalite(), true);
	}

	private static DynamoDbServer locate(DynamoDbDiscovery discovery) {
		return switch (discovery.sharedSource()) {
			case URL -> EndpointServer.given(Objects.requireNonNull(discovery.url()));
			case BINARY -> DynaliteProcess.start(dynalite(), false);
		};
	}

	private static Dynalite dynalite() {
		return Dynalite.find()
			.orElseThrow(() -> new IllegalStateException("dynalite not found: install it (" + Dynalite.INSTALL + ")"));
	}

}
