package dev.idempotency.test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ConcurrentCallsTests {

	@Test
	void everyCallRunsAtTheSameMoment() {
		CyclicBarrier allInside = new CyclicBarrier(8);
		ConcurrentCalls<Integer> calls = ConcurrentCalls.run(8, () -> allInside.await(10, TimeUnit.SECONDS));
		assertThat(calls.failures()).isEmpty();
		assertThat(calls.results()).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
	}

	@Test
	void returnsAndThrowsAreCollectedApart() {
		AtomicInteger calls = new AtomicInteger();
		IllegalStateException boom = new IllegalStateException("boom");
		ConcurrentCalls<String> result = ConcurrentCalls.run(6, () -> {
			if (calls.incrementAndGet() % 2 == 0) {
				throw boom;
			}
			return "ok";
		});
		assertThat(result.results()).containsExactly("ok", "ok", "ok");
		assertThat(result.failures()).containsExactly(boom, boom, boom);
	}

	@Test
	void oneExecutionWithReplaysAndRefusalsPasses() {
		AtomicInteger calls = new AtomicInteger();
		ConcurrentCalls<String> result = ConcurrentCalls.run(4, () -> {
			if (calls.incrementAndGet() == 2) {
				throw new IdempotencyInProgressException("Payments.charge", "k", Duration.ofSeconds(1));
			}
			return "receipt";
		});
		assertThat(result.assertExecutedOnce(() -> 1)).isSameAs(result);
	}

	@Test
	void moreThanOneExecutionFails() {
		ConcurrentCalls<String> result = ConcurrentCalls.run(3, () -> "receipt");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> result.assertExecutedOnce(() -> 3))
			.withMessage("Expected the effect of 3 concurrent calls to run exactly once, but it ran 3 times");
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> result.assertExecutedOnce(() -> 0))
			.withMessageEndingWith("but it ran 0 times");
	}

	@Test
	void aFailureOtherThanInProgressFails() {
		AtomicInteger calls = new AtomicInteger();
		IllegalStateException boom = new IllegalStateException("boom");
		ConcurrentCalls<String> result = ConcurrentCalls.run(2, () -> {
			if (calls.incrementAndGet() == 1) {
				throw boom;
			}
			return "receipt";
		});
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> result.assertExecutedOnce(() -> 1))
			.withMessageContaining("but one threw java.lang.IllegalStateException: boom")
			.withCause(boom);
	}

	@Test
	void differentResultsFail() {
		AtomicInteger calls = new AtomicInteger();
		ConcurrentCalls<Integer> result = ConcurrentCalls.run(2, calls::incrementAndGet);
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> result.assertExecutedOnce(() -> 1))
			.withMessageStartingWith("Expected every call that returned to get the same result, but got ");
	}

	@Test
	void everyCallRefusedFails() {
		ConcurrentCalls<String> result = ConcurrentCalls.run(2, () -> {
			throw new IdempotencyInProgressException("Payments.charge", "k", Duration.ofSeconds(1));
		});
		assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> result.assertExecutedOnce(() -> 1))
			.withMessageStartingWith("Expected at least one of 2 concurrent calls to return, but every one was "
					+ "refused as in progress");
	}

	@Test
	void aCallThatNeverEndsFailsAfterTheTimeout() {
		CountDownLatch never = new CountDownLatch(1);
		try {
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(
						() -> ConcurrentCalls.run(2, Duration.ofMillis(200), () -> never.await(1, TimeUnit.MINUTES)))
				.withMessageStartingWith("2 of 2 concurrent calls still ran after PT0.2S");
		}
		finally {
			never.countDown();
		}
	}

	@Test
	void voidCallsReturnNull() {
		AtomicInteger effects = new AtomicInteger();
		ConcurrentCalls<Void> calls = ConcurrentCalls.run(2, () -> {
			effects.incrementAndGet();
			return null;
		});
		assertThat(calls.results()).containsExactly(null, null);
		assertThat(calls.failures()).isEmpty();
		assertThat(effects).hasValue(2);
	}

	@Test
	void fewerThanTwoCallsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ConcurrentCalls.run(1, () -> "x"))
			.withMessage("'times' must be at least 2");
	}

}
