-- The table of the JDBC idempotency store on PostgreSQL. Safe to run again on an existing schema.
--
-- ${table}       the table, optionally schema-qualified (default idempotency_record)
-- ${table_name}  the table's name without its schema, which names its index
--
-- One row per record, under record_key = operation name + ':' + key, compared byte for byte (COLLATE "C":
-- the primary key's order never depends on the operating system's locale, whose updates can corrupt an index
-- ordered by it and let a second row in for one key). Every time is written from
-- clock_timestamp() of the database, never from a client's clock. A row whose expires_at has passed
-- counts as absent, and is deleted by whoever comes next for its key or by a cleanup.
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

CREATE TABLE IF NOT EXISTS ${table} (
	record_key VARCHAR(512) COLLATE "C" NOT NULL PRIMARY KEY,
	state VARCHAR(11) NOT NULL,
	fence BIGINT NOT NULL,
	owner VARCHAR(128) NOT NULL,
	takeover BOOLEAN NOT NULL,
	started_at TIMESTAMP WITH TIME ZONE NOT NULL,
	lease_until TIMESTAMP WITH TIME ZONE NOT NULL,
	completed_at TIMESTAMP WITH TIME ZONE,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	fingerprint BYTEA,
	reason TEXT,
	failure_type TEXT,
	result BYTEA
);

-- For the deletion of expired rows; acquiring a record reads the primary key only
CREATE INDEX IF NOT EXISTS ${table_name}_expires_at ON ${table} (expires_at);
