-- The record format, shared by every transition: RedisScripts puts this file in front of
-- each transition script when it loads it, so that the format is written down once.
--
-- A record is ONE Redis STRING (a hash with a 200-byte field leaves the listpack encoding
-- and costs hundreds of bytes of overhead per record):
--
--   cmsgpack.pack(v, state, fence, owner, started, lease, completed, fp, reason, body)
--
--   v          format version, 1
--   state      1 IN_PROGRESS, 2 COMPLETED, 3 FAILED
--   fence      fence number of the current or last attempt
--   owner      owner token of that attempt
--   started    when it started, ms on the Redis clock
--   lease      when its lease runs or ran out, ms on the Redis clock
--   completed  when it completed, ms on the Redis clock, 0 when not completed
--   fp         payload fingerprint, raw bytes, "" when none
--   reason     why a completed result cannot be replayed, "" when it can; in an in-progress
--              record, "t" when its attempt took over an expired one (an acquire re-sent by
--              the same owner must report the takeover again)
--   body       encoded result, raw bytes, "" when none
--
-- Anything else under a record's key is answered with an IDEMPOTENCY_CORRUPT error, never
-- overwritten: it is not ours to destroy.

local IN_PROGRESS, COMPLETED, FAILED = 1, 2, 3
local TAKEOVER = 't'

-- Only the Redis clock judges leases, so that callers with skewed clocks agree.
local function now()
	local t = redis.call('TIME')
	return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function corrupt()
	return redis.error_reply('IDEMPOTENCY_CORRUPT value is not an idempotency record')
end

local function encode(state, fence, owner, started, lease, completed, fp, reason, body)
	return cmsgpack.pack(1, state, fence, owner, started, lease, completed, fp, reason, body)
end

-- Returns the record as a table, nil when there is none, false when the value is not a
-- record. unpack_limit stops after ten values, so a large foreign string cannot overflow
-- the Lua stack, and reports -1 only when those values used up the whole string.
local function decode(key)
	local raw = redis.pcall('GET', key)
	if type(raw) == 'table' then
		return false
	end
	if not raw then
		return nil
	end
	local ok, offset, v, state, fence, owner, started, lease, completed, fp, reason, body =
		pcall(cmsgpack.unpack_limit, raw, 10)
	if not ok or offset ~= -1 or v ~= 1
			or (state ~= IN_PROGRESS and state ~= COMPLETED and state ~= FAILED)
			or type(fence) ~= 'number' or type(owner) ~= 'string'
			or type(started) ~= 'number' or type(lease) ~= 'number' or type(completed) ~= 'number'
			or type(fp) ~= 'string' or type(reason) ~= 'string' or type(body) ~= 'string' then
		return false
	end
	return { state = state, fence = fence, owner = owner, started = started, lease = lease,
		completed = completed, fp = fp, reason = reason, body = body }
end

-- The fencing rule, in one place: returns the record only to the attempt that holds it
-- (same owner token and fence; fence "" matches any, since owner tokens are unique per
-- attempt), nil to anyone else or when there is none, false when the value is not a record.
local function decodeOwned(key, owner, fence)
	local rec = decode(key)
	if rec and (rec.owner ~= owner or (fence ~= '' and rec.fence ~= tonumber(fence))) then
		return nil
	end
	return rec
end
