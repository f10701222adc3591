package dev.idempotency;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method idempotent: the first call for a key runs it and stores its result;
 * later calls with the same key return the stored result without running it.
 * <p>
 * A concurrent call for a key whose first attempt is still running is rejected or waits
 * (see {@link #onInProgress()}). An attempt that crashed is taken over once its lease
 * expires, and an attempt that lost its lease can never overwrite the result of the one
 * that replaced it. When the method throws, the record is released so that the next
 * delivery runs it again, and the exception reaches the caller unchanged; an exception
 * listed in {@link #replayFailures()} is stored instead, for duplicates to get.
 * <p>
 * A method may return a {@code CompletionStage} or {@code CompletableFuture}, or a
 * Reactor {@code Mono} when Reactor is present: its record completes when the value
 * arrives, and is released when the stage or {@code Mono} fails or is cancelled; the
 * caller's stage completes only after the record has, and every failure arrives through
 * it. Each subscription of a {@code Mono} is one call. Multi-value types ({@code Flux},
 * any other {@code Publisher}, {@code Stream}) and a plain {@code Future} fail startup.
 * <p>
 * On a type, every public method is idempotent, each under its own {@link #name()},
 * except the methods of {@link Object} ({@code toString}, {@code equals},
 * {@code hashCode}, {@code clone}, {@code finalize}) even where the type overrides them;
 * on one of those methods the annotation fails startup. Every duration attribute accepts
 * {@code "30s"} ({@code ns}, {@code us}, {@code ms}, {@code s}, {@code m}, {@code h},
 * {@code d}; a bare number is milliseconds), {@code "1h30m"}, ISO-8601 ({@code "PT5M"})
 * and {@code ${...}} placeholders; an empty value falls back to the {@code idempotency.*}
 * property, and {@code idempotency.operations.<name>.*} overrides both.
 *
 * @see IdempotentExecutor
 * @see IdempotencyContext
 */
@Target({ ElementType.METHOD, ElementType.TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Idempotent {

	/**
	 * SpEL expression that evaluates to the idempotency key, over the method's arguments
	 * ({@code #event.id}, {@code #p0}, {@code #a0}), {@code #root.method},
	 * {@code #root.target} and beans ({@code @clock}). A value that is not a
	 * {@link String} is converted with {@code toString()}. A {@code null} or blank key
	 * fails the call with {@link IdempotencyKeyException} before the method runs, and so
	 * does a key whose string would change from call to call: an array, or an object
	 * whose class does not override {@code toString()}. Collections and maps are checked
	 * element by element; a set or map must have a defined order (sorted, enum or
	 * linked).
	 * <p>
	 * On a request handler method (a {@code @RequestMapping}-family method of a
	 * {@code @Controller}) the key may be omitted: it is then the request's
	 * {@code Idempotency-Key} header ({@code idempotency.http.key-header}), the quotes of
	 * an RFC 8941 string removed, scoped to the request's authenticated principal
	 * ({@code idempotency.http.scope}); a missing or blank header fails the call with
	 * {@link IdempotencyKeyException}. Anywhere else an empty key fails startup.
	 * @return the key expression, or empty on a request handler for the request's key
	 * header
	 */
	String key() default "";

	/**
	 * Name of the operation: the namespace of its keys. The same key under two names is
	 * two operations. Defaults to {@code SimpleClassName.methodName}; set it explicitly
	 * to keep stored records valid across refactorings. On a type, each method's name is
	 * this name, a dot and the method name.
	 * <p>
	 * A name must not contain {@code ':'} (it separates the name from the key in the
	 * store, so that no key of one operation can reach the records of another),
	 * {@code '/'} (the Actuator endpoint takes the name as one path segment), whitespace,
	 * or control or other invisible characters. Startup fails on such a name, naming the
	 * method.
	 * @return the operation name, or empty for the default
	 */
	String name() default "";

	/**
	 * Lease of an in-progress attempt. The lease is renewed while the method runs, so it
	 * bounds how long a crashed attempt blocks its key, not how long the method may take.
	 * Empty falls back to {@code idempotency.lock-timeout}.
	 * @return the lock timeout, such as {@code "30s"}
	 */
	String lockTimeout() default "";

	/**
	 * How long a completed result is kept and replayed. Empty falls back to
	 * {@code idempotency.retention}.
	 * @return the retention, such as {@code "24h"}
	 */
	String retention() default "";

	/**
	 * What a call does when another attempt for the same key is in progress.
	 * @return the policy
	 */
	OnInProgress onInProgress() default OnInProgress.DEFAULT;

	/**
	 * Upper bound of {@link OnInProgress#WAIT}. Empty falls back to
	 * {@code idempotency.wait-timeout}.
	 * @return the wait timeout, such as {@code "10s"}
	 */
	String waitTimeout() default "";

	/**
	 * SpEL expression whose value is fingerprinted (SHA-256 of its canonical JSON) and
	 * stored with the record. A later call with the same key and another fingerprint
	 * fails with {@link IdempotencyKeyReuseException} and runs nothing. Empty (the
	 * default) turns fingerprinting off, except on a request handler method whose key is
	 * omitted: there the {@code @RequestBody} argument, if any, is the payload.
	 * @return the payload expression, or empty
	 */
	String payload() default "";

	/**
	 * Exceptions that are the outcome of the operation rather than a reason to retry it,
	 * such as a declined card. When the method throws an exception of a listed type (or
	 * of a subtype), its record completes with that failure: the name of the most
	 * specific listed type the exception is an instance of, and its message. The caller
	 * gets the original exception; later calls with the same key get a new instance of
	 * the listed type, made through its public {@code (String)} constructor with the
	 * stored message ({@code null} when the original had none), and the method does not
	 * run. Every other exception releases the record so that the next delivery runs the
	 * method again, and so does this library's own {@link IdempotencyException} (from a
	 * nested idempotent call, say) even when a listed type such as
	 * {@code RuntimeException} covers it. For a method that returns a
	 * {@code CompletionStage} or a {@code Mono}, the failure its stage or {@code Mono}
	 * ends with counts the same way, and duplicates get a failed stage or {@code Mono}; a
	 * cancelled call always releases.
	 * <p>
	 * Only listed types are ever instantiated from stored data. A stored type that is no
	 * longer listed fails a duplicate with {@link IdempotencyReplayException}. Startup
	 * fails, naming the method and the type, when a listed type is abstract or has no
	 * public {@code (String)} constructor.
	 * @return the exception types replayed to duplicates, empty (the default) for none
	 */
	Class<? extends Throwable>[] replayFailures() default {};

	/**
	 * What a call does when another attempt for the same key holds a live lease.
	 */
	enum OnInProgress {

		/**
		 * Use {@code idempotency.operations.<name>.on-in-progress} or
		 * {@code idempotency.on-in-progress}.
		 */
		DEFAULT,

		/**
		 * Fail at once with {@link IdempotencyInProgressException}.
		 */
		REJECT,

		/**
		 * Wait up to the wait timeout for the other attempt: replay its result when it
		 * completes, run the method when it fails or its lease expires, and fail with
		 * {@link IdempotencyInProgressException} when the timeout runs out.
		 */
		WAIT

	}

}
