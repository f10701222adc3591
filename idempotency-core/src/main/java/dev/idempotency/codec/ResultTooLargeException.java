package dev.idempotency.codec;

/**
 * Thrown by {@link ResultCodec.TypedCodec#encode(Object, long)} when a result's encoding
 * exceeds the size it was allowed. The encoding is abandoned as soon as it passes the
 * limit, so a result too large to store is never held in memory whole.
 */
public class ResultTooLargeException extends RuntimeException {

	/**
	 * Number of bytes the encoding was allowed.
	 */
	private final long maxBytes;

	/**
	 * Create an exception for a result whose encoding exceeded a limit.
	 * @param maxBytes the number of bytes the encoding was allowed
	 */
	public ResultTooLargeException(long maxBytes) {
		super("encoded result exceeds " + maxBytes + " bytes");
		this.maxBytes = maxBytes;
	}

	/**
	 * Return the number of bytes the encoding was allowed.
	 * @return the limit that was exceeded
	 */
	public long getMaxBytes() {
		return this.maxBytes;
	}

}
