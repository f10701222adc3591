package dev.idempotency.engine;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.idempotency.IdempotencyException;
import dev.idempotency.IdempotencyReplayException;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.StoredResult;

import org.springframework.util.Assert;
import org.springframework.util.ReflectionUtils;

/**
 * Failures that an operation stores as its outcome and gives to duplicates, as
 * {@link dev.idempotency.Idempotent#replayFailures()} describes. Only a listed type is
 * ever instantiated from stored data: a stored name is looked up among the operation's
 * listed types, never loaded by name.
 */
final class FailureReplays {

	private static final Log logger = LogFactory.getLog(FailureReplays.class);

	private FailureReplays() {
	}

	/**
	 * Check that every listed type can be constructed from a message.
	 * @param types the listed types
	 * @return an immutable copy
	 * @throws IllegalArgumentException naming the first type that cannot
	 */
	static List<Class<? extends Throwable>> check(List<Class<? extends Throwable>> types) {
		Assert.notNull(types, "'replayFailures' must not be null");
		for (Class<? extends Throwable> type : types) {
			Assert.notNull(type, "'replayFailures' must not contain null");
			if (Modifier.isAbstract(type.getModifiers())) {
				throw new IllegalArgumentException("replayed failure type " + type.getName()
						+ " is abstract: list concrete types, since duplicates get a new instance of the listed type");
			}
			try {
				type.getConstructor(String.class);
			}
			catch (NoSuchMethodException ex) {
				throw new IllegalArgumentException("replayed failure type " + type.getName()
						+ " has no public (String) constructor, which duplicates get their instance through");
			}
		}
		return List.copyOf(types);
	}

	/**
	 * Return the listed type a failure is stored as: the most specific listed type it is
	 * an instance of. Every such type is a superclass of the failure's class, so they
	 * form one line, and the first met walking up from the failure's class is the most
	 * specific.
	 * @param operation the operation
	 * @param failure what its method threw
	 * @return the listed type, or {@code null} if the failure is to be retried
	 */
	static @Nullable Class<? extends Throwable> listedType(Operation operation, Throwable failure) {
		List<Class<? extends Throwable>> listed = operation.replayFailures();
		// The library's own exceptions (a nested call in progress, a store down) say
		// nothing final about this call, even when a broad listed type covers them.
		if (listed.isEmpty() || failure instanceof IdempotencyException) {
			return null;
		}
		for (Class<?> type = failure.getClass(); type != null; type = type.getSuperclass()) {
			if (listed.contains(type)) {
				return type.asSubclass(Throwable.class);
			}
		}
		return null;
	}

	/**
	 * Return what to store for a failure of a listed type.
	 * @param operation the operation
	 * @param failure what its method threw
	 * @return the failure to store, or {@code null} if its record is to be released: its
	 * type is not listed, or its message cannot be read
	 */
	static @Nullable StoredResult stored(Operation operation, Throwable failure) {
		Class<? extends Throwable> type = listedType(operation, failure);
		if (type == null) {
			return null;
		}
		try {
			return StoredResult.failure(type.getName(), failure.getMessage());
		}
		catch (RuntimeException ex) {
			// A getMessage() of its own that fails: what would be replayed is unknown
			logger.warn("Operation '" + operation.name() + "' threw a " + type.getName()
					+ " whose message cannot be read; its record is released for a retry instead", ex);
			return null;
		}
	}

	/**
	 * Create the exception a duplicate gets for a stored failure.
	 * @param operation the operation
	 * @param record the record that holds the failure
	 * @param stored the failure
	 * @return a new instance of the stored type, with the stored message
	 * @throws IdempotencyReplayException if the stored type is not listed or its
	 * constructor fails
	 */
	static Throwable replay(Operation operation, RecordKey record, StoredResult stored) {
		String typeName = stored.failureType();
		Class<? extends Throwable> type = null;
		for (Class<? extends Throwable> candidate : operation.replayFailures()) {
			if (candidate.getName().equals(typeName)) {
				type = candidate;
				break;
			}
		}
		String completed = "Operation '" + record.name() + "' already completed for key '" + record.key()
				+ "' with a failure of type " + typeName;
		if (type == null) {
			throw new IdempotencyReplayException(
					completed + ", which is not one of its replayFailures " + names(operation.replayFailures())
							+ " (they changed since, or the record is foreign)" + "; the method was not run again");
		}
		try {
			Constructor<? extends Throwable> constructor = type.getConstructor(String.class);
			// A public constructor of a class that is not public itself
			ReflectionUtils.makeAccessible(constructor);
			return constructor.newInstance(stored.failureMessage());
		}
		catch (InvocationTargetException ex) {
			throw new IdempotencyReplayException(completed + ", whose (String) constructor failed: "
					+ ex.getTargetException() + "; the method was not run again", ex.getTargetException());
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			throw new IdempotencyReplayException(
					completed + ", which could not be constructed: " + ex + "; the method was not run again", ex);
		}
	}

	private static String names(List<Class<? extends Throwable>> types) {
		return types.stream().map(Class::getName).toList().toString();
	}

}
