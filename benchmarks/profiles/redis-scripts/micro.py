import sys, statistics, random, io, contextlib
ROUNDS = int(sys.argv[3]); sys.argv = sys.argv[:3]
exec(open('/tmp/prof/prof/drive.py').read())
ENC = "encode(2, 1, ARGV[1], 1700000000000, 1700000030000, 1700000000100, '', '', ARGV[2])"
M = {
 'return 1': "return 1",
 'prefix + return 1': REC + "\nreturn 1",
 'TIME': "redis.call('TIME') return 1",
 'prefix + now()': REC + "\nlocal t = now() return 1",
 'GET': "redis.call('GET', KEYS[1]) return 1",
 'pcall GET': "redis.pcall('GET', KEYS[1]) return 1",
 'GET + unpack_limit': "local raw = redis.call('GET', KEYS[1]) cmsgpack.unpack_limit(raw, 10) return 1",
 'prefix + decode (full)': REC + "\nlocal r = decode(KEYS[1]) return 1",
 'prefix + encode (no SET)': REC + "\nlocal s = " + ENC + " return 1",
 'SET k ARGV[2] PX': "redis.call('SET', KEYS[1], ARGV[2], 'PX', 86400000) return 1",
 'SET k ARGV[2] PX (Lua number)': "redis.call('SET', KEYS[1], ARGV[2], 'PX', tonumber(ARGV[3]) + 1) return 1",
}
res = {}
for r in range(ROUNDS):
    # fill N keys with real completed records once per round
    a, c = load(REC + ACQ), load(REC + COM)
    ks = keys('m'); ow = [uuid.uuid4().hex.encode() for _ in ks]
    pipeline([enc('EVALSHA', a, 1, k, o, LEASE, RET, FP) for k, o in zip(ks, ow)])
    pipeline([enc('EVALSHA', c, 1, k, o, 1, RET, BODY, b'') for k, o in zip(ks, ow)])
    order = list(M); random.shuffle(order)
    for name in order:
        sha = load(M[name])
        with contextlib.redirect_stdout(io.StringIO()):
            if name.startswith('SET'):
                res.setdefault(name, []).append(phase(name, [enc('EVALSHA', sha, 1, k + b':s', BODY, 86399999) for k in ks]))
                cmd('EVAL', "for _, k in ipairs(redis.call('KEYS', '*:s')) do redis.call('DEL', k) end return 1", 0)
            else:
                res.setdefault(name, []).append(phase(name, [enc('EVALSHA', sha, 1, k, uuid.uuid4().hex, BODY) for k in ks]))
    cmd('FLUSHALL')
base = res['return 1']
for name, v in res.items():
    d = sorted(x - b for x, b in zip(v, base)); q = len(d) // 4
    print('%-32s abs median %6.2f   minus "return 1": median %+5.2f IQR [%+.2f, %+.2f]' % (name, statistics.median(v), statistics.median(d), d[q], d[-q-1]))
