package dev.idempotency.store.dynamodb;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import dev.idempotency.IdempotencyStoreException;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.dynamodb.StoredItem.NotARecord;

import org.springframework.util.Assert;

/**
 * The store errors of the DynamoDB store, each naming the record and the table: a request
 * that failed, an item that is not a record, a key that does not fit.
 */
final class DynamoDbFailures {

	// DynamoDB's limit on a partition key, in UTF-8 bytes
	static final int MAX_KEY_BYTES = 2048;

	// Times are kept within what epoch milliseconds hold without overflow when added up
	private static final long MAX_MILLIS = Duration.ofDays(365_250).toMillis();

	private DynamoDbFailures() {
	}

	static IdempotencyStoreException failed(String operation, RecordKey key, String table, RuntimeException ex) {
		return new IdempotencyStoreException("DynamoDB failed to " + operation + " the idempotency record '" + key
				+ "' in table " + table + ": " + ex.getMessage(), ex);
	}

	static IdempotencyStoreException corrupt(RecordKey key, String table, NotARecord why) {
		return new IdempotencyStoreException("The item of '" + key + "' in table " + table + " is not an "
				+ "idempotency record, since " + why.getMessage() + "; it was left as it is: evict it, or repair it");
	}

	/**
	 * Return the hash key of a record, checked to fit DynamoDB's limit.
	 */
	static String id(RecordKey key, String table) {
		String id = key.toString();
		int surrogate = unpairedSurrogate(id);
		if (surrogate >= 0) {
			// DynamoDB would take it for U+FFFD, and the key for others holding one
			throw new IdempotencyStoreException("The idempotency record '" + key + "' cannot be stored in table "
					+ table + ": it holds an unpaired surrogate at index " + surrogate + " of '" + key
					+ "', which is not Unicode text and would share an item with other keys");
		}
		int length = id.getBytes(StandardCharsets.UTF_8).length;
		if (length > MAX_KEY_BYTES) {
			throw new IdempotencyStoreException("The idempotency record '" + key + "' cannot be stored in table "
					+ table + ": its name and key take " + length + " bytes, and a DynamoDB partition key at most "
					+ MAX_KEY_BYTES + "; lower idempotency.max-key-length");
		}
		return id;
	}

	private static int unpairedSurrogate(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (Character.isHighSurrogate(value.charAt(i)) && i + 1 < value.length()
					&& Character.isLowSurrogate(value.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(value.charAt(i))) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Return a duration in whole milliseconds, at most a thousand years.
	 */
	static long millis(Duration duration, String name) {
		Assert.notNull(duration, () -> "'" + name + "' must not be null");
		if (duration.compareTo(Duration.ofMillis(MAX_MILLIS)) > 0) {
			return MAX_MILLIS;
		}
		long millis = duration.toMillis();
		Assert.isTrue(millis > 0, () -> "'" + name + "' must be at least one millisecond");
		return millis;
	}

}
