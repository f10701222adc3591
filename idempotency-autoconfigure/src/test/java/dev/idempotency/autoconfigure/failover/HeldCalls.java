package dev.idempotency.autoconfigure.failover;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyStoreException;

/**
 * Calls of {@link ExecutionLedger#chargeHeld}: one held in flight until released, and
 * duplicates that return at once when they run.
 */
final class HeldCalls {

	private HeldCalls() {
	}

	/**
	 * Call on another thread, which runs the method and holds it until released.
	 * @param ledger the application's bean
	 * @param key the key
	 * @param started counted down once the method runs
	 * @param release what the method waits for before it returns
	 * @return the call
	 */
	static CompletableFuture<Execution> inFlight(ExecutionLedger ledger, String key, CountDownLatch started,
			CountDownLatch release) {
		return CompletableFuture.supplyAsync(() -> call(ledger, key, started, release));
	}

	/**
	 * Call on this thread; if the method runs, it returns at once.
	 * @param ledger the application's bean
	 * @param key the key
	 * @return the result
	 */
	static Execution duplicate(ExecutionLedger ledger, String key) {
		return call(ledger, key, new CountDownLatch(1), new CountDownLatch(0));
	}

	/**
	 * Return whether a call failed without running the method: refused as in progress, or
	 * failed by the store before it ran.
	 * @param failure what the call threw
	 * @return whether it did not run
	 */
	static boolean refusedBeforeRunning(Throwable failure) {
		return failure instanceof IdempotencyInProgressException || (failure instanceof IdempotencyStoreException
				&& !(failure instanceof IdempotencyCompletionException));
	}

	private static Execution call(ExecutionLedger ledger, String key, CountDownLatch started, CountDownLatch release) {
		try {
			return ledger.chargeHeld(key, started, release);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
