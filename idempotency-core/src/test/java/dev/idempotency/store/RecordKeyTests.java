package dev.idempotency.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RecordKeyTests {

	@Test
	void nameWithTheSeparatorIsRejectedSoThatNoTwoRecordKeysShareALayout() {
		assertThat(new RecordKey("orders", "refund:42")).hasToString("orders:refund:42");
		assertThatIllegalArgumentException().isThrownBy(() -> new RecordKey("orders:refund", "42"))
			.withMessageContaining("'name' must not contain ':'")
			.withMessageContaining("orders:refund");
		assertThatIllegalArgumentException().isThrownBy(() -> new RecordKey(":", "k"));
	}

	@Test
	void keyMayHoldTheSeparatorAndAnythingElse() {
		RecordKey key = new RecordKey("orders", "a:b/c d*?[x]");
		assertThat(key.key()).isEqualTo("a:b/c d*?[x]");
	}

	@Test
	void blankNameOrKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> new RecordKey(" ", "k"));
		assertThatIllegalArgumentException().isThrownBy(() -> new RecordKey("orders", " "));
	}

}
