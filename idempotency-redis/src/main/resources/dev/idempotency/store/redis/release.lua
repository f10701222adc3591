-- release: mark an owned attempt FAILED, keeping its fence, so that the next one runs.
--
-- KEYS[1]  the record
-- ARGV[1]  owner token
-- ARGV[2]  fence, or "" for whatever fence this owner's attempt has (an acquire whose
--          reply was lost, abandoned before the method ran)
-- ARGV[3]  retention, ms
--
-- Reply:
--   1                            released, now or earlier by this very owner and fence
--   0                            ownership was lost (missing, other owner or fence, completed)
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decodeOwned(KEYS[1], ARGV[1], ARGV[2])
if rec == false then
	return corrupt()
end
if not rec then
	return 0
end
if rec.state == FAILED then
	return 1
end
if rec.state ~= IN_PROGRESS then
	return 0
end
redis.call('SET', KEYS[1], encode(FAILED, rec.fence, rec.owner, rec.started, rec.lease, 0, rec.fp, '', ''),
	'PX', ARGV[3])
return 1
