import sys, re, statistics, random, io, contextlib
ROUNDS = int(sys.argv[3]); sys.argv = sys.argv[:3]
exec(open('/tmp/prof/prof/drive.py').read())
ACQ_LAZY = ACQ.replace("local t = now()\n", "local t\n", 1)
ACQ_LAZY = ACQ_LAZY.replace("\tif rec.state == IN_PROGRESS then\n", "\tt = now()\n\tif rec.state == IN_PROGRESS then\n", 1)
ACQ_LAZY = ACQ_LAZY.replace("-- Kept for retention", "t = t or now()\n-- Kept for retention", 1)
assert ACQ_LAZY.count('now()') == 2, ACQ_LAZY
open('/tmp/prof/prof/acquire-lazy-time.lua', 'w').write(ACQ_LAZY)
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
V = {
  'base': lambda: protocol('base', REC + ACQ, REC + COM),
  'lazyTIME': lambda: protocol('lazy', REC + ACQ_LAZY, REC + COM),
  'fcall': lambda: protocol_fcall('fcall'),
}
diffs = {}
out = io.StringIO()
for r in range(ROUNDS):
    order = list(V); random.shuffle(order)
    res = {}
    for name in order:
        with contextlib.redirect_stdout(out):
            res[name] = V[name]()
    for name in V:
        if name == 'base': continue
        for ph, v in res[name].items():
            diffs.setdefault((name, ph), []).append(v - res['base'][ph])
    for ph, v in res['base'].items(): diffs.setdefault(('base(abs)', ph), []).append(v)
bad = [l for l in out.getvalue().split('\n') if '!!' in l]
print('unexpected replies:', bad[:3])
for (n, ph), d in diffs.items():
    d = sorted(d); q = len(d) // 4
    print('%-10s %-15s median %+6.2f µs  IQR [%+.2f, %+.2f]  n=%d' % (n, ph, statistics.median(d), d[q], d[-q - 1], len(d)))
