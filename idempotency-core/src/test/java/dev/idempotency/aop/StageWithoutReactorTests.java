package dev.idempotency.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Methods that return a stage, with no Reactor on the class path: run by a Surefire
 * execution of their own that leaves Reactor out (Lettuce needs Reactor, so the store is
 * the in-memory one). The default execution leaves them out by their tag.
 */
@Tag("without-reactor")
class StageWithoutReactorTests {

	private AnnotationConfigApplicationContext context;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void reactorIsNotOnTheClassPath() {
		assertThat(ClassUtils.isPresent("reactor.core.publisher.Mono", getClass().getClassLoader())).isFalse();
	}

	@Test
	void stageMethodRunsOnceAndReplays() throws Exception {
		this.context = new AnnotationConfigApplicationContext(Infrastructure.class, Orders.class);
		Orders orders = this.context.getBean(Orders.class);
		assertThat(orders.place("o-1").get(10, TimeUnit.SECONDS)).isEqualTo("order-1");
		assertThat(orders.place("o-1")).isCompletedWithValue("order-1");
		assertThat(orders.runs()).isEqualTo(1);
	}

	@Test
	void publisherFailsWithoutReactorToo() {
		IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
				new JacksonResultCodec(), null);
		assertThatIllegalStateException()
			.isThrownBy(() -> source.getOperation(ReflectionUtils.findMethod(Streams.class, "events", String.class),
					Streams.class))
			.withMessageContaining(Streams.class.getName() + ".events(String): java.util.concurrent.Flow$Publisher "
					+ "yields many values");
	}

	static class Orders {

		private final AtomicInteger runs = new AtomicInteger();

		@Idempotent(key = "#id")
		public CompletableFuture<String> place(String id) {
			return CompletableFuture.supplyAsync(() -> "order-" + this.runs.incrementAndGet());
		}

		int runs() {
			return this.runs.get();
		}

	}

	static class Streams {

		@Idempotent(key = "#id")
		public Flow.Publisher<String> events(String id) {
			return (subscriber) -> {
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(AdvisorInfrastructure.class)
	static class Infrastructure {

		@Bean
		IdempotencyEngine idempotencyEngine() {
			return new IdempotencyEngine(new InMemoryIdempotencyStore(), IdempotencyDefaults.STANDARD, List.of());
		}

	}

}
