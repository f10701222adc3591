/**
 * Auto-configuration of the idempotency actuator endpoint.
 */
@NullMarked
package dev.idempotency.autoconfigure.endpoint;

import org.jspecify.annotations.NullMarked;
