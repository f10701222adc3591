package dev.idempotency.test.process;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Waits until a server that was just started answers: polls a probe until it succeeds,
 * the server exits, or a deadline passes.
 */
public final class Readiness {

	private Readiness() {
	}

	/**
	 * Wait until a probe of a server succeeds.
	 * @param what the server, for messages
	 * @param timeout how long to wait at most
	 * @param interval the pause between two probes
	 * @param probe asks the server once, failing while it does not answer
	 * @param exited says why the server will never answer (it exited), or {@code null}
	 * while it may
	 * @param log returns the server's log, for a failure
	 * @throws IllegalStateException if the server exits or does not answer in time
	 */
	public static void await(String what, Duration timeout, Duration interval, Probe probe,
			Supplier<@Nullable String> exited, Supplier<String> log) {
		long deadline = System.nanoTime() + timeout.toNanos();
		Exception last = null;
		while (System.nanoTime() < deadline) {
			String end = exited.get();
			if (end != null) {
				throw new IllegalStateException(what + " " + end + ":\n" + log.get());
			}
			try {
				probe.ask();
				return;
			}
			catch (Exception ex) {
				last = ex;
			}
			pause(what, interval);
		}
		throw new IllegalStateException(what + " did not answer within " + timeout + " ("
				+ ((last != null) ? last.getMessage() : "") + "):\n" + log.get(), last);
	}

	private static void pause(String what, Duration interval) {
		try {
			Thread.sleep(interval.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for " + what, ex);
		}
	}

	/**
	 * One question to a server.
	 */
	@FunctionalInterface
	public interface Probe {

		/**
		 * Ask the server once.
		 * @throws Exception while it does not answer
		 */
		void ask() throws Exception;

	}

}
