/**
 * HTTP request handlers as idempotent operations, shared by Spring MVC and WebFlux: the
 * key from the {@code Idempotency-Key} header scoped to the caller, the request binding
 * SPI, replayed {@code ResponseEntity} results, and problem responses.
 */
@NullMarked
package dev.idempotency.web;

import org.jspecify.annotations.NullMarked;
