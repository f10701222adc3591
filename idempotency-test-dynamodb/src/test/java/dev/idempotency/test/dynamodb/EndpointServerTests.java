package dev.idempotency.test.dynamodb;

import java.net.URI;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class EndpointServerTests {

	@Test
	void endpointIsTakenAsGiven() {
		EndpointServer server = EndpointServer.given("http://dynamodb:8000");
		assertThat(server.endpoint()).isEqualTo(URI.create("http://dynamodb:8000"));
		assertThat(server.describe()).isEqualTo("DynamoDB at http://dynamodb:8000 (IDEMPOTENCY_TEST_DYNAMODB_URL)");
	}

	@Test
	void somethingElseThanAnHttpUrlFailsSayingWhatIsExpected() {
		for (String value : new String[] { "127.0.0.1:8000", "jdbc:dynamodb://x", "http://", "http://a b" }) {
			assertThatIllegalStateException().as(value)
				.isThrownBy(() -> EndpointServer.given(value))
				.withMessageStartingWith("IDEMPOTENCY_TEST_DYNAMODB_URL='" + value + "' is not an endpoint")
				.withMessageContaining("http://127.0.0.1:4567");
		}
	}

}
