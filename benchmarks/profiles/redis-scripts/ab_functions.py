#!/usr/bin/env python3
"""Paired A/B of the single-key scripts: the transitions as script bodies (OLD, the scripts before the
batch scripts) against the same transitions as local functions that a one-line entry calls (NEW, as
RedisScripts composes them now). Each round runs both variants, in shuffled order, over the full
acquire (new key) / complete / acquire (replay) protocol on N new keys, pipelined, and reads Redis's
own usec_per_call of EVALSHA (INFO commandstats) per phase; reported is the median and IQR of the
per-round difference NEW - OLD, plus each side's median. Every reply is checked.

usage: python3 ab_functions.py PORT N ROUNDS OLD_DIR NEW_DIR
  OLD_DIR holds record.lua, acquire.lua, complete.lua of the commit before (git show ...)
  NEW_DIR is idempotency-redis/src/main/resources/dev/idempotency/store/redis/
python3, hand-written RESP, no packages."""
import socket, sys, uuid, re, random, statistics, os

PORT, N, ROUNDS, OLD, NEW = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
s = socket.create_connection(('127.0.0.1', PORT)); f = s.makefile('rb')

def enc(*a):
    out = [b'*%d\r\n' % len(a)]
    for x in a:
        x = x if isinstance(x, bytes) else str(x).encode()
        out.append(b'$%d\r\n%s\r\n' % (len(x), x))
    return b''.join(out)

def reply():
    l = f.readline(); t = l[:1]; r = l[1:-2]
    if t == b'+': return r.decode()
    if t == b'-': return Exception(r.decode())
    if t == b':': return int(r)
    if t == b'$':
        n = int(r)
        return None if n < 0 else f.read(n + 2)[:-2]
    if t == b'*':
        n = int(r); return None if n < 0 else [reply() for _ in range(n)]

def cmd(*a):
    s.sendall(enc(*a)); return reply()

def pipeline(cmds, chunk=100):
    out = []
    for i in range(0, len(cmds), chunk):
        part = cmds[i:i + chunk]; s.sendall(b''.join(part)); out += [reply() for _ in part]
    return out

def evalsha_usec():
    m = re.search(r'cmdstat_evalsha:calls=(\d+),usec=(\d+)', cmd('INFO', 'commandstats').decode())
    return int(m.group(2)) / int(m.group(1))

def phase(cmds, check):
    cmd('CONFIG', 'RESETSTAT')
    bad = [x for x in pipeline(cmds) if not check(x)]
    if bad: raise SystemExit('unexpected replies, e.g. %r' % bad[:2])
    return evalsha_usec()

def rd(d, n): return open(os.path.join(d, n)).read()
VARIANTS = {
    'old': (rd(OLD, 'record.lua') + rd(OLD, 'acquire.lua'), rd(OLD, 'record.lua') + rd(OLD, 'complete.lua')),
    'new': (rd(NEW, 'record.lua') + rd(NEW, 'acquire.lua') + rd(NEW, 'acquire-one.lua'),
            rd(NEW, 'record.lua') + rd(NEW, 'complete.lua') + rd(NEW, 'complete-one.lua')),
}
BODY = (b'{"paymentId":"p","pad":"' + b'x' * 200)[:200]

def protocol(acq, com):
    a, c = cmd('SCRIPT', 'LOAD', acq).decode(), cmd('SCRIPT', 'LOAD', com).decode()
    ks = [('idempotency:ab:%s' % uuid.uuid4().hex).encode() for _ in range(N)]
    owners = [uuid.uuid4().hex.encode() for _ in ks]
    r = {}
    r['acquire new'] = phase([enc('EVALSHA', a, 1, k, o, 30000, 86400000, b'') for k, o in zip(ks, owners)],
                             lambda x: isinstance(x, list) and x[0] == 1)
    r['complete'] = phase([enc('EVALSHA', c, 1, k, o, 1, 86400000, BODY, b'') for k, o in zip(ks, owners)],
                          lambda x: x == 1)
    r['acquire replay'] = phase([enc('EVALSHA', a, 1, k, uuid.uuid4().hex, 30000, 86400000, b'') for k in ks],
                                lambda x: isinstance(x, list) and x[0] == 3 and x[2] == BODY)
    cmd('FLUSHALL')
    return r

diffs, abs_ = {}, {}
for _ in range(ROUNDS):
    order = list(VARIANTS); random.shuffle(order)
    res = {name: protocol(*VARIANTS[name]) for name in order}
    for ph in res['old']:
        diffs.setdefault(ph, []).append(res['new'][ph] - res['old'][ph])
        for name in VARIANTS: abs_.setdefault((name, ph), []).append(res[name][ph])

def iqr(d):
    d = sorted(d); q = len(d) // 4; return d[q], d[-q - 1]
for ph, d in diffs.items():
    lo, hi = iqr(d)
    print('%-15s old %6.2f  new %6.2f  new-old median %+5.2f µs  IQR [%+.2f, %+.2f]  n=%d' % (
        ph, statistics.median(abs_[('old', ph)]), statistics.median(abs_[('new', ph)]), statistics.median(d), lo, hi, len(d)))
