package dev.idempotency.web;

import java.net.URI;
import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.idempotency.IdempotencyCompletionException;
import dev.idempotency.IdempotencyInProgressException;
import dev.idempotency.IdempotencyKeyException;
import dev.idempotency.IdempotencyKeyReuseException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.IdempotencyStoreException;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Maps the idempotency exceptions that reach a Spring MVC or WebFlux controller to RFC
 * 9457 {@code application/problem+json} responses, each with a type from
 * {@link IdempotencyProblems}: an invalid key 400, a request in progress 409 with
 * {@code Retry-After}, a key reused with another body 422, the store unavailable 503, an
 * outcome that could not be recorded 500, an unreplayable result 500.
 * <p>
 * Ordered last, so that an application's own {@code @ExceptionHandler} for one of these
 * exceptions, in a controller or in an advice of its own, wins. The details are fixed
 * texts: an exception's message may hold the stored key, which carries the principal's
 * name, so it is logged, never sent.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class IdempotencyProblemAdvice {

	private static final Log logger = LogFactory.getLog(IdempotencyProblemAdvice.class);

	/**
	 * Map a missing, blank or invalid key to 400.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> invalidKey(IdempotencyKeyException ex) {
		logger.debug("Idempotent request refused: " + ex.getMessage());
		return ResponseEntity.badRequest()
			.body(problem(HttpStatus.BAD_REQUEST, IdempotencyProblems.INVALID_KEY, "Invalid idempotency key",
					"The request has no valid idempotency key: send a new unique key with each new request, "
							+ "and the same key with its retries."));
	}

	/**
	 * Map a request whose key another request is still processing to 409, with
	 * {@code Retry-After} in whole seconds left on that request's lease, rounded up and
	 * at least one.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> inProgress(IdempotencyInProgressException ex) {
		long seconds = retryAfterSeconds(ex.getRetryAfter());
		return ResponseEntity.status(HttpStatus.CONFLICT)
			.header(HttpHeaders.RETRY_AFTER, Long.toString(seconds))
			.body(problem(HttpStatus.CONFLICT, IdempotencyProblems.IN_PROGRESS, "Request in progress",
					"A request with the same idempotency key is still being processed: retry after " + seconds
							+ ((seconds == 1) ? " second." : " seconds.")));
	}

	/**
	 * Map a key reused with another request body to 422.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> keyReused(IdempotencyKeyReuseException ex) {
		return ResponseEntity.unprocessableContent()
			.body(problem(HttpStatus.UNPROCESSABLE_CONTENT, IdempotencyProblems.KEY_REUSED, "Idempotency key reused",
					"The idempotency key was already used with a different request body: "
							+ "use a new key for a new request."));
	}

	/**
	 * Map a request that was processed but whose outcome could not be recorded to 500,
	 * without {@code Retry-After}: unlike an unavailable store, the request may have
	 * taken effect, so a client must not be invited to send it again as if nothing
	 * happened. The more specific type wins over {@link #storeUnavailable} in this
	 * advice.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> outcomeUnknown(IdempotencyCompletionException ex) {
		logger.error("Idempotent request ran, but its outcome could not be recorded: " + ex.getMessage());
		return ResponseEntity.internalServerError()
			.body(problem(HttpStatus.INTERNAL_SERVER_ERROR, IdempotencyProblems.OUTCOME_UNKNOWN, "Outcome unknown",
					"The request was processed and may have taken effect, but its outcome could not be recorded. "
							+ "A retry with the same idempotency key gets its response if the outcome was recorded "
							+ "after all, and is refused while the request still counts as in progress; after that "
							+ "it is processed again, so find out whether the request took effect before retrying."));
	}

	/**
	 * Map an unavailable store to 503: the request was not processed.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> storeUnavailable(IdempotencyStoreException ex) {
		logger.warn("Idempotent request failed on the store: " + ex.getMessage());
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.body(problem(HttpStatus.SERVICE_UNAVAILABLE, IdempotencyProblems.STORE_UNAVAILABLE,
					"Idempotency store unavailable", "The request could not be checked for duplicates: retry later."));
	}

	/**
	 * Map a stored result that cannot be replayed to 500, such as a response that
	 * exceeded {@code idempotency.max-result-size} or could not be encoded. The detail
	 * tells the client that the first request succeeded, so that it does not send it
	 * again under a new key.
	 * @param ex the exception
	 * @return the problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> unreplayable(IdempotencyReplayException ex) {
		logger.error("Idempotent request cannot be replayed: " + ex.getMessage());
		return ResponseEntity.internalServerError()
			.body(problem(HttpStatus.INTERNAL_SERVER_ERROR, IdempotencyProblems.UNREPLAYABLE_RESULT,
					"Response cannot be replayed",
					"The first request with this idempotency key succeeded, but its response was not stored and "
							+ "cannot be replayed. The request was not processed again."));
	}

	static long retryAfterSeconds(Duration left) {
		long millis = Math.max(0, left.toMillis());
		return Math.max(1, (millis + 999) / 1000);
	}

	private static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(URI.create(type));
		problem.setTitle(title);
		return problem;
	}

}
