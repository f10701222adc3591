package dev.idempotency.store.dynamodb;

import java.util.Map;

import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The attributes of a record's item, and the values written to them. An item holds:
 * <ul>
 * <li>{@code id} (S, the hash key): the operation name, {@code ':'} and the key;</li>
 * <li>{@code v} (N): the format version, 1;</li>
 * <li>{@code state} (S): {@code IN_PROGRESS}, {@code COMPLETED} or {@code FAILED};</li>
 * <li>{@code fence} (N), {@code owner} (S) and {@code takeover} (BOOL) of the current or
 * last attempt;</li>
 * <li>{@code started}, {@code lease}, {@code completed} (absent until completed) and
 * {@code expires} (N): epoch milliseconds on the clock of the caller that wrote
 * them;</li>
 * <li>{@code ttl} (N): epoch seconds after which DynamoDB may delete the item, past
 * {@code expires} and the clock-skew allowance;</li>
 * <li>{@code fp} (B, when the attempt has a payload fingerprint);</li>
 * <li>once completed, one of {@code result} (B, the body), {@code reason} (S, why there
 * is none to replay) or {@code ftype} (S, the failure's type) with {@code fmsg} (S, its
 * message, when it has one).</li>
 * </ul>
 */
final class Attributes {

	static final String ID = "id";

	static final String VERSION = "v";

	static final String STATE = "state";

	static final String FENCE = "fence";

	static final String OWNER = "owner";

	static final String TAKEOVER = "takeover";

	static final String STARTED = "started";

	static final String LEASE = "lease";

	static final String COMPLETED = "completed";

	static final String EXPIRES = "expires";

	static final String TTL = "ttl";

	static final String FINGERPRINT = "fp";

	static final String RESULT = "result";

	static final String REASON = "reason";

	static final String FAILURE_TYPE = "ftype";

	static final String FAILURE_MESSAGE = "fmsg";

	static final long FORMAT_VERSION = 1;

	static final String IN_PROGRESS = "IN_PROGRESS";

	static final String COMPLETED_STATE = "COMPLETED";

	static final String FAILED = "FAILED";

	private Attributes() {
	}

	static AttributeValue s(String value) {
		return AttributeValue.fromS(value);
	}

	static AttributeValue n(long value) {
		return AttributeValue.fromN(Long.toString(value));
	}

	static AttributeValue b(byte[] value) {
		return AttributeValue.fromB(SdkBytes.fromByteArray(value));
	}

	static AttributeValue bool(boolean value) {
		return AttributeValue.fromBool(value);
	}

	static Map<String, AttributeValue> key(String id) {
		return Map.of(ID, s(id));
	}

}
