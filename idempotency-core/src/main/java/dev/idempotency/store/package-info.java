/**
 * The store SPI: the atomic transitions of an idempotency record.
 */
@NullMarked
package dev.idempotency.store;

import org.jspecify.annotations.NullMarked;
