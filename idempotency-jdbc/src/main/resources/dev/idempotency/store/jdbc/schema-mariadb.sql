-- The table of the JDBC idempotency store on MariaDB and MySQL. Safe to run again on an existing schema.
--
-- ${table}       the table, optionally schema-qualified (default idempotency_record)
-- ${table_name}  the table's name without its schema, which names its index
--
-- One row per record, under record_key = operation name + ':' + key, in UTF-8. Every time is written
-- from UTC_TIMESTAMP(6) of the database, never from a client's clock (DATETIME(6), in UTC: TIMESTAMP
-- ends in 2038). A row whose expires_at has passed counts as absent, and is deleted by whoever comes
-- next for its key or by a cleanup. Keys and owner tokens are VARBINARY so that they compare byte for
-- byte: a text collation would let 'Key' meet 'key', or 'key' meet 'key '.
--
--   state         IN_PROGRESS, COMPLETED or FAILED
--   fence         fence number of the current or last attempt, from 1
--   owner         owner token of that attempt
--   takeover      whether that attempt took over an expired one
--   started_at    when it started
--   lease_until   when its lease runs or ran out
--   completed_at  when it completed, NULL unless COMPLETED
--   expires_at    when the record is gone
--   fingerprint   payload fingerprint, NULL when none
--   reason        why a completed result cannot be replayed, NULL when it can
--   failure_type  class name of a stored failure, NULL when the outcome is no failure
--   result        the encoded result; for a stored failure, its message in UTF-8 (NULL when none)
--
-- The index is declared in the table, since MySQL has no CREATE INDEX IF NOT EXISTS.

CREATE TABLE IF NOT EXISTS ${table} (
	record_key VARBINARY(2048) NOT NULL,
	state VARCHAR(11) NOT NULL,
	fence BIGINT NOT NULL,
	owner VARBINARY(512) NOT NULL,
	takeover BOOLEAN NOT NULL,
	started_at DATETIME(6) NOT NULL,
	lease_until DATETIME(6) NOT NULL,
	completed_at DATETIME(6) NULL,
	expires_at DATETIME(6) NOT NULL,
	fingerprint BLOB NULL,
	reason MEDIUMTEXT NULL,
	failure_type TEXT NULL,
	result LONGBLOB NULL,
	PRIMARY KEY (record_key),
	INDEX ${table_name}_expires_at (expires_at)
) ENGINE = InnoDB DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
