/**
 * The DynamoDB store: one item per record in a table of the application's choice, one
 * conditional write per transition, leases judged on the callers' clocks with a skew
 * allowance, and a TTL attribute that lets DynamoDB delete expired records.
 */
@NullMarked
package dev.idempotency.store.dynamodb;

import org.jspecify.annotations.NullMarked;
