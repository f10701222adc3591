package dev.idempotency.codec;

import java.io.OutputStream;
import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Collects an encoding in memory and refuses, with a {@link ResultTooLargeException}, the
 * first write that would take it past a limit.
 * <p>
 * Jackson's generator buffers its output and writes it here in chunks of several
 * kilobytes, so an encoding that fits one chunk, as most results do, arrives in one write
 * and is kept as one exact-size array: no copy is made of it afterwards. After the limit
 * is passed, further writes (Jackson's generator flushing as it closes on failure) are
 * dropped, so that the exception is thrown once and the caller can rethrow it however
 * Jackson wrapped it.
 */
final class LimitedOutputStream extends OutputStream {

	/**
	 * The largest array every JVM allocates.
	 */
	static final int MAX_ARRAY_SIZE = Integer.MAX_VALUE - 8;

	private static final int MIN_GROWTH = 256;

	private static final byte[] EMPTY = {};

	private final int limit;

	private byte[] buffer = EMPTY;

	private int count;

	private @Nullable ResultTooLargeException overflow;

	/**
	 * Create a stream that accepts at most {@code maxBytes}, or {@link #MAX_ARRAY_SIZE}
	 * if that is smaller.
	 * @param maxBytes the largest encoding accepted
	 */
	LimitedOutputStream(long maxBytes) {
		this.limit = (int) Math.min(maxBytes, MAX_ARRAY_SIZE);
	}

	@Override
	public void write(int b) {
		if (accept(1)) {
			ensureCapacity(this.count + 1);
			this.buffer[this.count++] = (byte) b;
		}
	}

	@Override
	public void write(byte[] bytes, int offset, int length) {
		if (!accept(length)) {
			return;
		}
		if (this.count == 0 && this.buffer.length == 0) {
			this.buffer = Arrays.copyOfRange(bytes, offset, offset + length);
			this.count = length;
			return;
		}
		ensureCapacity(this.count + length);
		System.arraycopy(bytes, offset, this.buffer, this.count, length);
		this.count += length;
	}

	/**
	 * Return the exception this stream threw when the limit was passed.
	 * @return the exception, or {@code null} while the encoding is within the limit
	 */
	@Nullable ResultTooLargeException overflow() {
		return this.overflow;
	}

	/**
	 * Return what was written.
	 * @return the bytes written, in an array of their exact length
	 */
	byte[] toByteArray() {
		return (this.count == this.buffer.length) ? this.buffer : Arrays.copyOf(this.buffer, this.count);
	}

	private boolean accept(int length) {
		if (this.overflow != null) {
			return false;
		}
		if (length > this.limit - this.count) {
			this.overflow = new ResultTooLargeException(this.limit);
			throw this.overflow;
		}
		return true;
	}

	private void ensureCapacity(int capacity) {
		if (capacity > this.buffer.length) {
			long doubled = Math.max(MIN_GROWTH, 2L * this.buffer.length);
			this.buffer = Arrays.copyOf(this.buffer, (int) Math.max(capacity, Math.min(doubled, this.limit)));
		}
	}

}
