package dev.idempotency.test.dynamodb;

import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class DynamoDbDiscoveryTests {

	private static final BooleanSupplier FOUND = () -> true;

	private static final BooleanSupplier MISSING = () -> false;

	private static final BooleanSupplier NOT_LOOKED_FOR = () -> {
		throw new AssertionError("dynalite looked for, but the decision did not need it");
	};

	private final Map<String, String> environment = new HashMap<>();

	@Test
	void urlComesFirstAndDynaliteIsNotLookedFor() {
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", " http://dynamodb:8000 ");
		DynamoDbDiscovery discovery = discovery(NOT_LOOKED_FOR);
		assertThat(discovery.sharedSource()).isEqualTo(DynamoDbSource.URL);
		assertThat(discovery.url()).isEqualTo("http://dynamodb:8000");
	}

	@Test
	void blankUrlIsNone() {
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "  ");
		assertThat(discovery(FOUND).sharedSource()).isEqualTo(DynamoDbSource.BINARY);
	}

	@Test
	void dynaliteComesWithoutAUrl() {
		assertThat(discovery(FOUND).sharedSource()).isEqualTo(DynamoDbSource.BINARY);
	}

	@Test
	void nothingAvailableFailsSayingHowToGetAServer() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(MISSING).sharedSource())
			.withMessageStartingWith("These tests need a real DynamoDB-compatible server, and none was found.")
			.withMessageContaining("set IDEMPOTENCY_TEST_DYNAMODB_URL to the endpoint of a running one (for example "
					+ "http://127.0.0.1:4567)")
			.withMessageContaining("npm install -g dynalite@4.0.0")
			.withMessageContaining("Node 20+");
	}

	@Test
	void demandedBinaryWinsOverAUrl() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, " Binary ");
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "http://dynamodb:8000");
		assertThat(discovery(FOUND).sharedSource()).isEqualTo(DynamoDbSource.BINARY);
	}

	@Test
	void demandedBinaryFailsWithoutDynaliteRatherThanFallBack() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, "binary");
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "http://dynamodb:8000");
		assertThatIllegalStateException().isThrownBy(() -> discovery(MISSING).sharedSource())
			.withMessageStartingWith("IDEMPOTENCY_TEST_DYNAMODB=binary demands a dynalite started from the machine "
					+ "for the DynamoDB of the tests, but dynalite was not found")
			.withMessageContaining("npm install -g dynalite@4.0.0");
	}

	@Test
	void demandedUrlWinsOverDynalite() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, "url");
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "http://dynamodb:8000");
		assertThat(discovery(NOT_LOOKED_FOR).sharedSource()).isEqualTo(DynamoDbSource.URL);
	}

	@Test
	void demandedUrlFailsWithoutOneRatherThanFallBack() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, "url");
		assertThatIllegalStateException().isThrownBy(() -> discovery(FOUND).sharedSource())
			.withMessage("IDEMPOTENCY_TEST_DYNAMODB=url demands a running server given by its endpoint for the "
					+ "DynamoDB of the tests, but IDEMPOTENCY_TEST_DYNAMODB_URL is not set; set it, for example to "
					+ "http://127.0.0.1:4567.");
	}

	@Test
	void unknownDemandFails() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, "testcontainers");
		assertThatIllegalStateException().isThrownBy(() -> discovery(FOUND).sharedSource())
			.withMessage("IDEMPOTENCY_TEST_DYNAMODB='testcontainers' is not one of url or binary");
	}

	@Test
	void privateServersComeFromDynaliteEvenWithAUrl() {
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "http://dynamodb:8000");
		assertThat(discovery(FOUND).privateSource()).isEqualTo(DynamoDbSource.BINARY);
	}

	@Test
	void privateServersFailWithoutDynaliteSayingTheyNeedIt() {
		assertThatIllegalStateException().isThrownBy(() -> discovery(MISSING).privateSource())
			.withMessageContaining("which only a dynalite of the machine gives, and none was found")
			.withMessageContaining("npm install -g dynalite@4.0.0");
	}

	@Test
	void privateServersFailWhenAUrlIsDemanded() {
		this.environment.put(DynamoDbDiscovery.SOURCE_VARIABLE, "url");
		this.environment.put("IDEMPOTENCY_TEST_DYNAMODB_URL", "http://dynamodb:8000");
		assertThatIllegalStateException().isThrownBy(() -> discovery(FOUND).privateSource())
			.withMessageContaining("only a dynalite of the machine gives, but IDEMPOTENCY_TEST_DYNAMODB=url");
	}

	private DynamoDbDiscovery discovery(BooleanSupplier dynaliteFound) {
		return new DynamoDbDiscovery(this.environment::get, dynaliteFound);
	}

}
