/**
 * Auto-configuration of RabbitMQ listener containers for {@code @Idempotent} listeners.
 */
@NullMarked
package dev.idempotency.autoconfigure.amqp;

import org.jspecify.annotations.NullMarked;
