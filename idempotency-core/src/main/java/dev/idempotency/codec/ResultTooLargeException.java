package dev.idempotency.codec;

/**
 * An encoded result would pass the size limit given to
 * {@link ResultCodec.TypedCodec#encode(Object, long)}.
 */
public class ResultTooLargeException extends RuntimeException {

	private final long limit;

	/**
	 * Create an exception for a limit.
	 * @param limit the limit, in bytes
	 */
	public ResultTooLargeException(long limit) {
		super("encoded result exceeds " + limit + " bytes");
		this.limit = limit;
	}

	/**
	 * Return the limit that was passed.
	 * @return the limit, in bytes
	 */
	public long getLimit() {
		return this.limit;
	}

}
