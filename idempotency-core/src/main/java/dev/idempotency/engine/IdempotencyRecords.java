package dev.idempotency.engine;

import java.util.List;
import java.util.Optional;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.RecordKey;

import org.springframework.util.Assert;

/**
 * Looks records up by operation name and key, as calls store them, for operators: the
 * Actuator endpoint, or an application's own admin tools.
 */
public final class IdempotencyRecords {

	private final IdempotencyStore store;

	private final int maxKeyLength;

	/**
	 * Create a lookup.
	 * @param store the store of records
	 * @param maxKeyLength keys longer than this are stored hashed
	 */
	public IdempotencyRecords(IdempotencyStore store, int maxKeyLength) {
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		this.maxKeyLength = maxKeyLength;
	}

	/**
	 * Return the record a call of an operation with a key is stored under: a key longer
	 * than the maximum key length, or one that starts with {@code sha256:}, is stored as
	 * {@code sha256:} followed by the lowercase hex SHA-256 of its UTF-8 bytes, any other
	 * key as it is. A hashed key given in its stored form ({@code sha256:} and 64 hex
	 * digits) is taken as it is, so that an operator can look up a record by the key a
	 * log or {@code IdempotencyContext.key()} showed.
	 * @param name the operation name
	 * @param key the key as the key expression evaluates it
	 * @return the record key
	 * @throws IllegalArgumentException if no operation can have the name (see
	 * {@link Operation#checkName}), or the key is blank
	 */
	public RecordKey recordKey(String name, String key) {
		Operation.checkName(name);
		Assert.hasText(key, "'key' must not be empty");
		return new RecordKey(name, HashedKeys.isHashed(key) ? key : HashedKeys.stored(key, this.maxKeyLength));
	}

	/**
	 * Return the records a key given by an operator may name, in the order to look them
	 * up: that of {@link #recordKey}, and for a key in the stored form of a hashed key,
	 * also that of a call whose key expression evaluated to that very string (such as an
	 * OCI image digest), which is stored hashed since it starts with {@code sha256:}.
	 * Both records exist at once only if a call's key was the stored form of another
	 * call's.
	 * @param name the operation name
	 * @param key the key as the key expression evaluates it, or a hashed key's stored
	 * form
	 * @return one or two record keys, that of {@link #recordKey} first
	 * @throws IllegalArgumentException if no operation can have the name (see
	 * {@link Operation#checkName}), or the key is blank
	 */
	public List<RecordKey> recordKeys(String name, String key) {
		RecordKey recordKey = recordKey(name, key);
		if (!recordKey.key().equals(key)) {
			return List.of(recordKey);
		}
		String evaluated = HashedKeys.stored(key, this.maxKeyLength);
		return evaluated.equals(key) ? List.of(recordKey) : List.of(recordKey, new RecordKey(name, evaluated));
	}

	/**
	 * Read a record.
	 * @param key the record
	 * @return the record, or empty if there is none
	 * @throws dev.idempotency.IdempotencyStoreException when the store fails
	 */
	public Optional<IdempotencyRecord> read(RecordKey key) {
		return this.store.read(key);
	}

	/**
	 * Delete a record, whatever its state, so that the next call runs the method again.
	 * @param key the record
	 * @return whether a record was deleted
	 * @throws dev.idempotency.IdempotencyStoreException when the store fails
	 */
	public boolean evict(RecordKey key) {
		return this.store.evict(key);
	}

	/**
	 * Return the type of the store, such as {@code redis}.
	 * @return the store type
	 */
	public String storeType() {
		return this.store.type();
	}

}
