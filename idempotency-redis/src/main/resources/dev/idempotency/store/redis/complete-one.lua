-- complete on one record: complete.lua's transition on KEYS[1].
--
-- KEYS[1]  the record
-- ARGV[1]  owner token
-- ARGV[2]  fence
-- ARGV[3]  retention, ms
-- ARGV[4]  body, raw bytes
-- ARGV[5]  why the result cannot be replayed, "" when it can
--
-- Reply: what complete returns (see complete.lua); error IDEMPOTENCY_CORRUPT when the value
-- under the key is not a record.

return complete(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], now)
