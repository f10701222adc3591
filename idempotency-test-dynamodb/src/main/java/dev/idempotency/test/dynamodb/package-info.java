/**
 * A real DynamoDB-compatible server for tests, found in the order of
 * {@link dev.idempotency.test.dynamodb.TestDynamoDb}: an endpoint from the environment,
 * else a dynalite started from the machine.
 */
@NullMarked
package dev.idempotency.test.dynamodb;

import org.jspecify.annotations.NullMarked;
