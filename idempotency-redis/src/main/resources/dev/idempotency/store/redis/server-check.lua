-- server-check: ask the server that holds KEYS[1] whether a transition could write there
-- now, and how it is set up to keep data. For health checks; not a transition.
--
-- KEYS[1]  a probe key under the store's key prefix, outside the record key layout
--
-- Reply: {refusal, replication, memory}
--   refusal      the server's error reply to a one-key write, "" when it accepted it
--   replication  the text of INFO replication, "" when this client may not run INFO
--   memory       the text of INFO memory, likewise
--
-- The probe write is SET NX of an empty string that expires within a second, deleted again
-- within this script where the client may DEL (the transitions never need it): it leaves
-- nothing behind and never changes a value it did not create. The server checks
-- it as it checks the first write of a transition script: READONLY on a read-only
-- replica, OOM at maxmemory under noeviction, NOREPLICAS under min-replicas-to-write,
-- MISCONF after a failed background save with stop-writes-on-bgsave-error.

local written = redis.pcall('SET', KEYS[1], '', 'NX', 'PX', 1000)
local refusal = ''
if type(written) == 'table' and written.err then
	refusal = written.err
elseif written then
	redis.pcall('DEL', KEYS[1])
end

-- INFO may be denied by an ACL or renamed (managed services): then the section is empty.
local function info(section)
	local text = redis.pcall('INFO', section)
	if type(text) == 'string' then
		return text
	end
	return ''
end

return { refusal, info('replication'), info('memory') }
