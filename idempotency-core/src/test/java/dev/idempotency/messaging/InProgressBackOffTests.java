package dev.idempotency.messaging;

import java.time.Duration;

import dev.idempotency.IdempotencyInProgressException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class InProgressBackOffTests {

	private final InProgressBackOff backOff = new InProgressBackOff(Duration.ofMillis(100), 2, Duration.ofSeconds(1));

	@Test
	void delaysGrowByTheMultiplierUpToTheLongest() {
		IdempotencyInProgressException longLease = inProgress(Duration.ofSeconds(30));
		assertThat(this.backOff.delay(1, longLease)).isEqualTo(Duration.ofMillis(100));
		assertThat(this.backOff.delay(2, longLease)).isEqualTo(Duration.ofMillis(200));
		assertThat(this.backOff.delay(4, longLease)).isEqualTo(Duration.ofMillis(800));
		assertThat(this.backOff.delay(5, longLease)).isEqualTo(Duration.ofSeconds(1));
		assertThat(this.backOff.delay(5000, longLease)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void delayWithoutALeaseIsBoundedByTheLongestOnly() {
		assertThat(this.backOff.delay(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(this.backOff.delay(3)).isEqualTo(Duration.ofMillis(400));
		assertThat(this.backOff.delay(5000)).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void delayIsNeverLongerThanTheLeaseHasLeft() {
		assertThat(this.backOff.delay(5, inProgress(Duration.ofMillis(300)))).isEqualTo(Duration.ofMillis(300));
		assertThat(this.backOff.delay(1, inProgress(Duration.ZERO))).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void contradictorySettingsAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InProgressBackOff(Duration.ZERO, 2, Duration.ofSeconds(1)))
			.withMessage("'initialInterval' must be at least 1 ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InProgressBackOff(Duration.ofMillis(100), 0.5, Duration.ofSeconds(1)))
			.withMessage("'multiplier' must be at least 1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new InProgressBackOff(Duration.ofSeconds(2), 2, Duration.ofSeconds(1)))
			.withMessage("'maxInterval' must not be shorter than 'initialInterval'");
		assertThatIllegalArgumentException().isThrownBy(() -> this.backOff.delay(0, inProgress(Duration.ZERO)));
		assertThatIllegalArgumentException().isThrownBy(() -> this.backOff.delay(0));
	}

	private static IdempotencyInProgressException inProgress(Duration retryAfter) {
		return new IdempotencyInProgressException("op", "k", retryAfter);
	}

}
