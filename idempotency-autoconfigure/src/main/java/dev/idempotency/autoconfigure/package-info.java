/**
 * Auto-configuration of the idempotency starter: properties, engine, store selection and
 * the {@code @Idempotent} advisor.
 */
@NullMarked
package dev.idempotency.autoconfigure;

import org.jspecify.annotations.NullMarked;
