package dev.idempotency.observation;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

import dev.idempotency.engine.Outcome;

/**
 * Names an idempotent call's observation {@value #NAME} and its span
 * {@code "idempotent <operation name>"}. Low-cardinality key values: {@code name} and
 * {@code outcome} ({@value #UNKNOWN_OUTCOME} until the call ends); the idempotency key,
 * one per business request, only as the high-cardinality {@code key}, so that it reaches
 * spans but never metric tags.
 */
public class DefaultIdempotencyObservationConvention implements IdempotencyObservationConvention {

	/**
	 * Name of the observation.
	 */
	public static final String NAME = "idempotency.call";

	/**
	 * Value of {@code outcome} while the call runs.
	 */
	public static final String UNKNOWN_OUTCOME = "unknown";

	private static final KeyValue OUTCOME_UNKNOWN = KeyValue.of(KeyNames.OUTCOME, UNKNOWN_OUTCOME);

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(IdempotencyObservationContext context) {
		return "idempotent " + context.getOperationName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(IdempotencyObservationContext context) {
		Outcome outcome = context.getOutcome();
		return KeyValues.of(KeyValue.of(KeyNames.NAME, context.getOperationName()),
				(outcome != null) ? KeyValue.of(KeyNames.OUTCOME, outcome.tag()) : OUTCOME_UNKNOWN);
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(IdempotencyObservationContext context) {
		return KeyValues.of(KeyNames.KEY, context.getKey());
	}

	/**
	 * Key names of the observation.
	 */
	public static final class KeyNames {

		/**
		 * Operation name (low cardinality).
		 */
		public static final String NAME = "name";

		/**
		 * How the call ended, such as {@code executed} (low cardinality).
		 */
		public static final String OUTCOME = "outcome";

		/**
		 * Idempotency key (high cardinality: spans only).
		 */
		public static final String KEY = "key";

		private KeyNames() {
		}

	}

}
