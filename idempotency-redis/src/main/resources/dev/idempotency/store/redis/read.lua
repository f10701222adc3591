-- read: describe a record for operators.
--
-- KEYS[1]  the record
--
-- Reply:
--   {}                           no record
--   {state, fence, started, lease, completed, replayable, now, pttl}
--                                times in ms on the Redis clock; replayable 1 when a
--                                completed result can be replayed; pttl -1 without expiry
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decode(KEYS[1])
if rec == false then
	return corrupt()
end
if not rec then
	return {}
end
local replayable = 0
if rec.state == COMPLETED and rec.reason == '' then
	replayable = 1
end
return { rec.state, rec.fence, rec.started, rec.lease, rec.completed, replayable, now(),
	redis.call('PTTL', KEYS[1]) }
