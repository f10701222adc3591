/**
 * The {@code @Idempotent} advisor: pointcut, interceptor, operation metadata and key
 * expressions.
 */
@NullMarked
package dev.idempotency.aop;

import org.jspecify.annotations.NullMarked;
