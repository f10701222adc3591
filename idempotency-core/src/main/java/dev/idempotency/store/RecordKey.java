package dev.idempotency.store;

import org.springframework.util.Assert;

/**
 * Identity of one record: an operation name and a key within it.
 * <p>
 * A store may lay the two out as one string, {@code name + ":" + key} (the Redis store
 * does, after its key prefix). Since a name never contains {@code ':'}, the first
 * {@code ':'} of such a string always ends the name, so two different record keys never
 * share a stored record, whatever their keys contain: operation {@code orders} with key
 * {@code refund:42} cannot meet an operation {@code orders:refund} with key {@code 42},
 * because no such operation can exist.
 *
 * @param name the operation name, never containing {@code ':'}
 * @param key the idempotency key, already hashed if it was too long
 */
public record RecordKey(String name, String key) {

	/**
	 * The character between the name and the key when a store lays both out as one
	 * string; never part of a name.
	 */
	public static final char SEPARATOR = ':';

	/**
	 * Create a record key.
	 * @param name the operation name, never containing {@code ':'}
	 * @param key the idempotency key, already hashed if it was too long
	 * @throws IllegalArgumentException if the name or the key is empty, or the name
	 * contains {@link #SEPARATOR}
	 */
	public RecordKey {
		Assert.hasText(name, "'name' must not be empty");
		Assert.hasText(key, "'key' must not be empty");
		// Only the part of the naming rule that the layout depends on, cheap enough for
		// every call; the rest is checked once per operation, where names come in.
		if (name.indexOf(SEPARATOR) >= 0) {
			throw new IllegalArgumentException("'name' must not contain '" + SEPARATOR + "', which separates the "
					+ "name from the key in the store: '" + name + "'");
		}
	}

	@Override
	public String toString() {
		return this.name + SEPARATOR + this.key;
	}

}
