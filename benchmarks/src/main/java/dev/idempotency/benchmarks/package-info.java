/**
 * The Redis harness: the starter against a hand-written floor of the same protocol, on a
 * {@code redis-server} of its own.
 */
@NullMarked
package dev.idempotency.benchmarks;

import org.jspecify.annotations.NullMarked;
