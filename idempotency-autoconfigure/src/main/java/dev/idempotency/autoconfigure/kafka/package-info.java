/**
 * Auto-configuration of idempotent Kafka listeners.
 */
@NullMarked
package dev.idempotency.autoconfigure.kafka;

import org.jspecify.annotations.NullMarked;
