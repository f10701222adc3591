package dev.idempotency.store.dynamodb;

import java.nio.charset.StandardCharsets;

import dev.idempotency.store.StoredResult;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;

/**
 * Fits a completion's outcome in DynamoDB's limit of 400 KB per item: a result body that
 * does not fit is completed as not replayable, with the reason; a failure's message or an
 * unreplayable reason that does not fit is cut short.
 */
final class ResultFit {

	static final int MAX_ITEM_BYTES = 400 * 1024;

	// What an item holds besides its key, owner and outcome, rounded up: attribute names,
	// numbers (at most 21 bytes each), the state, the takeover mark and a fingerprint of
	// up to 256 bytes
	private static final int OVERHEAD = 1024;

	private ResultFit() {
	}

	static StoredResult fit(String id, String owner, StoredResult result) {
		int room = MAX_ITEM_BYTES - OVERHEAD - utf8(id) - utf8(owner);
		String type = result.failureType();
		String reason = result.unreplayableReason();
		if (type != null) {
			String message = result.failureMessage();
			return (message != null && utf8(type) + utf8(message) > room)
					? StoredResult.failure(type, cut(message, room - utf8(type))) : result;
		}
		if (reason != null) {
			return (utf8(reason) > room) ? StoredResult.unreplayable(cut(reason, room)) : result;
		}
		return (result.body().length > room) ? unreplayable(result.body().length) : result;
	}

	static StoredResult unreplayable(int size) {
		return StoredResult.unreplayable("result of " + size + " bytes does not fit in a DynamoDB item "
				+ "(at most 400 KB, key and attributes included)");
	}

	/**
	 * Whether a store error was DynamoDB refusing an item over its size limit.
	 */
	static boolean isItemTooLarge(RuntimeException ex) {
		return ex.getCause() instanceof DynamoDbException cause && cause.statusCode() == 400
				&& cause.getMessage() != null && cause.getMessage().contains("maximum allowed size");
	}

	private static String cut(String text, int bytes) {
		int end = Math.min(text.length(), Math.max(0, bytes / 3));
		if (end > 0 && Character.isHighSurrogate(text.charAt(end - 1))) {
			end--;
		}
		return text.substring(0, end);
	}

	private static int utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8).length;
	}

}
