/**
 * A payments application whose charges happen once per idempotency key: an HTTP endpoint
 * keyed by the {@code Idempotency-Key} header and an event handler keyed by the event id.
 */
@NullMarked
package dev.idempotency.sample;

import org.jspecify.annotations.NullMarked;
