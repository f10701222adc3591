-- acquire on one record: acquire.lua's transition on KEYS[1].
--
-- KEYS[1]  the record
-- ARGV[1]  owner token of the new attempt
-- ARGV[2]  lease, ms
-- ARGV[3]  retention, ms
-- ARGV[4]  payload fingerprint, "" when none
-- ARGV[5]  "1" when the caller waits for replicas to acknowledge what it replays (optional)
--
-- Reply: what acquire returns (see acquire.lua); error IDEMPOTENCY_CORRUPT when the value
-- under the key is not a record.

return acquire(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], now)
