package dev.idempotency.sample;

import java.time.Duration;

import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the idempotency exceptions of {@link PaymentController} into the problem details
 * the IETF Idempotency-Key draft asks for. The sample's own stop-gap: once the starter
 * maps them for every controller, this class can go.
 */
@RestControllerAdvice(assignableTypes = PaymentController.class)
class PaymentErrors {

	@ExceptionHandler
	ResponseEntity<ProblemDetail> inProgress(IdempotencyInProgressException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
				"A request with this Idempotency-Key is still being processed; retry later.");
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(wholeSeconds(ex.getRetryAfter())))
			.body(problem);
	}

	@ExceptionHandler
	ProblemDetail keyReused(IdempotencyKeyReuseException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_CONTENT,
				"This Idempotency-Key was already used with a different request body.");
	}

	@ExceptionHandler
	ProblemDetail invalidKey(IdempotencyKeyException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"The Idempotency-Key header must not be blank.");
	}

	// Retry-After takes whole seconds: round up, so that a retry never comes too early
	private static long wholeSeconds(Duration duration) {
		return Math.max(1, (duration.toMillis() + 999) / 1000);
	}

}
