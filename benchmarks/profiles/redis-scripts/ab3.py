import sys, statistics, random, io, contextlib
ROUNDS = int(sys.argv[3]); sys.argv = sys.argv[:3]
exec(open('/tmp/prof/prof/drive.py').read())
ACQ_PXSTR = ACQ.replace("'PX', lease + retention)", "'PX', string.format('%d', lease + retention))")
assert ACQ_PXSTR.count("string.format") == 2, ACQ_PXSTR.count("string.format")
open('/tmp/prof/prof/acquire-px-format.lua', 'w').write(ACQ_PXSTR)
V = {'base': lambda: protocol('base', REC + ACQ, REC + COM), 'pxfmt': lambda: protocol('pxfmt', REC + ACQ_PXSTR, REC + COM)}
diffs = {}; out = io.StringIO()
for r in range(ROUNDS):
    order = list(V); random.shuffle(order); res = {}
    for n in order:
        with contextlib.redirect_stdout(out): res[n] = V[n]()
    for ph, v in res['pxfmt'].items(): diffs.setdefault(ph, []).append(v - res['base'][ph])
print('unexpected:', [l for l in out.getvalue().split('\n') if '!!' in l][:3])
for ph, d in diffs.items():
    d = sorted(d); q = len(d) // 4
    print('pxfmt %-15s median %+5.2f IQR [%+.2f, %+.2f] n=%d' % (ph, statistics.median(d), d[q], d[-q-1], len(d)))
