/**
 * Auto-configuration of the idempotency starter for Spring Boot's test slices.
 */
@NullMarked
package dev.idempotency.test.autoconfigure;

import org.jspecify.annotations.NullMarked;
