package dev.idempotency.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.engine.Invocation;

import static org.awaitility.Awaitility.await;

/**
 * Repeats a call that another attempt holds in progress until it no longer does.
 */
public final class InProgress {

	private InProgress() {
	}

	/**
	 * Call until the call is no longer refused as in progress.
	 * @param deadline how long to keep trying
	 * @param call the call
	 * @return its result
	 */
	public static @Nullable Object retryUntilDone(Duration deadline, Invocation call) {
		AtomicReference<@Nullable Object> result = new AtomicReference<>();
		await("the call no longer in progress").atMost(deadline).pollInterval(Duration.ofMillis(10)).until(() -> {
			try {
				result.set(call.proceed());
				return true;
			}
			catch (IdempotencyInProgressException ex) {
				return false;
			}
			catch (Exception | Error ex) {
				throw ex;
			}
			catch (Throwable ex) {
				throw new IllegalStateException(ex);
			}
		});
		return result.get();
	}

}
