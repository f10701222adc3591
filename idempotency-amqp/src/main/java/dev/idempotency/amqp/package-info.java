/**
 * RabbitMQ listener containers (Spring AMQP) and {@code @Idempotent} listeners: what a
 * container does with a message whose call met another attempt in progress, a reused key,
 * or an unavailable store.
 */
@NullMarked
package dev.idempotency.amqp;

import org.jspecify.annotations.NullMarked;
