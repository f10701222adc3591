package dev.idempotency.store.dynamodb;

import java.util.Map;
import java.util.Optional;

import dev.idempotency.store.IdempotencyRecord;
import dev.idempotency.store.RecordKey;
import dev.idempotency.store.dynamodb.StoredItem.NotARecord;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Reads a record and deletes its item, for operators and the endpoint rather than for
 * attempts: evict also deletes an item that is not a record, or one that has expired.
 */
final class ReadAndEvict {

	private final TableAccess table;

	ReadAndEvict(TableAccess table) {
		this.table = table;
	}

	Optional<IdempotencyRecord> read(RecordKey key) {
		Map<String, AttributeValue> found = this.table.get(key, "read", this.table.id(key));
		if (found == null) {
			return Optional.empty();
		}
		StoredItem item = this.table.record(key, found);
		return item.isExpired(this.table.now(), this.table.skew()) ? Optional.empty() : Optional.of(item.toRecord(key));
	}

	/**
	 * Delete the item; tell whether it held a record that had not expired, or something
	 * that is not a record.
	 */
	boolean evict(RecordKey key) {
		Map<String, AttributeValue> deleted = this.table.delete(key, this.table.id(key));
		if (deleted == null) {
			return false;
		}
		try {
			return !StoredItem.of(deleted).isExpired(this.table.now(), this.table.skew());
		}
		catch (NotARecord ex) {
			return true;
		}
	}

}
