package dev.idempotency.aop;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.idempotency.Idempotent;
import dev.idempotency.aop.IdempotentOperation.ResultKind;
import dev.idempotency.codec.JacksonResultCodec;
import dev.idempotency.engine.IdempotencyDefaults;

import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * How return types resolve into result kinds and value types, and which fail startup.
 */
class ResultTypesTests {

	private final IdempotentOperationSource source = new IdempotentOperationSource(IdempotencyDefaults.STANDARD,
			new JacksonResultCodec(), null);

	private IdempotentOperation resolve(String name) {
		Method method = ReflectionUtils.findMethod(Methods.class, name, String.class);
		assertThat(method).as(name).isNotNull();
		IdempotentOperation operation = this.source.getOperation(method, Methods.class);
		assertThat(operation).isNotNull();
		return operation;
	}

	@Test
	void stagesAndMonosAreAsynchronousWithTheirTypeArgumentAsTheValueType() {
		assertThat(resolve("stage").resultKind()).isEqualTo(ResultKind.STAGE);
		assertThat(resolve("future").resultKind()).isEqualTo(ResultKind.STAGE);
		assertThat(resolve("mono").resultKind()).isEqualTo(ResultKind.MONO);
		assertThat(resolve("plain").resultKind()).isEqualTo(ResultKind.VALUE);
		assertThat(resolve("receipts").resultKind()).isEqualTo(ResultKind.STAGE);
		assertThat(resolve("receipts").operation().codec()).isNotNull();
	}

	@Test
	void voidStagesAndMonosStoreNoValue() {
		assertThat(resolve("voidStage").operation().codec()).isNull();
		assertThat(resolve("voidMono").operation().codec()).isNull();
		assertThat(resolve("voidMono").resultKind()).isEqualTo(ResultKind.MONO);
	}

	@ParameterizedTest
	@ValueSource(strings = { "flux", "publisher", "flowPublisher", "stream", "intStream" })
	void multiValueTypesFailNamingTheMethod(String name) {
		assertThatIllegalStateException().isThrownBy(() -> resolve(name))
			.withMessageStartingWith(
					"Invalid return type of @Idempotent method " + Methods.class.getName() + "." + name + "(String): ")
			.withMessageContaining("yields many values, which cannot be stored and replayed as one result");
	}

	@Test
	void fluxIsNamedInItsFailure() {
		assertThatIllegalStateException().isThrownBy(() -> resolve("flux"))
			.withMessageContaining(Flux.class.getName() + " yields many values");
	}

	@ParameterizedTest
	@ValueSource(strings = { "plainFuture", "futureTask" })
	void futuresThatCannotBeFollowedFailNamingTheMethod(String name) {
		assertThatIllegalStateException().isThrownBy(() -> resolve(name))
			.withMessageStartingWith("Invalid return type of @Idempotent method " + Methods.class.getName() + "." + name
					+ "(String): a Future (")
			.withMessageContaining("cannot be followed without blocking a thread");
	}

	@Test
	void stageOfAClassOfItsOwnFails() {
		assertThatIllegalStateException().isThrownBy(() -> resolve("ownStage"))
			.withMessageContaining(".ownStage(String): " + OwnFuture.class.getName()
					+ " is a CompletionStage of its own class: declare CompletionStage or CompletableFuture");
	}

	@Test
	void rawStageFailsAskingForTheValueType() {
		assertThatIllegalStateException().isThrownBy(() -> resolve("rawStage"))
			.withMessageContaining(
					".rawStage(String): declare the type of the value, such as " + "CompletableFuture<Receipt>");
	}

	@Test
	void stageOfObjectFailsLikeObject() {
		assertThatIllegalStateException().isThrownBy(() -> resolve("objectStage"))
			.withMessageStartingWith(
					"Invalid return type of @Idempotent method " + Methods.class.getName() + ".objectStage(String): ")
			.withMessageContaining(
					"the value of its CompletableFuture: declared return type Object cannot be replayed");
	}

	record Receipt(String id) {
	}

	static class OwnFuture<T> extends CompletableFuture<T> {

	}

	@SuppressWarnings({ "rawtypes", "unused" })
	static class Methods {

		@Idempotent(key = "#id")
		public CompletionStage<String> stage(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Idempotent(key = "#id")
		public CompletableFuture<String> future(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Idempotent(key = "#id")
		public CompletableFuture<List<Receipt>> receipts(String id) {
			return CompletableFuture.completedFuture(List.of());
		}

		@Idempotent(key = "#id")
		public Mono<String> mono(String id) {
			return Mono.just(id);
		}

		@Idempotent(key = "#id")
		public String plain(String id) {
			return id;
		}

		@Idempotent(key = "#id")
		public CompletionStage<Void> voidStage(String id) {
			return CompletableFuture.completedFuture(null);
		}

		@Idempotent(key = "#id")
		public Mono<Void> voidMono(String id) {
			return Mono.empty();
		}

		@Idempotent(key = "#id")
		public Flux<String> flux(String id) {
			return Flux.just(id);
		}

		@Idempotent(key = "#id")
		public Publisher<String> publisher(String id) {
			return Flux.just(id);
		}

		@Idempotent(key = "#id")
		public Flow.Publisher<String> flowPublisher(String id) {
			return (subscriber) -> {
			};
		}

		@Idempotent(key = "#id")
		public Stream<String> stream(String id) {
			return Stream.of(id);
		}

		@Idempotent(key = "#id")
		public IntStream intStream(String id) {
			return IntStream.of(1);
		}

		@Idempotent(key = "#id")
		public Future<String> plainFuture(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Idempotent(key = "#id")
		public FutureTask<String> futureTask(String id) {
			return new FutureTask<>(() -> id);
		}

		@Idempotent(key = "#id")
		public OwnFuture<String> ownStage(String id) {
			return new OwnFuture<>();
		}

		@Idempotent(key = "#id")
		public CompletableFuture rawStage(String id) {
			return CompletableFuture.completedFuture(id);
		}

		@Idempotent(key = "#id")
		public CompletableFuture<Object> objectStage(String id) {
			return CompletableFuture.completedFuture(id);
		}

	}

}
