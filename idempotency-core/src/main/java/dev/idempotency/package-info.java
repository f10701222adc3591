/**
 * Exactly-once effects on top of at-least-once delivery: {@link Idempotent},
 * {@link IdempotentExecutor}, {@link IdempotencyContext} and the exceptions.
 */
@NullMarked
package dev.idempotency;

import org.jspecify.annotations.NullMarked;
