package dev.idempotency.engine;

import java.util.List;

import dev.idempotency.codec.ResultCodec.TypedCodec;
import dev.idempotency.store.RecordKey;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * An operation resolved once and run many times.
 *
 * @param name the operation name, valid as {@link #checkName(String)} says
 * @param settings its effective settings
 * @param codec codec of its declared result type, or {@code null} for {@code void}
 * @param keySource where its key comes from, for error messages (such as
 * {@code "key expression '#event.id' of Payments.handle(Event)"})
 * @param replayFailures the exception types stored as the outcome and replayed to
 * duplicates, in the order given (see
 * {@link dev.idempotency.Idempotent#replayFailures()})
 */
public record Operation(String name, OperationSettings settings, @Nullable TypedCodec codec, String keySource,
		List<Class<? extends Throwable>> replayFailures) {

	/**
	 * Create an operation.
	 * @param name the operation name, valid as {@link #checkName(String)} says
	 * @param settings its effective settings
	 * @param codec codec of its declared result type, or {@code null} for {@code void}
	 * @param keySource where its key comes from, for error messages
	 * @param replayFailures the exception types stored as the outcome and replayed to
	 * duplicates, each concrete with a public {@code (String)} constructor
	 * @throws IllegalArgumentException if one of the replayed failure types cannot be
	 * constructed from a message, naming it
	 */
	public Operation {
		checkName(name);
		Assert.notNull(settings, "'settings' must not be null");
		Assert.hasText(keySource, "'keySource' must not be empty");
		replayFailures = FailureReplays.check(replayFailures);
	}

	/**
	 * Create an operation that stores no failure: every exception releases its record.
	 * @param name the operation name, valid as {@link #checkName(String)} says
	 * @param settings its effective settings
	 * @param codec codec of its declared result type, or {@code null} for {@code void}
	 * @param keySource where its key comes from, for error messages
	 */
	public Operation(String name, OperationSettings settings, @Nullable TypedCodec codec, String keySource) {
		this(name, settings, codec, keySource, List.of());
	}

	/**
	 * Check that a string can name an operation. A name is not empty and contains no
	 * {@code ':'} (it separates the name from the key in the store, so that keys of two
	 * operations can never meet), no {@code '/'} (the Actuator endpoint takes the name as
	 * one path segment), no whitespace, no control or other invisible characters (two
	 * names that look the same would be two operations), and no unpaired surrogate (not
	 * Unicode text: it cannot be stored as UTF-8).
	 * @param name the candidate name
	 * @return the name
	 * @throws IllegalArgumentException if the name is not valid, saying why
	 */
	public static String checkName(@Nullable String name) {
		Assert.hasLength(name, "Operation name must not be empty");
		for (int i = 0; i < name.length();) {
			int codePoint = name.codePointAt(i);
			String reason = reason(codePoint);
			if (reason != null) {
				throw new IllegalArgumentException("Operation name '" + name + "' must not contain " + reason
						+ " (found U+" + String.format("%04X", codePoint) + " at index " + i + ")");
			}
			i += Character.charCount(codePoint);
		}
		return name;
	}

	private static @Nullable String reason(int codePoint) {
		if (codePoint == RecordKey.SEPARATOR) {
			return "':', which separates the name from the key in the store";
		}
		if (codePoint == '/') {
			return "'/', since the idempotency endpoint takes the name as one path segment";
		}
		if (Character.isWhitespace(codePoint) || Character.isSpaceChar(codePoint) || Character.isISOControl(codePoint)
				|| Character.getType(codePoint) == Character.FORMAT) {
			return "whitespace, control or invisible characters";
		}
		// codePointAt() returns a lone surrogate as itself; UTF-8 cannot encode it, and
		// the Redis key would carry '?' in its place, shared with every other such name
		if (Character.getType(codePoint) == Character.SURROGATE) {
			return "an unpaired surrogate, which is not Unicode text";
		}
		return null;
	}

}
