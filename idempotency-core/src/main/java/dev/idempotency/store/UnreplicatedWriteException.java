package dev.idempotency.store;

import dev.idempotency.IdempotencyStoreException;

/**
 * A transition that the store applied, whose replication it could not confirm: with
 * replica acknowledgements, a completion that too few replicas acknowledged in time. The
 * record holds the new state where it was written; a failover to a replica that lacks it
 * would forget the write.
 */
public class UnreplicatedWriteException extends IdempotencyStoreException {

	/**
	 * Create an exception.
	 * @param message the detail message, which says what was written where
	 */
	public UnreplicatedWriteException(String message) {
		super(message);
	}

}
