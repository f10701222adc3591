package dev.idempotency.kafka;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.idempotency.IdempotencyInProgressException;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.kafka.annotation.KafkaHandler;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link KafkaAsyncListenerAdvisor}: which methods it advises, and what a
 * listener container's consumer thread gets from them.
 */
class KafkaAsyncListenerAdvisorTests {

	private final KafkaAsyncListenerAdvisor advisor = new KafkaAsyncListenerAdvisor();

	private final Listener listener = proxy();

	@AfterEach
	void leaveTheConsumerThread() {
		KafkaUtils.clearConsumerGroupId();
	}

	@Test
	void advisesListenerMethodsThatDeclareAnAsynchronousResult() {
		assertThat(matches("future")).isTrue();
		assertThat(matches("stage")).isTrue();
		assertThat(matches("mono")).isTrue();
		assertThat(matches("handler")).isTrue();
	}

	@Test
	void leavesOtherMethodsAlone() {
		assertThat(matches("value")).isFalse();
		assertThat(matches("notAListener")).isFalse();
	}

	@Test
	void consumerThreadGetsTheValueCompleted() throws Exception {
		KafkaUtils.setConsumerGroupId("payments");
		CompletableFuture<String> result = this.listener.future(CompletableFuture.supplyAsync(() -> "charged"));
		assertThat(result).isCompletedWithValue("charged");
		assertThat(this.listener.mono(Mono.just("charged").delaySubscription(Duration.ofMillis(20))).toFuture())
			.isCompletedWithValue("charged");
	}

	@Test
	void consumerThreadGetsTheFailureThrown() {
		KafkaUtils.setConsumerGroupId("payments");
		IdempotencyInProgressException inProgress = new IdempotencyInProgressException("kafka.charges", "evt-1",
				Duration.ofSeconds(30));
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> this.listener.stage(CompletableFuture.supplyAsync(() -> {
				throw inProgress;
			})))
			.isSameAs(inProgress);
		assertThatExceptionOfType(IdempotencyInProgressException.class)
			.isThrownBy(() -> this.listener.mono(Mono.error(inProgress)))
			.isSameAs(inProgress);
	}

	@Test
	void consumerThreadGetsTheValueInTheFutureTypeTheMethodDeclares() {
		KafkaUtils.setConsumerGroupId("payments");
		ChargeFuture pending = new ChargeFuture();
		CompletableFuture.runAsync(() -> pending.complete("charged"));
		assertThat(this.listener.charge(pending)).isSameAs(pending).isCompletedWithValue("charged");
	}

	@Test
	void consumerThreadGetsAnEmptyResultForNone() {
		KafkaUtils.setConsumerGroupId("payments");
		assertThat(this.listener.future(null)).isCompletedWithValue(null);
		assertThat(this.listener.stage(null)).isCompletedWithValue(null);
		assertThat(this.listener.mono(null).hasElement().block(Duration.ofSeconds(1))).isFalse();
	}

	@Test
	void otherThreadsGetTheResultAsItIs() throws Exception {
		CompletableFuture<String> pending = new CompletableFuture<>();
		assertThat(this.listener.future(pending)).isSameAs(pending);
		pending.complete("charged");
		assertThat(pending.get(1, TimeUnit.SECONDS)).isEqualTo("charged");
	}

	private boolean matches(String name) {
		Method method = ReflectionUtils.findMethod(Listener.class, name, (Class<?>[]) null);
		assertThat(method).as(name).isNotNull();
		return this.advisor.getPointcut().getMethodMatcher().matches(method, Listener.class);
	}

	private Listener proxy() {
		ProxyFactory factory = new ProxyFactory(new Listener());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(this.advisor);
		return (Listener) factory.getProxy();
	}

	static class Listener {

		@KafkaListener(topics = "payments")
		public CompletableFuture<String> future(CompletableFuture<String> result) {
			return result;
		}

		@KafkaListener(topics = "payments")
		public CompletionStage<String> stage(CompletionStage<String> result) {
			return result;
		}

		@KafkaListener(topics = "payments")
		public Mono<String> mono(Mono<String> result) {
			return result;
		}

		@KafkaListener(topics = "payments")
		public ChargeFuture charge(ChargeFuture result) {
			return result;
		}

		@KafkaHandler
		public CompletableFuture<String> handler(CompletableFuture<String> result) {
			return result;
		}

		@KafkaListener(topics = "payments")
		public String value(String result) {
			return result;
		}

		public CompletableFuture<String> notAListener(CompletableFuture<String> result) {
			return result;
		}

	}

	static class ChargeFuture extends CompletableFuture<String> {

	}

}
