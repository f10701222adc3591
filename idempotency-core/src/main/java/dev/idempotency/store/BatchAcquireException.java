package dev.idempotency.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyStoreException;

/**
 * {@link IdempotencyStore#acquireAll} failed for some items of a batch but answered for
 * others: a store that learns each item's fate separately (a pipeline, a cluster with one
 * primary down, one value that is not a record) reports what it learned, so that the
 * items it answered for are treated as single acquires would be. An item it answered
 * {@link AcquireResult.Completed completed} must be replayed, never run again.
 */
public class BatchAcquireException extends IdempotencyStoreException {

	private static final long serialVersionUID = 1L;

	private final transient List<@Nullable AcquireResult> results;

	/**
	 * Create an exception with the answers the store gave.
	 * @param message the detail message
	 * @param cause the failure of the first item that failed
	 * @param results the result of each item in the order of the batch, {@code null} for
	 * an item the store failed to answer
	 */
	public BatchAcquireException(String message, @Nullable Throwable cause, List<@Nullable AcquireResult> results) {
		super(message, cause);
		this.results = Collections.unmodifiableList(new ArrayList<>(results));
	}

	/**
	 * Return the result of each item in the order of the batch, {@code null} for an item
	 * the store failed to answer (which may have been acquired all the same).
	 * @return the results
	 */
	public List<@Nullable AcquireResult> results() {
		return this.results;
	}

}
