package dev.idempotency.engine;

import dev.idempotency.store.AcquireResult;

/**
 * What an acquire found, and when it was sent: a lease the store granted started no
 * earlier than that.
 *
 * @param result the acquire result
 * @param sentNanos when that acquire was sent, on the engine's monotonic clock
 */
record Claim(AcquireResult result, long sentNanos) {
}
