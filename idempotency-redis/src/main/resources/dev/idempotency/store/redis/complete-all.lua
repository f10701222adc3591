-- complete on every record of a batch, in one script call: complete.lua's transition on
-- each key in turn, atomically, as acquire-all.lua acquires a batch. The store's clock is
-- read once, by the first item that completes: one TIME per call, not per item.
--
-- KEYS[i]        the record of item i; every key in one hash slot
-- ARGV[5i-4..5i] item i's owner token, fence, retention (ms), body (raw bytes) and why its
--                result cannot be replayed ("" when it can)
--
-- Reply: one integer per item, in the order of the keys, each what complete returns (see
-- complete.lua), except
--   -1           the value under the item's key is not a record: complete-one.lua's
--                IDEMPOTENCY_CORRUPT error, as a code; the other items keep their own replies

local time
local function clock()
	if not time then
		time = now()
	end
	return time
end

local replies = {}
for i = 1, #KEYS do
	local a = 5 * i - 5
	local reply = complete(KEYS[i], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], clock)
	if type(reply) == 'table' then
		reply = -1
	end
	replies[i] = reply
end
return replies
