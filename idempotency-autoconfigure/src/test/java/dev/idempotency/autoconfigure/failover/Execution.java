package dev.idempotency.autoconfigure.failover;

import java.util.UUID;

/**
 * What one execution of {@link ExecutionLedger#charge} returned: a result that no other
 * execution can return, so a caller that got a replay of another execution's result can
 * tell.
 *
 * @param key the key it ran for
 * @param id unique to the execution
 * @param run how many times the method had run for the key, this execution included
 */
record Execution(String key, UUID id, int run) {

}
