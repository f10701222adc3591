/**
 * Auto-configuration of idempotent Spring WebFlux request handlers.
 */
@NullMarked
package dev.idempotency.autoconfigure.web.reactive;

import org.jspecify.annotations.NullMarked;
