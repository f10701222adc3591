/**
 * Health indicator of the idempotency store.
 */
@NullMarked
package dev.idempotency.actuate.health;

import org.jspecify.annotations.NullMarked;
