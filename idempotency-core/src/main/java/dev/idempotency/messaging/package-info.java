/**
 * What listener containers of message brokers share: how long to wait before a message
 * whose key is in progress elsewhere is delivered again.
 */
@NullMarked
package dev.idempotency.messaging;

import org.jspecify.annotations.NullMarked;
