/**
 * The demo: a broker's burst of payment events with duplicates and concurrent
 * redeliveries, and a report of how many charges it made.
 */
@NullMarked
package dev.idempotency.sample.demo;

import org.jspecify.annotations.NullMarked;
