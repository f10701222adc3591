package dev.idempotency.kafka;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The listener results that are a Reactor {@code Mono}. The only class here that touches
 * Reactor: loaded on the first such result, so that Reactor stays optional; its methods
 * take and return only JDK types.
 */
final class MonoResults {

	private MonoResults() {
	}

	static CompletableFuture<?> toFuture(Object mono) {
		return ((Mono<?>) mono).toFuture();
	}

	static Object completed(@Nullable Object value) {
		return Mono.justOrEmpty(value);
	}

}
