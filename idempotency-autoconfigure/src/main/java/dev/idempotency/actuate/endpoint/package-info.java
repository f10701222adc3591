/**
 * Actuator endpoint of the idempotency starter: how operations are configured, and single
 * records to inspect or evict.
 */
@NullMarked
package dev.idempotency.actuate.endpoint;

import org.jspecify.annotations.NullMarked;
