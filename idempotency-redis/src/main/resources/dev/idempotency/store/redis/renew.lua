-- renew: extend the lease of an owned attempt to lease ms from now.
--
-- KEYS[1]  the record
-- ARGV[1]  owner token
-- ARGV[2]  fence
-- ARGV[3]  lease, ms
-- ARGV[4]  retention, ms
--
-- Reply:
--   1                            renewed
--   0                            ownership was lost: missing, or another owner or fence
--   2                            this very attempt already completed or released the record
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decodeOwned(KEYS[1], ARGV[1], ARGV[2])
if rec == false then
	return corrupt()
end
if not rec then
	return 0
end
if rec.state ~= IN_PROGRESS then
	return 2
end
local lease = tonumber(ARGV[3])
-- Like acquire: the record outlives the renewed lease by retention, so fences keep rising.
redis.call('SET', KEYS[1], encode(IN_PROGRESS, rec.fence, rec.owner, rec.started, now() + lease, 0, rec.fp, rec.reason, ''),
	'PX', lease + tonumber(ARGV[4]))
return 1
