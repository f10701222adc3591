# Paired A/B: alternate variant A and the baseline in small rounds so that drift cancels; report the median
# of per-round differences (variant - baseline), per phase.
import sys, re, statistics, random
ROUNDS = int(sys.argv[3]); sys.argv = sys.argv[:3]
exec(open('/tmp/prof/prof/drive.py').read())
import io, contextlib
REC_NOTIME = re.sub(r"local function now\(\).*?\nend", "local function now() return 1700000000000 end", REC, flags=re.S)
REC_NOCHECK = re.sub(r"if not ok or offset ~= -1.*?then\n\t\treturn false", "if not ok then\n\t\treturn false", REC, flags=re.S)
# decode without building the 9-field table: return unpacked values positionally is a code change; here: the
# table build cost alone is estimated by a micro-variant instead.
MIN_ACQ = """if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2]) + tonumber(ARGV[3])) then return {1, 1, 0} end
local v = redis.call('GET', KEYS[1])
return {3, 1, v, ''}"""
MIN_COM = """if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3]) return 1 end
return 0"""
# PX argument as a string computed once instead of a Lua number formatted with %.17g: not applicable to
# lease+retention (a sum), so test passing the sum as tostring(...) is the same cost; skipped.
V = {
  'base': (REC + ACQ, REC + COM),
  'noTIME': (REC_NOTIME + ACQ, REC_NOTIME + COM),
  'nocheck': (REC_NOCHECK + ACQ, REC_NOCHECK + COM),
  'minimal': (MIN_ACQ, MIN_COM),
}
diffs = {}
for r in range(ROUNDS):
    order = list(V); random.shuffle(order)
    res = {}
    for name in order:
        with contextlib.redirect_stdout(io.StringIO()):
            res[name] = protocol(name, *V[name])
    for name in V:
        if name == 'base': continue
        for ph, v in res[name].items():
            diffs.setdefault((name, ph), []).append(v - res['base'][ph])
    for ph, v in res['base'].items(): diffs.setdefault(('base(abs)', ph), []).append(v)
for (n, ph), d in diffs.items():
    d = sorted(d); q = len(d) // 4
    print('%-10s %-15s median %+6.2f µs  IQR [%+.2f, %+.2f]  n=%d' % (n, ph, statistics.median(d), d[q], d[-q - 1], len(d)))
