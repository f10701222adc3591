package dev.idempotency.kafka;

import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.BatchOutcome;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotentExecutor;

import org.springframework.kafka.listener.BatchListenerFailedException;
import org.springframework.util.Assert;

/**
 * Hands the outcomes of {@link IdempotentExecutor#executeAll} in a Kafka batch listener
 * to the container's error handler, so that each record is treated as an
 * {@code @Idempotent} record listener's would be (see
 * {@link IdempotencyKafkaErrorHandling}): <pre class="code">
 * &#64;KafkaListener(topics = "payments", batch = "true")
 * void onPayments(List&lt;PaymentEvent&gt; events) {
 *     IdempotencyKafkaBatches.throwIfUnfinished("payments.charge",
 *             executor.executeAll("payments.charge", events, PaymentEvent::id, Receipt.class, payments::charge));
 * }
 * </pre>
 */
public final class IdempotencyKafkaBatches {

	private IdempotencyKafkaBatches() {
	}

	/**
	 * Throw a {@link BatchListenerFailedException} naming the first record whose outcome
	 * is neither {@link BatchOutcome.Executed executed} nor {@link BatchOutcome.Replayed
	 * replayed}, if there is one. Its cause is what the error handler's rules expect:
	 * {@link IdempotencyInProgressException} for a key in progress elsewhere (the record
	 * is delivered again after a back-off, never committed before),
	 * {@link IdempotencyKeyReuseException} for a reused key (recovered at once, without
	 * retries), and the item's own exception for a failure. spring-kafka then commits the
	 * records before it and delivers that record and the later ones again: those the
	 * batch executed replay on the next delivery.
	 * @param name the operation name given to {@code executeAll}
	 * @param outcomes the outcomes, in the order of the batch's records
	 * @throws BatchListenerFailedException for the first record that did not finish
	 */
	public static void throwIfUnfinished(String name, List<? extends BatchOutcome<?, ?>> outcomes) {
		Assert.hasText(name, "'name' must not be empty");
		Assert.notNull(outcomes, "'outcomes' must not be null");
		for (int index = 0; index < outcomes.size(); index++) {
			Throwable failure = failure(name, outcomes.get(index));
			if (failure != null) {
				throw new BatchListenerFailedException(
						"Record " + index + " of the batch did not finish: " + failure.getMessage(), failure, index);
			}
		}
	}

	private static @Nullable Throwable failure(String name, BatchOutcome<?, ?> outcome) {
		if (outcome instanceof BatchOutcome.InProgress<?, ?> inProgress) {
			return new IdempotencyInProgressException(name, inProgress.key(), inProgress.retryAfter());
		}
		if (outcome instanceof BatchOutcome.KeyReused<?, ?> reused) {
			return new IdempotencyKeyReuseException(name, reused.key());
		}
		if (outcome instanceof BatchOutcome.Failed<?, ?> failed) {
			return failed.exception();
		}
		return null;
	}

}
