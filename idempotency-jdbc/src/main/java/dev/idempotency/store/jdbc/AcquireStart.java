package dev.idempotency.store.jdbc;

/**
 * What the first statement of an acquire found: it inserted a new record, it found a row
 * to decide on, or neither (a row another acquire committed after this statement's
 * snapshot was taken, or deleted meanwhile), and the acquire reads again.
 */
sealed interface AcquireStart {

	AcquireStart INSERTED = new Inserted();

	AcquireStart ABSENT = new Absent();

	record Inserted() implements AcquireStart {
	}

	record Found(StoredRow row) implements AcquireStart {
	}

	record Absent() implements AcquireStart {
	}

}
