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
-- acquire.lua), up to the item after which replayed results passed 1 MB, except
--   {0, error}   the error acquire-one.lua would answer for the item alone, as a code and
--                the error's text, since clients read errors inside an array poorly:
--                IDEMPOTENCY_CORRUPT when the value under its key is not a record, or what
--                Redis refused its write with (OOM under noeviction, READONLY); the other
--                items keep their own replies

local time
local function clock()
	if not time then
		time = now()
	end
	return time
end

-- Replayed results are copied into the reply: once they pass 1 MB, the items left are not
-- answered, and the caller sends them again in a call of their own, so that a call of
-- large results holds Redis about as long as one such result does, not 256 times that.
-- The first item is always answered.
local MAX_REPLAYED = 1048576
local replies, replayed = {}, 0
for i = 1, #KEYS do
	if replayed >= MAX_REPLAYED then
		break
	end
	local a = 4 * i - 4
	-- A command Redis refuses raises an error that would end the script and lose the replies
	-- of every item, a replay of a completed record among them, which a full Redis still
	-- answers alone. Caught per item, it fails that item only: an item writes once, last,
	-- so one that fails wrote nothing.
	local ok, reply = pcall(acquire, KEYS[i], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], nil, clock)
	if not ok then
		reply = { 0, type(reply) == 'table' and reply.err or tostring(reply) }
	elseif reply.err then
		reply = { 0, reply.err }
	elseif reply[1] == 3 then
		replayed = replayed + #reply[3]
	end
	replies[i] = reply
end
return replies
