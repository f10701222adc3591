import sys, re
REPS_ARG = int(sys.argv[3]) if len(sys.argv) > 3 else 3
sys.argv = [sys.argv[0], sys.argv[1], sys.argv[2]]
exec(open('/tmp/prof/prof/drive.py').read())
REPS = REPS_ARG
MIN_ACQ = """if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2]) + tonumber(ARGV[3])) then return {1, 1, 0} end
local v = redis.call('GET', KEYS[1])
return {3, 1, v, ''}"""
MIN_COM = """if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3]) return 1 end
return 0"""
REC_NOTIME = re.sub(r"local function now\(\).*?\nend", "local function now() return 1700000000000 end", REC, flags=re.S)
assert REC_NOTIME != REC
REC_NOCHECK = re.sub(r"if not ok or offset ~= -1.*?then\n\t\treturn false", "if not ok then\n\t\treturn false", REC, flags=re.S)
assert REC_NOCHECK != REC
# acquire does not use decodeOwned: drop it
REC_ACQ_TRIM = REC[:REC.index('-- The fencing rule')]
# strip comments/blank lines (parse happens once at SCRIPT LOAD; should not matter per call)
def strip(src): return '\n'.join(l for l in src.split('\n') if l.strip() and not l.strip().startswith('--'))
def fn_lib(rec, acq, com):
    return ('#!lua name=idemprof\n' + rec +
            "\nredis.register_function('acq', function(KEYS, ARGV)\n" + acq + "\nend)\n" +
            "redis.register_function('com', function(KEYS, ARGV)\n" + com + "\nend)\n")
def protocol_fcall(label):
    cmd('FUNCTION', 'LOAD', 'REPLACE', fn_lib(REC, ACQ, COM))
    ks = keys(label); owners = [uuid.uuid4().hex.encode() for _ in ks]
    r = {}
    r['acquire new'] = phase(label + ' acquire(new)', [enc('FCALL', 'acq', 1, k, o, LEASE, RET, FP) for k, o in zip(ks, owners)], lambda x: isinstance(x, list) and x[0] == 1)
    r['complete'] = phase(label + ' complete', [enc('FCALL', 'com', 1, k, o, 1, RET, BODY, b'') for k, o in zip(ks, owners)], lambda x: x == 1)
    r['acquire replay'] = phase(label + ' acquire(replay)', [enc('FCALL', 'acq', 1, k, uuid.uuid4().hex, LEASE, RET, FP) for k in ks], lambda x: isinstance(x, list) and x[0] == 3)
    cmd('FLUSHALL')
    return r
def micro(label):
    r = {}
    ks = keys('m')
    e = load('return 1'); p = load(REC + '\nreturn 1'); g = load("return redis.call('GET', KEYS[1])")
    t = load("local t = redis.call('TIME') return 1")
    pk = load(REC + "\nreturn redis.call('SET', KEYS[1], encode(1, 1, ARGV[1], 1700000000000, 1700000030000, 0, '', '', ''), 'PX', 100000)")
    ps = load("return redis.call('SET', KEYS[1], ARGV[1], 'PX', 100000)")
    r['script: return 1'] = phase('script: return 1', [enc('EVALSHA', e, 1, k) for k in ks])
    r['script: record.lua + return 1'] = phase('script: record.lua prefix + return 1', [enc('EVALSHA', p, 1, k) for k in ks])
    r['script: TIME only'] = phase('script: TIME + return 1', [enc('EVALSHA', t, 1, k) for k in ks])
    r['script: SET raw'] = phase('script: SET owner PX', [enc('EVALSHA', ps, 1, k, uuid.uuid4().hex) for k in ks])
    cmd('FLUSHALL')
    r['script: SET encode()'] = phase('script: record+SET encode(...) PX', [enc('EVALSHA', pk, 1, k, uuid.uuid4().hex) for k in ks])
    r['script: GET (msgpack rec)'] = phase('script: GET (of a msgpack record)', [enc('EVALSHA', g, 1, k) for k in ks])
    dec = load(REC + "\nlocal r = decode(KEYS[1]) return 1")
    r['script: GET+decode'] = phase('script: record+decode(key) (GET+unpack+checks)', [enc('EVALSHA', dec, 1, k) for k in ks])
    r['cmd: SET NX PX'] = phase('command: SET NX PX (no script)', [enc('SET', k + b'x', 'o', 'NX', 'PX', 100000) for k in ks])
    r['cmd: GET'] = phase('command: GET (no script)', [enc('GET', k) for k in ks])
    cmd('FLUSHALL')
    return r
allres = {}
for rep in range(REPS):
    print('--- rep', rep + 1)
    for label, fn in [
        ('full', lambda: protocol('full', REC + ACQ, REC + COM)),
        ('full+fp', lambda: protocol('full+fp', REC + ACQ, REC + COM, fp=b'f' * 32)),
        ('minimal', lambda: protocol('minimal', MIN_ACQ, MIN_COM)),
        ('no TIME', lambda: protocol('noTIME', REC_NOTIME + ACQ, REC_NOTIME + COM)),
        ('no corruption checks', lambda: protocol('nocheck', REC_NOCHECK + ACQ, REC_NOCHECK + COM)),
        ('acquire w/o decodeOwned', lambda: protocol('trim', REC_ACQ_TRIM + ACQ, REC + COM)),
        ('comments stripped', lambda: protocol('strip', strip(REC + ACQ), strip(REC + COM))),
        ('FCALL (library, same code)', lambda: protocol_fcall('fcall')),
        ('micro', lambda: micro('micro')),
    ]:
        for k, v in fn().items():
            allres.setdefault((label, k), []).append(v)
print('\n=== medians over %d reps (usec_per_call of the top-level command) ===' % REPS)
import statistics
for (label, k), v in allres.items():
    print('%-28s %-36s median %6.3f  [%s]' % (label, k, statistics.median(v), ' '.join('%.3f' % x for x in v)))
