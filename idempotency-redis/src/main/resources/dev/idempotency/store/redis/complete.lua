-- complete: store the outcome of an owned attempt and mark the record COMPLETED.
--
-- KEYS[1]  the record
-- ARGV[1]  owner token
-- ARGV[2]  fence
-- ARGV[3]  retention, ms
-- ARGV[4]  body, raw bytes
-- ARGV[5]  why the result cannot be replayed, "" when it can
--
-- Reply:
--   1                            completed, now or earlier by this very owner and fence (then
--                                its expiry is written again, unchanged)
--   0                            ownership was lost (missing, other owner or fence, failed)
--   error IDEMPOTENCY_CORRUPT    the value under the key is not a record

local rec = decodeOwned(KEYS[1], ARGV[1], ARGV[2])
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
	local ttl = redis.call('PTTL', KEYS[1])
	if ttl > 0 then
		redis.call('PEXPIRE', KEYS[1], ttl)
	end
	return 1
end
if rec.state ~= IN_PROGRESS then
	return 0
end
-- No lease check: an owner whose lease ran out is still the owner until someone takes over.
redis.call('SET', KEYS[1],
	encode(COMPLETED, rec.fence, rec.owner, rec.started, rec.lease, now(), rec.fp, ARGV[5], ARGV[4]),
	'PX', ARGV[3])
return 1
