package dev.idempotency.codec;

/**
 * Thrown when encoding a result that would not decode to what the method returned: a
 * value whose class is a subclass of the declared class, as the result itself or inside a
 * returned container. Stored, it would replay as an instance of the declared class, with
 * whatever the subclass adds silently dropped.
 * <p>
 * The message says why, in words that complete "the operation completed but …", for
 * instance {@code its result is a com.example.Sub, a subclass of the declared
 * com.example.Base, whose extra fields would be lost on replay}.
 */
public class UnreplayableResultException extends RuntimeException {

	/**
	 * Class of the value that cannot be replayed.
	 */
	private final Class<?> valueClass;

	/**
	 * Class declared where the value was found.
	 */
	private final Class<?> declaredClass;

	/**
	 * Create an exception for a value of a class other than the declared one.
	 * @param message the detail message, saying why
	 * @param valueClass the class of the offending value
	 * @param declaredClass the class declared where the value was found
	 */
	public UnreplayableResultException(String message, Class<?> valueClass, Class<?> declaredClass) {
		super(message);
		this.valueClass = valueClass;
		this.declaredClass = declaredClass;
	}

	/**
	 * Return the class of the value that cannot be replayed.
	 * @return the class of the offending value
	 */
	public Class<?> getValueClass() {
		return this.valueClass;
	}

	/**
	 * Return the class that the method declared where the value was found, which is what
	 * a replay would decode it to.
	 * @return the declared class
	 */
	public Class<?> getDeclaredClass() {
		return this.declaredClass;
	}

}
