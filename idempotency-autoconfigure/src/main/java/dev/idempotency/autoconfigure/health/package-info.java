/**
 * Auto-configuration of the idempotency health indicator.
 */
@NullMarked
package dev.idempotency.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
