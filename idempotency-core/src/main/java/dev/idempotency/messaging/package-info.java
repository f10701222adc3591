/**
 * What listener containers of message brokers share: how long to wait before a message
 * whose key is in progress elsewhere is delivered again, and how a store outage that
 * every message meets is logged.
 */
@NullMarked
package dev.idempotency.messaging;

import org.jspecify.annotations.NullMarked;
