import sys
which = sys.argv[3]; reps = int(sys.argv[4])
sys.argv = sys.argv[:3]
exec(open('/tmp/prof/prof/drive.py').read())
MIN_ACQ = """if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2]) + tonumber(ARGV[3])) then return {1, 1, 0} end
local v = redis.call('GET', KEYS[1])
return {3, 1, v, ''}"""
MIN_COM = """if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3]) return 1 end
return 0"""
for _ in range(reps):
    if which == 'full': protocol('full', REC + ACQ, REC + COM)
    else: protocol('minimal', MIN_ACQ, MIN_COM)
