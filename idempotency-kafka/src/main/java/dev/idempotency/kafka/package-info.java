/**
 * Idempotent Kafka listeners: the error handling that makes spring-kafka's listener
 * containers retry a record whose key is in progress elsewhere, without ever committing
 * it as done, and recover at once the records that no retry can fix.
 */
@NullMarked
package dev.idempotency.kafka;

import org.jspecify.annotations.NullMarked;
