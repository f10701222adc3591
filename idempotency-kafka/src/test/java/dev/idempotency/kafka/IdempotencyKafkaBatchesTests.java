package dev.idempotency.kafka;

import java.time.Duration;
import java.util.List;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.listener.BatchListenerFailedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

class IdempotencyKafkaBatchesTests {

	private static final BatchOutcome<String, String> EXECUTED = new BatchOutcome.Executed<>("a", "a", "ra");

	private static final BatchOutcome<String, String> REPLAYED = new BatchOutcome.Replayed<>("b", "b", "rb");

	@Test
	void batchWhoseItemsAllFinishedThrowsNothing() {
		assertThatNoException()
			.isThrownBy(() -> IdempotencyKafkaBatches.throwIfUnfinished("op", List.of(EXECUTED, REPLAYED)));
		assertThatNoException().isThrownBy(() -> IdempotencyKafkaBatches.throwIfUnfinished("op", List.of()));
	}

	@Test
	void firstItemInProgressIsNamedWithItsLease() {
		BatchListenerFailedException failure = failure(
				List.of(EXECUTED, new BatchOutcome.InProgress<>("c", "c", Duration.ofSeconds(7)),
						new BatchOutcome.KeyReused<>("d", "d")));
		assertThat(failure.getIndex()).isEqualTo(1);
		assertThat(failure.getCause()).isInstanceOfSatisfying(IdempotencyInProgressException.class, (inProgress) -> {
			assertThat(inProgress.getName()).isEqualTo("op");
			assertThat(inProgress.getKey()).isEqualTo("c");
			assertThat(inProgress.getRetryAfter()).isEqualTo(Duration.ofSeconds(7));
		});
	}

	@Test
	void reusedKeyIsNamedAsKeyReuse() {
		BatchListenerFailedException failure = failure(
				List.of(REPLAYED, EXECUTED, new BatchOutcome.KeyReused<>("d", "d")));
		assertThat(failure.getIndex()).isEqualTo(2);
		assertThat(failure.getCause()).isInstanceOf(IdempotencyKeyReuseException.class).hasMessageContaining("'d'");
	}

	@Test
	void failedItemIsNamedWithItsOwnException() {
		IllegalStateException declined = new IllegalStateException("declined");
		BatchListenerFailedException failure = failure(List.of(new BatchOutcome.Failed<>("e", "e", declined)));
		assertThat(failure.getIndex()).isZero();
		assertThat(failure.getCause()).isSameAs(declined);
	}

	private static BatchListenerFailedException failure(List<BatchOutcome<String, String>> outcomes) {
		return assertThatExceptionOfType(BatchListenerFailedException.class)
			.isThrownBy(() -> IdempotencyKafkaBatches.throwIfUnfinished("op", outcomes))
			.actual();
	}

}
