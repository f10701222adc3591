package dev.idempotency.store;

import org.springframework.util.Assert;

/**
 * Identity of one record: an operation name and a key within it.
 *
 * @param name the operation name
 * @param key the idempotency key, already hashed if it was too long
 */
public record RecordKey(String name, String key) {

	public RecordKey {
		Assert.hasText(name, "'name' must not be empty");
		Assert.hasText(key, "'key' must not be empty");
	}

	@Override
	public String toString() {
		return this.name + ":" + this.key;
	}

}
