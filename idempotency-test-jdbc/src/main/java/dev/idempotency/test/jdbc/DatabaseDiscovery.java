package dev.idempotency.test.jdbc;

import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Decides where a database server of the tests comes from, from the environment and from
 * what this machine offers; Docker is asked only when the decision needs it, and once,
 * since asking takes a while.
 */
final class DatabaseDiscovery {

	static final String SOURCE_VARIABLE = "IDEMPOTENCY_TEST_JDBC";

	/**
	 * A class of Testcontainers, to tell whether it is on the classpath without loading
	 * any class that needs it.
	 */
	private static final String TESTCONTAINERS_CLASS = "org.testcontainers.DockerClientFactory";

	private final Function<String, @Nullable String> environment;

	private final BooleanSupplier testcontainersPresent;

	private final BooleanSupplier dockerAnswers;

	private final Predicate<DatabaseKind> binariesFound;

	private @Nullable Boolean docker;

	DatabaseDiscovery(Function<String, @Nullable String> environment, BooleanSupplier testcontainersPresent,
			BooleanSupplier dockerAnswers, Predicate<DatabaseKind> binariesFound) {
		this.environment = environment;
		this.testcontainersPresent = testcontainersPresent;
		this.dockerAnswers = dockerAnswers;
		this.binariesFound = binariesFound;
	}

	/**
	 * Look at this JVM's environment and this machine.
	 * @return the discovery
	 */
	static DatabaseDiscovery ofThisMachine() {
		return new DatabaseDiscovery(System::getenv,
				() -> ClassUtils.isPresent(TESTCONTAINERS_CLASS, DatabaseDiscovery.class.getClassLoader()),
				DatabaseContainers::isDockerAvailable, (kind) -> ServerBinaries.find(kind).isPresent());
	}

	/**
	 * Return the URL of a running server of a kind, if one is given.
	 * @param kind the kind of server
	 * @return the URL, or {@code null}
	 */
	@Nullable String url(DatabaseKind kind) {
		String url = this.environment.apply(kind.urlVariable());
		return (url != null && !url.isBlank()) ? url.trim() : null;
	}

	/**
	 * Decide where the server of a kind that the tests share comes from.
	 * @param kind the kind of server
	 * @return the source
	 * @throws IllegalStateException if none can give one, with what to do about it
	 */
	DatabaseSource sharedSource(DatabaseKind kind) {
		DatabaseSource required = required();
		if (required != null) {
			check(kind, required);
			return required;
		}
		if (url(kind) != null) {
			return DatabaseSource.URL;
		}
		if (docker()) {
			return DatabaseSource.TESTCONTAINERS;
		}
		if (this.binariesFound.test(kind)) {
			return DatabaseSource.BINARY;
		}
		throw new IllegalStateException("These tests need a real " + kind.label() + ", and none was found. Either "
				+ "set " + kind.urlVariable() + " to the JDBC URL of a running server (for example " + kind.exampleUrl()
				+ "); or run a Docker daemon, with org.testcontainers:testcontainers on the test "
				+ "classpath, so that Testcontainers starts " + kind.image() + "; or install the server's binaries "
				+ "(" + ServerBinaries.install(kind) + ") so that the tests start their own.");
	}

	/**
	 * Decide where a server that a test restarts, kills and closes comes from: only the
	 * machine's binaries give one.
	 * @param kind the kind of server
	 * @return {@link DatabaseSource#BINARY}
	 * @throws IllegalStateException if no binaries are found, or another source is
	 * demanded, with what to do about it
	 */
	DatabaseSource privateSource(DatabaseKind kind) {
		DatabaseSource required = required();
		if (required != null && required != DatabaseSource.BINARY) {
			throw new IllegalStateException("This test needs a " + kind.label() + " server of its own, to restart or "
					+ "kill, which only the machine's binaries give, but " + SOURCE_VARIABLE + "=" + required.value()
					+ " demands " + required.description() + ". Unset it or set it to binary, with the binaries "
					+ "installed (" + ServerBinaries.install(kind) + ").");
		}
		if (!this.binariesFound.test(kind)) {
			throw new IllegalStateException("This test needs a " + kind.label() + " server of its own, to restart or "
					+ "kill, which only the machine's binaries give, and they were not found: install them ("
					+ ServerBinaries.install(kind) + ").");
		}
		return DatabaseSource.BINARY;
	}

	private @Nullable DatabaseSource required() {
		String value = this.environment.apply(SOURCE_VARIABLE);
		return (value != null && !value.isBlank()) ? DatabaseSource.of(value) : null;
	}

	private void check(DatabaseKind kind, DatabaseSource required) {
		String demanded = SOURCE_VARIABLE + "=" + required.value() + " demands " + required.description() + " for "
				+ "the " + kind.label() + " of the tests, but ";
		switch (required) {
			case URL -> {
				if (url(kind) == null) {
					throw new IllegalStateException(demanded + kind.urlVariable() + " is not set; set it, for "
							+ "example to " + kind.exampleUrl() + ".");
				}
			}
			case TESTCONTAINERS -> {
				if (!this.testcontainersPresent.getAsBoolean()) {
					throw new IllegalStateException(demanded + "Testcontainers is not on the test classpath: add "
							+ "org.testcontainers:testcontainers as a test dependency.");
				}
				if (!docker()) {
					throw new IllegalStateException(demanded + "no Docker daemon answers (DOCKER_HOST="
							+ this.environment.apply("DOCKER_HOST") + "): start one, or unset " + SOURCE_VARIABLE
							+ " to let the tests find another server.");
				}
			}
			case BINARY -> {
				if (!this.binariesFound.test(kind)) {
					throw new IllegalStateException(demanded + "its binaries were not found: install them ("
							+ ServerBinaries.install(kind) + ").");
				}
			}
		}
	}

	private boolean docker() {
		if (this.docker == null) {
			this.docker = this.testcontainersPresent.getAsBoolean() && this.dockerAnswers.getAsBoolean();
		}
		return this.docker;
	}

}
