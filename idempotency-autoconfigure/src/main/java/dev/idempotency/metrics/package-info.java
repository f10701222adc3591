/**
 * Micrometer meters of idempotent calls and store transitions.
 */
@NullMarked
package dev.idempotency.metrics;

import org.jspecify.annotations.NullMarked;
