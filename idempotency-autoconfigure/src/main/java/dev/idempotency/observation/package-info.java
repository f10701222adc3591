/**
 * Micrometer observations of idempotent calls, for tracing.
 */
@NullMarked
package dev.idempotency.observation;

import org.jspecify.annotations.NullMarked;
