/**
 * Auto-configuration of the idempotency meters.
 */
@NullMarked
package dev.idempotency.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
