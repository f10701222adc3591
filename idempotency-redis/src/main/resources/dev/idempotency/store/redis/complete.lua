-- complete: store the outcome of an owned attempt and mark the record COMPLETED.
--
-- Defines the transition as one function, run on one key by complete-one.lua and on each
-- key of a batch by complete-all.lua, so that it is written once:
--
--   complete(key, owner, fence, retention, body, reason, clock)
--
--   key        the record
--   owner      owner token
--   fence      fence, as a string
--   retention  retention, ms, as a string
--   body       body, raw bytes
--   reason     why the result cannot be replayed, "" when it can
--   clock      returns the store's time, ms (now, or a batch's one reading of it)
--
-- Returns:
--   1                            completed, now or earlier by this very owner and fence (then
--                                its expiry is written again, unchanged)
--   0                            ownership was lost (missing, other owner or fence, failed)
--   corrupt()                    the value under the key is not a record

local function complete(key, owner, fence, retention, body, reason, clock)
	local rec = decodeOwned(key, owner, fence)
	if rec == false then
		return corrupt()
	end
	if not rec then
		return 0
	end
	-- A client that re-sends after a reconnect finds its own completion: that is success. It
	-- writes the record's expiry again, unchanged, because from Redis 7.2 a WAIT for replica
	-- acknowledgements counts only the writes of the connection it is sent on: after this
	-- write, one sent on another connection than the first completion's waits until replicas
	-- hold the record too. (Older servers count every write made before the last command of
	-- the connection.) Exact on Redis 7.2+, where both commands read one clock; older servers
	-- may add the millisecond that passes between them. A record without an expiry (an
	-- operator's PERSIST) is left alone.
	if rec.state == COMPLETED then
		local ttl = redis.call('PTTL', key)
		if ttl > 0 then
			redis.call('PEXPIRE', key, ttl)
		end
		return 1
	end
	if rec.state ~= IN_PROGRESS then
		return 0
	end
	-- No lease check: an owner whose lease ran out is still the owner until someone takes over.
	redis.call('SET', key,
		encode(COMPLETED, rec.fence, rec.owner, rec.started, rec.lease, clock(), rec.fp, reason, body),
		'PX', retention)
	return 1
end
