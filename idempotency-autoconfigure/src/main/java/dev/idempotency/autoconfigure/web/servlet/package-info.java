/**
 * Auto-configuration of idempotent Spring MVC request handlers.
 */
@NullMarked
package dev.idempotency.autoconfigure.web.servlet;

import org.jspecify.annotations.NullMarked;
