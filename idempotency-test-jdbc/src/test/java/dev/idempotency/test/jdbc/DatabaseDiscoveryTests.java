package dev.idempotency.test.jdbc;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class DatabaseDiscoveryTests {

	private static final BooleanSupplier YES = () -> true;

	private static final BooleanSupplier NO = () -> false;

	private static final BooleanSupplier NOT_ASKED = () -> {
		throw new AssertionError("asked, but the decision did not need it");
	};

	private static final Predicate<DatabaseKind> FOUND = (kind) -> true;

	private static final Predicate<DatabaseKind> MISSING = (kind) -> false;

	private static final Predicate<DatabaseKind> NOT_LOOKED_FOR = (kind) -> {
		throw new AssertionError("binaries looked for, but the decision did not need them");
	};

	private final Map<String, String> environment = new HashMap<>();

	@Test
	void urlComesFirstAndNothingElseIsAsked() {
		this.environment.put("IDEMPOTENCY_TEST_POSTGRES_URL", " jdbc:postgresql://db:5432/test?user=postgres ");
		DatabaseDiscovery discovery = discovery(NOT_ASKED, NOT_ASKED, NOT_LOOKED_FOR);
		assertThat(discovery.sharedSource(DatabaseKind.POSTGRESQL)).isEqualTo(DatabaseSource.URL);
		assertThat(discovery.url(DatabaseKind.POSTGRESQL)).isEqualTo("jdbc:postgresql://db:5432/test?user=postgres");
	}

	@Test
	void eachKindHasItsOwnUrl() {
		this.environment.put("IDEMPOTENCY_TEST_MARIADB_URL", "jdbc:mariadb://db:3306/test?user=root");
		DatabaseDiscovery discovery = discovery(YES, NO, FOUND);
		assertThat(discovery.sharedSource(DatabaseKind.MARIADB)).isEqualTo(DatabaseSource.URL);
		assertThat(discovery.sharedSource(DatabaseKind.POSTGRESQL)).isEqualTo(DatabaseSource.BINARY);
	}

	@Test
	void testcontainersComesBeforeTheBinariesWhenDockerAnswers() {
		assertThat(discovery(YES, YES, NOT_LOOKED_FOR).sharedSource(DatabaseKind.MARIADB))
			.isEqualTo(DatabaseSource.TESTCONTAINERS);
	}

	@Test
	void binariesComeWhenDockerDoesNotAnswer() {
		assertThat(discovery(YES, NO, FOUND).sharedSource(DatabaseKind.POSTGRESQL)).isEqualTo(DatabaseSource.BINARY);
	}

	@Test
	void dockerIsNotAskedWithoutTestcontainers() {
		assertThat(discovery(NO, NOT_ASKED, FOUND).sharedSource(DatabaseKind.POSTGRESQL))
			.isEqualTo(DatabaseSource.BINARY);
	}

	@Test
	void dockerIsAskedOnceForBothKinds() {
		int[] asked = new int[1];
		DatabaseDiscovery discovery = discovery(YES, () -> ++asked[0] < 0, FOUND);
		discovery.sharedSource(DatabaseKind.POSTGRESQL);
		discovery.sharedSource(DatabaseKind.MARIADB);
		assertThat(asked[0]).isOne();
	}

	@Test
	void nothingAvailableFailsSayingHowToGetAServer() {
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, NO, MISSING).sharedSource(DatabaseKind.MARIADB))
			.withMessageStartingWith("These tests need a real MariaDB, and none was found.")
			.withMessageContaining("set IDEMPOTENCY_TEST_MARIADB_URL to the JDBC URL of a running server (for "
					+ "example jdbc:mariadb://127.0.0.1:3306/test?user=root)")
			.withMessageContaining("Testcontainers starts mariadb:11")
			.withMessageContaining("apt-get install mariadb-server");
	}

	@Test
	void demandedBinaryWinsOverAUrlAndDocker() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, " Binary ");
		this.environment.put("IDEMPOTENCY_TEST_POSTGRES_URL", "jdbc:postgresql://db:5432/test?user=postgres");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, FOUND).sharedSource(DatabaseKind.POSTGRESQL))
			.isEqualTo(DatabaseSource.BINARY);
	}

	@Test
	void demandedBinaryFailsWithoutBinariesRatherThanFallBack() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "binary");
		this.environment.put("IDEMPOTENCY_TEST_POSTGRES_URL", "jdbc:postgresql://db:5432/test?user=postgres");
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, YES, MISSING).sharedSource(DatabaseKind.POSTGRESQL))
			.withMessageStartingWith("IDEMPOTENCY_TEST_JDBC=binary demands a server started from the machine's "
					+ "binaries for the PostgreSQL of the tests, but its binaries were not found")
			.withMessageContaining("apt-get install postgresql");
	}

	@Test
	void demandedUrlFailsWithoutOne() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "url");
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, YES, FOUND).sharedSource(DatabaseKind.POSTGRESQL))
			.withMessageContaining("IDEMPOTENCY_TEST_POSTGRES_URL is not set");
	}

	@Test
	void demandedTestcontainersFailsWithoutDocker() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "testcontainers");
		this.environment.put("DOCKER_HOST", "unix:///nowhere.sock");
		assertThatIllegalStateException().isThrownBy(() -> discovery(YES, NO, FOUND).sharedSource(DatabaseKind.MARIADB))
			.withMessageContaining("no Docker daemon answers (DOCKER_HOST=unix:///nowhere.sock)");
	}

	@Test
	void demandedTestcontainersFailsWithoutTestcontainers() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "testcontainers");
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(NO, NOT_ASKED, FOUND).sharedSource(DatabaseKind.MARIADB))
			.withMessageContaining("Testcontainers is not on the test classpath");
	}

	@Test
	void unknownDemandFails() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "docker");
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, YES, FOUND).sharedSource(DatabaseKind.MARIADB))
			.withMessage("IDEMPOTENCY_TEST_JDBC='docker' is not one of url, testcontainers or binary");
	}

	@Test
	void privateServersComeFromTheBinariesEvenWithAUrl() {
		this.environment.put("IDEMPOTENCY_TEST_POSTGRES_URL", "jdbc:postgresql://db:5432/test?user=postgres");
		assertThat(discovery(NOT_ASKED, NOT_ASKED, FOUND).privateSource(DatabaseKind.POSTGRESQL))
			.isEqualTo(DatabaseSource.BINARY);
	}

	@Test
	void privateServersFailWithoutBinariesSayingTheyNeedThem() {
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, YES, MISSING).privateSource(DatabaseKind.POSTGRESQL))
			.withMessageContaining("which only the machine's binaries give, and they were not found")
			.withMessageContaining("apt-get install postgresql");
	}

	@Test
	void privateServersFailWhenAnotherSourceIsDemanded() {
		this.environment.put(DatabaseDiscovery.SOURCE_VARIABLE, "testcontainers");
		assertThatIllegalStateException()
			.isThrownBy(() -> discovery(YES, YES, FOUND).privateSource(DatabaseKind.MARIADB))
			.withMessageContaining("only the machine's binaries give, but IDEMPOTENCY_TEST_JDBC=testcontainers");
	}

	private DatabaseDiscovery discovery(BooleanSupplier testcontainersPresent, BooleanSupplier dockerAnswers,
			Predicate<DatabaseKind> binariesFound) {
		return new DatabaseDiscovery(this.environment::get, testcontainersPresent, dockerAnswers, binariesFound);
	}

}
