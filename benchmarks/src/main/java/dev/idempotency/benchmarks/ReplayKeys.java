package dev.idempotency.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.idempotency.benchmarks.LoadRun.IdSource;

/**
 * The keys that replays cycle over: each side completes them in its own keyspace before a
 * repetition, then the callers replay them.
 */
final class ReplayKeys {

	// Several callers, so that a side with five round trips a key does not hold up a run
	private static final int COMPLETING_THREADS = 8;

	private final String[] ids;

	ReplayKeys(int count) {
		this.ids = Ids.replays(count);
	}

	/**
	 * Return the key that the starter completes first, for the checks.
	 * @return the first key
	 */
	String first() {
		return this.ids[0];
	}

	/**
	 * Complete every key through one side, a call per key.
	 * @param contender the side
	 */
	void completeThrough(Contender contender) {
		ExecutorService callers = Executors.newFixedThreadPool(COMPLETING_THREADS);
		try {
			List<Callable<Void>> tasks = new ArrayList<>();
			for (int t = 0; t < COMPLETING_THREADS; t++) {
				int first = t;
				tasks.add(() -> {
					for (int i = first; i < this.ids.length; i += COMPLETING_THREADS) {
						contender.call(this.ids[i]);
					}
					return null;
				});
			}
			for (Future<Void> task : callers.invokeAll(tasks)) {
				task.get();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(contender.side().label() + " could not complete the replay keys",
					ex.getCause());
		}
		finally {
			callers.shutdownNow();
		}
	}

	/**
	 * Return the keys the callers of a replay case use: every caller cycles over all of
	 * them, from its own starting point.
	 * @return the key of each call
	 */
	IdSource cycle() {
		String[] keys = this.ids;
		return (thread, sequence) -> keys[(int) ((sequence + thread * 31L) % keys.length)];
	}

}
