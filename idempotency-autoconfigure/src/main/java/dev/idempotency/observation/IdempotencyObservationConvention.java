package dev.idempotency.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * {@link ObservationConvention} of idempotent calls; define a bean of this type to
 * replace or extend {@link DefaultIdempotencyObservationConvention}.
 */
public interface IdempotencyObservationConvention extends ObservationConvention<IdempotencyObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof IdempotencyObservationContext;
	}

}
