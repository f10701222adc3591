/**
 * Auto-configuration of the observation of idempotent calls.
 */
@NullMarked
package dev.idempotency.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
