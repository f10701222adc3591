/**
 * The Redis store: one Lua script per transition over one STRING per record.
 */
@NullMarked
package dev.idempotency.store.redis;

import org.jspecify.annotations.NullMarked;
