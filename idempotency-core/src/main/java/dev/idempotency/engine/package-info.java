/**
 * The state machine of one idempotent call: settings, acquire, lease renewal, complete
 * and release, and the outcomes it reports.
 */
@NullMarked
package dev.idempotency.engine;

import org.jspecify.annotations.NullMarked;
