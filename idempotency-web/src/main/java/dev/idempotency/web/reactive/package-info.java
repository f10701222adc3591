/**
 * Idempotent Spring WebFlux request handlers: the web filter that makes the exchange
 * visible to the handler method and the request binding over it.
 */
@NullMarked
package dev.idempotency.web.reactive;

import org.jspecify.annotations.NullMarked;
