-- acquire on every record of a batch, in one script call: acquire.lua's transition on
-- each key in turn. Redis runs the script atomically, so the batch is the items' acquires
-- one after the other, nothing in between: an item finds what the items before it wrote
-- (the same key twice finds its first item's attempt). The store's clock is read once, by
-- the first item that judges a lease: one TIME per call, not per item.
--
-- KEYS[i]        the record of item i; every key in one hash slot
-- ARGV[4i-3..4i] item i's owner token, lease (ms), retention (ms) and payload fingerprint
--                ("" when none)
--
-- Reply: one reply per item, in the order of the keys, each what acquire returns (see
-- acquire.lua), except
--   {0}          the value under the item's key is not a record: acquire-one.lua's
--                IDEMPOTENCY_CORRUPT error, as a code, since clients read errors inside an
--                array poorly; the other items keep their own replies

local time
local function clock()
	if not time then
		time = now()
	end
	return time
end

local replies = {}
for i = 1, #KEYS do
	local a = 4 * i - 4
	local reply = acquire(KEYS[i], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], nil, clock)
	if reply.err then
		reply = { 0 }
	end
	replies[i] = reply
end
return replies
