package dev.idempotency.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import dev.idempotency.engine.IdempotencyObserver;
import dev.idempotency.engine.Outcome;

import org.springframework.util.Assert;

/**
 * {@link IdempotencyObserver} that wraps each call in a Micrometer {@link Observation}
 * whose scope is open on the caller's thread from acquire to complete, so that the
 * method's own observations (and spans) nest under it. What the call throws is recorded
 * as the observation's error. For a method returning a {@code CompletionStage} or a
 * {@code Mono}, the scope closes once the method has returned it, and the observation
 * stops when the record has completed or been released.
 * <p>
 * Costs nothing per call while the registry is a no-op.
 */
public final class ObservationIdempotencyObserver implements IdempotencyObserver {

	private static final IdempotencyObservationConvention DEFAULT_CONVENTION = new DefaultIdempotencyObservationConvention();

	private final ObservationRegistry registry;

	private final @Nullable IdempotencyObservationConvention convention;

	/**
	 * Create an observer.
	 * @param registry the registry of observations
	 * @param convention a convention that replaces the default one, or {@code null}
	 */
	public ObservationIdempotencyObserver(ObservationRegistry registry,
			@Nullable IdempotencyObservationConvention convention) {
		Assert.notNull(registry, "'registry' must not be null");
		this.registry = registry;
		this.convention = convention;
	}

	@Override
	public Call start(String name, String key) {
		if (this.registry.isNoop()) {
			return Call.NONE;
		}
		IdempotencyObservationContext context = new IdempotencyObservationContext(name, key);
		Observation observation = Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context,
				this.registry);
		if (observation.isNoop()) {
			return Call.NONE;
		}
		observation.start();
		return new ObservedCall(observation, context, observation.openScope());
	}

	private static final class ObservedCall implements Call {

		private final Observation observation;

		private final IdempotencyObservationContext context;

		private final Observation.Scope scope;

		// Whether the scope was closed on the caller's thread, before the call went on
		// asynchronously and ends on another thread
		private volatile boolean detached;

		ObservedCall(Observation observation, IdempotencyObservationContext context, Observation.Scope scope) {
			this.observation = observation;
			this.context = context;
			this.scope = scope;
		}

		@Override
		public void outcome(Outcome outcome) {
			this.context.setOutcome(outcome);
		}

		@Override
		public void detach() {
			this.detached = true;
			this.scope.close();
		}

		@Override
		public void end(@Nullable Throwable error) {
			if (error != null) {
				this.observation.error(error);
			}
			if (!this.detached) {
				this.scope.close();
			}
			this.observation.stop();
		}

	}

}
