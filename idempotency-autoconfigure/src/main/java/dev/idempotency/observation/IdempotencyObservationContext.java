package dev.idempotency.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.Outcome;

import org.springframework.util.Assert;

/**
 * Context of the observation of one idempotent call.
 */
public class IdempotencyObservationContext extends Observation.Context {

	private final String operationName;

	private final String key;

	private @Nullable Outcome outcome;

	/**
	 * Create a context.
	 * @param operationName the operation name
	 * @param key the idempotency key, after hashing if it was too long
	 */
	public IdempotencyObservationContext(String operationName, String key) {
		Assert.hasText(operationName, "'operationName' must not be empty");
		Assert.notNull(key, "'key' must not be null");
		this.operationName = operationName;
		this.key = key;
	}

	/**
	 * Return the operation name.
	 * @return the operation name
	 */
	public String getOperationName() {
		return this.operationName;
	}

	/**
	 * Return the idempotency key.
	 * @return the key
	 */
	public String getKey() {
		return this.key;
	}

	/**
	 * Return how the call ended.
	 * @return the outcome, or {@code null} while it is not known
	 */
	public @Nullable Outcome getOutcome() {
		return this.outcome;
	}

	/**
	 * Set how the call ended.
	 * @param outcome the outcome
	 */
	public void setOutcome(Outcome outcome) {
		this.outcome = outcome;
	}

}
