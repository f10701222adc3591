package dev.idempotency.engine;

import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.codec.ResultTooLargeException;
import dev.idempotency.codec.UnreplayableResultException;
import dev.idempotency.store.StoredResult;

/**
 * Turns a method's result into what its record stores. A result that cannot be encoded,
 * or whose encoding passes {@code idempotency.max-result-size}, is stored as not
 * replayable with the reason: the method ran, so the record must complete all the same.
 */
final class ResultEncoder {

	private static final Log logger = LogFactory.getLog(ResultEncoder.class);

	private static final byte[] NO_BODY = {};

	private static final StoredResult VOID = StoredResult.of(NO_BODY);

	private final long maxResultSize;

	ResultEncoder(long maxResultSize) {
		this.maxResultSize = maxResultSize;
	}

	/**
	 * Encode a result. Never throws: the {@link Encoded#error()} of a failure that is an
	 * {@link Error} is for the caller to throw once the record is complete.
	 * @param operation the operation
	 * @param attempt the attempt that produced the result
	 * @param value the result
	 * @return what to store, and the error to rethrow if any
	 */
	Encoded encode(Operation operation, Attempt attempt, @Nullable Object value) {
		TypedCodec codec = operation.codec();
		if (codec == null) {
			return new Encoded(VOID, null);
		}
		try {
			return new Encoded(StoredResult.of(codec.encode(value, this.maxResultSize)), null);
		}
		catch (ResultTooLargeException ex) {
			logger.warn(attempt + " completed, but its encoded result exceeds idempotency.max-result-size of "
					+ this.maxResultSize + " bytes; duplicates will get IdempotencyReplayException");
			return new Encoded(StoredResult.unreplayable(
					"its encoded result exceeds idempotency.max-result-size of " + this.maxResultSize + " bytes"),
					null);
		}
		catch (UnreplayableResultException ex) {
			logger.warn(attempt + " completed, but " + ex.getMessage()
					+ "; duplicates will get IdempotencyReplayException");
			return new Encoded(StoredResult.unreplayable(ex.getMessage()), null);
		}
		catch (Throwable ex) {
			// An Error too (an assertion in a getter, a class missing at run time, memory
			// running out): the method ran, and its record must say so.
			logger.warn(attempt + " completed, but its result could not be encoded; duplicates will get "
					+ "IdempotencyReplayException", ex);
			StoredResult stored = StoredResult
				.unreplayable("its result of type " + typeName(value) + " could not be encoded: " + ex);
			return new Encoded(stored, (ex instanceof Error error) ? error : null);
		}
	}

	/**
	 * Bound a failure that duplicates are to get by {@code idempotency.max-result-size},
	 * as a result is: a message larger than that is not stored, and duplicates get
	 * {@code IdempotencyReplayException} instead, without running the method again.
	 * @param attempt the attempt that failed
	 * @param failure the failure to store
	 * @return the failure, or the reason why it cannot be replayed
	 */
	StoredResult failure(Attempt attempt, StoredResult failure) {
		String type = failure.failureType();
		String message = failure.failureMessage();
		if (type == null || message == null || utf8Length(message) + utf8Length(type) <= this.maxResultSize) {
			return failure;
		}
		logger.warn(attempt + " failed with a " + type + " whose message exceeds idempotency.max-result-size of "
				+ this.maxResultSize + " bytes; duplicates will get IdempotencyReplayException");
		return StoredResult.unreplayable("its failure of type " + type
				+ " has a message that exceeds idempotency.max-result-size of " + this.maxResultSize + " bytes");
	}

	// Every char is at least one byte in UTF-8: a text of more chars than the limit is
	// too large without being encoded
	private long utf8Length(String text) {
		if (text.length() > this.maxResultSize) {
			return text.length();
		}
		return text.getBytes(StandardCharsets.UTF_8).length;
	}

	private static String typeName(@Nullable Object value) {
		return (value != null) ? value.getClass().getName() : "null";
	}

	/**
	 * What to store for a result.
	 *
	 * @param stored the stored result
	 * @param error an error raised while encoding, thrown once the record is complete
	 */
	record Encoded(StoredResult stored, @Nullable Error error) {
	}

}
