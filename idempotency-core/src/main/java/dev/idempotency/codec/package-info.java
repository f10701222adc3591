/**
 * Encoding of results for replay, and payload fingerprints.
 */
@NullMarked
package dev.idempotency.codec;

import org.jspecify.annotations.NullMarked;
