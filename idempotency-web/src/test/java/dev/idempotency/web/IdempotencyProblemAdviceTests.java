package dev.idempotency.web;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;

import static org.assertj.core.api.Assertions.assertThat;

class IdempotencyProblemAdviceTests {

	private final IdempotencyProblemAdvice advice = new IdempotencyProblemAdvice();

	@Test
	void retryAfterIsTheWholeSecondsLeftRoundedUpAndAtLeastOne() {
		assertThat(IdempotencyProblemAdvice.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
		assertThat(IdempotencyProblemAdvice.retryAfterSeconds(Duration.ofMillis(1))).isEqualTo(1);
		assertThat(IdempotencyProblemAdvice.retryAfterSeconds(Duration.ofMillis(1000))).isEqualTo(1);
		assertThat(IdempotencyProblemAdvice.retryAfterSeconds(Duration.ofMillis(1001))).isEqualTo(2);
		assertThat(IdempotencyProblemAdvice.retryAfterSeconds(Duration.ofSeconds(29).plusMillis(400))).isEqualTo(30);
	}

	@Test
	void inProgressIsConflictWithRetryAfterAndNoKeyInTheDetail() {
		ResponseEntity<ProblemDetail> response = this.advice
			.inProgress(new IdempotencyInProgressException("payments", "5:alice:k-1", Duration.ofMillis(2500)));
		assertThat(response.getStatusCode().value()).isEqualTo(409);
		assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("3");
		assertThat(response.getBody().getType().toString()).isEqualTo(IdempotencyProblems.IN_PROGRESS);
		assertThat(response.getBody().getDetail()).contains("3 seconds").doesNotContain("alice").doesNotContain("k-1");
	}

	@Test
	void keyReuseIsUnprocessableWithoutTheKey() {
		ResponseEntity<ProblemDetail> response = this.advice
			.keyReused(new IdempotencyKeyReuseException("payments", "5:alice:k-1"));
		assertThat(response.getStatusCode().value()).isEqualTo(422);
		assertThat(response.getBody().getType().toString()).isEqualTo(IdempotencyProblems.KEY_REUSED);
		assertThat(response.getBody().getDetail()).doesNotContain("alice");
	}

	@Test
	void subclassOverridingAMappingKeepsItAsAnExceptionHandlerAndTheOthers() throws Exception {
		ExceptionHandlerMethodResolver resolver = new ExceptionHandlerMethodResolver(OwnAdvice.class);
		assertThat(resolver.resolveMethodByThrowable(new IdempotencyKeyException("no key")))
			.isEqualTo(OwnAdvice.class.getMethod("invalidKey", IdempotencyKeyException.class));
		assertThat(resolver.resolveMethodByThrowable(new IdempotencyKeyReuseException("payments", "k")))
			.isEqualTo(IdempotencyProblemAdvice.class.getMethod("keyReused", IdempotencyKeyReuseException.class));
		assertThat(AnnotatedElementUtils.hasAnnotation(OwnAdvice.class, ControllerAdvice.class)).isTrue();
	}

	static class OwnAdvice extends IdempotencyProblemAdvice {

		@Override
		public ResponseEntity<ProblemDetail> invalidKey(IdempotencyKeyException ex) {
			return ResponseEntity.badRequest().build();
		}

	}

}
