-- acquire: take ownership of a record, or report why not.
--
-- Defines the transition as one function, run on one key by acquire-one.lua and on each
-- key of a batch by acquire-all.lua, so that it is written once:
--
--   acquire(key, owner, lease, retention, fp, ackReplay, clock)
--
--   key        the record
--   owner      owner token of the new attempt
--   lease      lease, ms, as a string
--   retention  retention, ms, as a string
--   fp         payload fingerprint, "" when none
--   ackReplay  "1" when the caller waits for replicas to acknowledge what it replays
--   clock      returns the store's time, ms (now, or a batch's one reading of it)
--
-- Returns:
--   {1, fence, takeover}         acquired; takeover 1 when an expired attempt was replaced. An
--                                acquire re-sent by the same owner (a client retrying after a
--                                reconnect) finds its own attempt and gets its fence again
--   {2, fence, remaining}        another attempt holds a live lease for remaining ms
--   {3, fence, body, reason}     completed; reason "" when the body can be replayed. With
--                                ackReplay "1", the record's expiry is written again, unchanged
--   {4}                          the record has another fingerprint; nothing changed
--   corrupt()                    the value under the key is not a record

local function acquire(key, owner, lease, retention, fp, ackReplay, clock)
	local rec = decode(key)
	if rec == false then
		return corrupt()
	end
	lease, retention = tonumber(lease), tonumber(retention)
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
			if ackReplay == '1' then
				local ttl = redis.call('PTTL', key)
				if ttl > 0 then
					redis.call('PEXPIRE', key, ttl)
				end
			end
			return { 3, rec.fence, rec.body, rec.reason }
		end
	end
	-- The clock is read only past the replay: TIME costs a replay a tenth of its script time,
	-- and a completed record has no lease to judge.
	local t = clock()
	local fence, takeover = 1, 0
	if rec then
		if rec.state == IN_PROGRESS then
			if rec.owner == owner then
				-- A re-sent acquire: the attempt is this caller's own, so it keeps its fence and
				-- its takeover mark, and starts its lease again.
				redis.call('SET', key, encode(IN_PROGRESS, rec.fence, rec.owner, rec.started, t + lease, 0, rec.fp,
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
	redis.call('SET', key, encode(IN_PROGRESS, fence, owner, t, t + lease, 0, fp, takeover == 1 and TAKEOVER or '',
		''), 'PX', lease + retention)
	return { 1, fence, takeover }
end
