-- renew: extend the lease of an owned attempt to lease ms from now.
--
-- KEYS[1]  the record
-- ARGV[1]  owner token
-- ARGV[2]  fence
-- ARGV[3]  lease, ms
--
-- Reply:
--   1                            renewed
--   0                            ownership was lost, or the record is no longer in progress
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decodeOwned(KEYS[1], ARGV[1], ARGV[2])
if rec == false then
	return corrupt()
end
if not rec or rec.state ~= IN_PROGRESS then
	return 0
end
local lease = tonumber(ARGV[3])
local value = encode(IN_PROGRESS, rec.fence, rec.owner, rec.started, now() + lease, 0, rec.fp, '', '')
-- The record must outlive its lease, or a live attempt could vanish and run twice.
local ttl = redis.call('PTTL', KEYS[1])
if ttl >= 0 and ttl < lease then
	redis.call('SET', KEYS[1], value, 'PX', lease)
else
	redis.call('SET', KEYS[1], value, 'KEEPTTL')
end
return 1
