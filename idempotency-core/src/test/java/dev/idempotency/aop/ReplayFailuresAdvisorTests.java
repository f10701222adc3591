package dev.idempotency.aop;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.idempotency.Idempotent;
import dev.idempotency.engine.IdempotencyDefaults;
import dev.idempotency.engine.IdempotencyEngine;
import dev.idempotency.store.memory.InMemoryIdempotencyStore;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Idempotent(replayFailures = ...)} through the advisor: failures replayed to
 * duplicates, and listed types that cannot be replayed failing startup.
 */
class ReplayFailuresAdvisorTests {

	private AnnotationConfigApplicationContext context;

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private <T> T start(Class<T> beanType) {
		this.context = new AnnotationConfigApplicationContext();
		this.context.registerBean(IdempotencyDefaults.class, () -> IdempotencyDefaults.STANDARD);
		this.context.register(Infrastructure.class, beanType);
		this.context.refresh();
		return this.context.getBean(beanType);
	}

	@Test
	void listedFailureIsReplayedToDuplicatesAndOthersAreRetried() throws Exception {
		Payments payments = start(Payments.class);
		CardDeclinedException declined = new CardDeclinedException("declined");
		payments.failWith(declined);
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> payments.charge("order-1"))
			.isSameAs(declined);
		payments.failWith(null);
		assertThatExceptionOfType(CardDeclinedException.class).isThrownBy(() -> payments.charge("order-1"))
			.isNotSameAs(declined)
			.withMessage("declined");
		payments.failWith(new IllegalStateException("gateway down"));
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> payments.charge("order-2"));
		payments.failWith(null);
		assertThat(payments.charge("order-2")).isEqualTo("charged 3");
		assertThat(payments.runs()).isEqualTo(3);
	}

	@Test
	void listedTypeWithoutAStringConstructorFailsStartupNamingMethodAndType() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(WithoutConstructor.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("replayFailures", "WithoutConstructor.charge(String)", CodedException.class.getName(),
					"no public (String) constructor");
	}

	@Test
	void abstractListedTypeFailsStartupNamingMethodAndType() {
		assertThatExceptionOfType(BeanCreationException.class).isThrownBy(() -> start(AbstractListed.class))
			.extracting(AdvisorInfrastructure::invalidAnnotation)
			.asString()
			.contains("AbstractListed.charge(String)", AbstractPaymentException.class.getName(), "abstract");
	}

	@Configuration(proxyBeanMethods = false)
	@Import(AdvisorInfrastructure.class)
	static class Infrastructure {

		@Bean
		IdempotencyEngine idempotencyEngine(IdempotencyDefaults defaults) {
			return new IdempotencyEngine(new InMemoryIdempotencyStore(), defaults, List.of());
		}

	}

	static class Payments {

		private final AtomicInteger runs = new AtomicInteger();

		private volatile Exception failure;

		// Called on the proxy, which passes them to the target whose fields they are
		int runs() {
			return this.runs.get();
		}

		void failWith(Exception failure) {
			this.failure = failure;
		}

		@Idempotent(key = "#orderId", replayFailures = CardDeclinedException.class)
		public String charge(String orderId) throws CardDeclinedException {
			int run = this.runs.incrementAndGet();
			Exception failure = this.failure;
			if (failure instanceof CardDeclinedException declined) {
				throw declined;
			}
			if (failure instanceof RuntimeException runtime) {
				throw runtime;
			}
			return "charged " + run;
		}

	}

	static class WithoutConstructor {

		@Idempotent(key = "#orderId", replayFailures = CodedException.class)
		public String charge(String orderId) {
			return "charged";
		}

	}

	static class AbstractListed {

		@Idempotent(key = "#orderId", replayFailures = AbstractPaymentException.class)
		public String charge(String orderId) {
			return "charged";
		}

	}

	public static class CardDeclinedException extends Exception {

		public CardDeclinedException(String message) {
			super(message);
		}

	}

	public static class CodedException extends RuntimeException {

		public CodedException(int code) {
			super("code " + code);
		}

	}

	public abstract static class AbstractPaymentException extends RuntimeException {

		protected AbstractPaymentException(String message) {
			super(message);
		}

	}

}
