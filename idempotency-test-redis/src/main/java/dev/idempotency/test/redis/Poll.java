package dev.idempotency.test.redis;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * Asks again and again until servers reach a state, or a deadline passes.
 */
final class Poll {

	private static final Duration INTERVAL = Duration.ofMillis(50);

	private Poll() {
	}

	/**
	 * Wait until a probe answers.
	 * @param <T> what it answers
	 * @param what the state waited for, for a failure
	 * @param timeout how long to wait
	 * @param probe returns once the state is reached, and throws, saying what it saw,
	 * while it is not
	 * @return the probe's answer
	 * @throws IllegalStateException if the state is not reached in time, with what the
	 * probe saw last
	 */
	static <T> T until(String what, Duration timeout, Supplier<T> probe) {
		long deadline = System.nanoTime() + timeout.toNanos();
		RuntimeException last;
		do {
			try {
				return probe.get();
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			pause();
		}
		while (System.nanoTime() < deadline);
		throw new IllegalStateException("Not " + what + " within " + timeout + ": " + last.getMessage(), last);
	}

	private static void pause() {
		try {
			Thread.sleep(INTERVAL.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis", ex);
		}
	}

}
