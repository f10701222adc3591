-- acquire: take ownership of a record, or report why not.
--
-- KEYS[1]  the record
-- ARGV[1]  owner token of the new attempt
-- ARGV[2]  lease, ms
-- ARGV[3]  retention, ms
-- ARGV[4]  payload fingerprint, "" when none
-- ARGV[5]  "1" when the caller waits for replicas to acknowledge what it replays (optional)
--
-- Reply:
--   {1, fence, takeover}         acquired; takeover 1 when an expired attempt was replaced. An
--                                acquire re-sent by the same owner (a client retrying after a
--                                reconnect) finds its own attempt and gets its fence again
--   {2, fence, remaining}        another attempt holds a live lease for remaining ms
--   {3, fence, body, reason}     completed; reason "" when the body can be replayed. With
--                                ARGV[5] "1", the record's expiry is written again, unchanged
--   {4}                          the record has another fingerprint; nothing changed
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decode(KEYS[1])
if rec == false then
	return corrupt()
end
local lease, retention, fp = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if rec then
	-- A failed attempt left no effect behind, so any payload may run in its place.
	if rec.state ~= FAILED and fp ~= '' and rec.fp ~= '' and fp ~= rec.fp then
		return { 4 }
	end
	if rec.state == COMPLETED then
		-- A caller that waits for replica acknowledgements (WAIT) must not replay a result
		-- that no replica holds yet: its completer may still be waiting, or have failed to
		-- get them, and a failover would lose it. WAIT counts only the writes of the
		-- connection it is sent on, so this write, after the completion in the primary's
		-- replication stream, is what the caller's WAIT waits for. It changes nothing; see
		-- complete.lua for its precision.
		if ARGV[5] == '1' then
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl > 0 then
				redis.call('PEXPIRE', KEYS[1], ttl)
			end
		end
		return { 3, rec.fence, rec.body, rec.reason }
	end
end
-- The clock is read only past the replay: TIME costs a replay a tenth of its script time,
-- and a completed record has no lease to judge.
local t = now()
local fence, takeover = 1, 0
if rec then
	if rec.state == IN_PROGRESS then
		if rec.owner == ARGV[1] then
			-- A re-sent acquire: the attempt is this caller's own, so it keeps its fence and
			-- its takeover mark, and starts its lease again.
			redis.call('SET', KEYS[1], encode(IN_PROGRESS, rec.fence, rec.owner, rec.started, t + lease, 0, rec.fp,
				rec.reason, ''), 'PX', lease + retention)
			return { 1, rec.fence, rec.reason == TAKEOVER and 1 or 0 }
		end
		if rec.lease > t then
			return { 2, rec.fence, rec.lease - t }
		end
		takeover = 1
	end
	fence = rec.fence + 1
end
-- Kept for retention past the lease, so that the next attempt still finds this one and
-- raises the fence, even if this attempt dies and nobody comes for it until then.
redis.call('SET', KEYS[1], encode(IN_PROGRESS, fence, ARGV[1], t, t + lease, 0, fp, takeover == 1 and TAKEOVER or '',
	''), 'PX', lease + retention)
return { 1, fence, takeover }
