/**
 * Idempotent Spring MVC request handlers: the request binding over the servlet request of
 * the current thread.
 */
@NullMarked
package dev.idempotency.web.servlet;

import org.jspecify.annotations.NullMarked;
