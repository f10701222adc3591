package dev.idempotency.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;

import org.springframework.util.Assert;

/**
 * One call made many times at the same moment, from as many threads released together,
 * and what each of them got: the way to show that duplicates arriving together run an
 * effect once. <pre class="code">
 * ConcurrentCalls&lt;Receipt&gt; calls = ConcurrentCalls.run(8, () -&gt; payments.charge("order-42", 1250));
 * calls.assertExecutedOnce(() -&gt; gateway.charges("order-42"));
 * assertThat(calls.results()).allSatisfy((receipt) -&gt; assertThat(receipt.amount()).isEqualTo(1250));
 * </pre> A method without a result is called as {@code () -> { handler.handle(event);
 * return null; }}.
 *
 * @param <T> the type of the call's result
 */
public final class ConcurrentCalls<T> {

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

	private final int times;

	private final List<@Nullable T> results;

	private final List<Throwable> failures;

	private ConcurrentCalls(int times, List<@Nullable T> results, List<Throwable> failures) {
		this.times = times;
		this.results = Collections.unmodifiableList(results);
		this.failures = Collections.unmodifiableList(failures);
	}

	/**
	 * Make the call {@code times} times at once, each from a thread of its own, and wait
	 * up to 30 seconds for all of them to end.
	 * @param <T> the type of the call's result
	 * @param times how many calls, at least 2
	 * @param call the call
	 * @return what the calls got
	 * @throws AssertionError if a call has not ended in time
	 */
	public static <T> ConcurrentCalls<T> run(int times, Callable<? extends T> call) {
		return run(times, DEFAULT_TIMEOUT, call);
	}

	/**
	 * Make the call {@code times} times at once, each from a thread of its own, and wait
	 * for all of them to end.
	 * @param <T> the type of the call's result
	 * @param times how many calls, at least 2
	 * @param timeout how long to wait for all of them to end
	 * @param call the call
	 * @return what the calls got
	 * @throws AssertionError if a call has not ended in time
	 */
	public static <T> ConcurrentCalls<T> run(int times, Duration timeout, Callable<? extends T> call) {
		Assert.isTrue(times >= 2, "'times' must be at least 2");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.notNull(call, "'call' must not be null");
		AtomicReferenceArray<Outcome<T>> outcomes = new AtomicReferenceArray<>(times);
		CountDownLatch ready = new CountDownLatch(times);
		CountDownLatch start = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(times);
		List<Thread> threads = new ArrayList<>(times);
		for (int i = 0; i < times; i++) {
			int index = i;
			Thread thread = new Thread(() -> {
				try {
					ready.countDown();
					start.await();
					outcomes.set(index, Outcome.returned(call.call()));
				}
				catch (Throwable ex) {
					outcomes.set(index, Outcome.thrown(ex));
				}
				finally {
					done.countDown();
				}
			}, "concurrent-call-" + (i + 1));
			thread.setDaemon(true);
			threads.add(thread);
			thread.start();
		}
		try {
			// Every thread waits at the gate before any call starts, so they really
			// overlap.
			if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				threads.forEach(Thread::interrupt);
				throw new AssertionError("The " + times + " threads were not all ready within " + timeout);
			}
			start.countDown();
			if (!done.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				long running = done.getCount();
				threads.forEach(Thread::interrupt);
				throw new AssertionError(running + " of " + times + " concurrent calls still ran after " + timeout
						+ ": a call that blocks for good (a deadlock, or waiting for a lock that is "
						+ "never released)?");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			threads.forEach(Thread::interrupt);
			throw new IllegalStateException("Interrupted while waiting for the concurrent calls", ex);
		}
		List<@Nullable T> results = new ArrayList<>();
		List<Throwable> failures = new ArrayList<>();
		for (int i = 0; i < times; i++) {
			Outcome<T> outcome = outcomes.get(i);
			if (outcome.failure() != null) {
				failures.add(outcome.failure());
			}
			else {
				results.add(outcome.result());
			}
		}
		return new ConcurrentCalls<>(times, results, failures);
	}

	/**
	 * Return the results of the calls that returned, in no particular order.
	 * @return the results ({@code null} for a {@code void} call)
	 */
	public List<@Nullable T> results() {
		return this.results;
	}

	/**
	 * Return what the calls that threw threw, in no particular order.
	 * @return the exceptions and errors
	 */
	public List<Throwable> failures() {
		return this.failures;
	}

	/**
	 * Assert that the effect ran once for all the calls together: the counter of
	 * executions that the test keeps (a fake of the effect, typically) reads exactly 1,
	 * and every call either returned the same result (compared with
	 * {@link Object#equals}: the first call's, replayed to the others) or was refused
	 * because the first was still in progress ({@link IdempotencyInProgressException}).
	 * @param executions how many times the effect ran, read once all calls have ended
	 * @return these calls, for more assertions
	 * @throws AssertionError if any of it is not so
	 */
	public ConcurrentCalls<T> assertExecutedOnce(IntSupplier executions) {
		int executed = executions.getAsInt();
		if (executed != 1) {
			throw new AssertionError("Expected the effect of " + this.times + " concurrent calls to run exactly once, "
					+ "but it ran " + executed + " times");
		}
		for (Throwable failure : this.failures) {
			if (!(failure instanceof IdempotencyInProgressException)) {
				throw new AssertionError(
						"Expected every call to return or to be refused as in progress, but one threw " + failure,
						failure);
			}
		}
		if (this.results.isEmpty()) {
			throw new AssertionError("Expected at least one of " + this.times
					+ " concurrent calls to return, but every " + "one was refused as in progress: " + this.failures);
		}
		T first = this.results.get(0);
		for (T result : this.results) {
			if (!Objects.equals(first, result)) {
				throw new AssertionError("Expected every call that returned to get the same result, but got " + first
						+ " and " + result);
			}
		}
		return this;
	}

	private record Outcome<T>(@Nullable T result, @Nullable Throwable failure) {

		static <T> Outcome<T> returned(@Nullable T result) {
			return new Outcome<>(result, null);
		}

		static <T> Outcome<T> thrown(Throwable failure) {
			return new Outcome<>(null, failure);
		}

	}

}
