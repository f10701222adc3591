package dev.idempotency.engine;

import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class OperationNameTests {

	private static final String INVISIBLE = "whitespace, control or invisible characters";

	@ParameterizedTest
	@ValueSource(strings = { "orders", "Payments.charge", "payments-v2.charge_1", "Ledger$Inner.run", ".run",
			"Zahlungen.büro", "支付.收费", "payments.charge✓", "*", "..", "a{b}c" })
	void acceptsVisibleNamesWithoutSeparatorOrSlash(String name) {
		assertThat(Operation.checkName(name)).isEqualTo(name);
	}

	static Stream<Arguments> invalidNames() {
		return Stream.of(
				Arguments.of("orders:refund",
						"':', which separates the name from the key in the store (found U+003A at"),
				Arguments.of(":", "':'"), Arguments.of("orders/refund", "'/', since the idempotency endpoint"),
				Arguments.of("orders refund", INVISIBLE + " (found U+0020 at index 6)"),
				Arguments.of("orders ", INVISIBLE), Arguments.of("orders\trefund", INVISIBLE + " (found U+0009"),
				Arguments.of("orders\nrefund", INVISIBLE + " (found U+000A"),
				Arguments.of("orders\u00A0refund", INVISIBLE + " (found U+00A0"),
				Arguments.of("orders\u2003refund", INVISIBLE + " (found U+2003"),
				Arguments.of("orders\u200Brefund", INVISIBLE + " (found U+200B"),
				Arguments.of("orders\u0007", INVISIBLE + " (found U+0007"),
				Arguments.of("orders\uDB40\uDC01", INVISIBLE + " (found U+E0001 at index 6)"));
	}

	@ParameterizedTest
	@MethodSource("invalidNames")
	void rejectsSeparatorSlashWhitespaceAndInvisibleCharactersSayingWhich(String name, String reason) {
		assertThatIllegalArgumentException().isThrownBy(() -> Operation.checkName(name))
			.withMessageStartingWith("Operation name '" + name + "' must not contain ")
			.withMessageContaining(reason);
	}

	@Test
	void rejectsEmptyName() {
		assertThatIllegalArgumentException().isThrownBy(() -> Operation.checkName(""))
			.withMessage("Operation name must not be empty");
	}

	@Test
	void operationsCannotBeCreatedWithAnInvalidName() {
		OperationSettings settings = IdempotencyDefaults.STANDARD.settings();
		assertThatIllegalArgumentException().isThrownBy(() -> new Operation("orders:refund", settings, null, "test"))
			.withMessageContaining("orders:refund");
	}

}
