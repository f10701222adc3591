#!/usr/bin/env python3
"""Drive Redis scripts over raw RESP and read INFO commandstats per phase.
usage: drive.py PORT N  (scripts defined in VARIANTS below)"""
import socket, sys, os, uuid, json, re
D = '/tmp/prof/idempotency-redis/src/main/resources/dev/idempotency/store/redis/'
def rd(n): return open(D + n).read()
PORT = int(sys.argv[1]); N = int(sys.argv[2]); BATCH = 100
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
        if n < 0: return None
        d = f.read(n + 2); return d[:-2]
    if t == b'*':
        n = int(r); return None if n < 0 else [reply() for _ in range(n)]
def cmd(*a):
    s.sendall(enc(*a)); return reply()
def pipeline(cmds):
    out = []
    for i in range(0, len(cmds), BATCH):
        chunk = cmds[i:i + BATCH]
        s.sendall(b''.join(chunk)); out += [reply() for _ in chunk]
    return out
def stats():
    info = cmd('INFO', 'commandstats').decode()
    m = {}
    for k, calls, usec in re.findall(r'cmdstat_(\w+):calls=(\d+),usec=(\d+)', info):
        m[k] = (int(calls), int(usec))
    return m
def phase(name, cmds, check=None):
    cmd('CONFIG', 'RESETSTAT')
    r = pipeline(cmds)
    if check:
        bad = [x for x in r if not check(x)]
        if bad: print('  !! %s: %d unexpected replies, e.g. %r' % (name, len(bad), bad[:2]))
    st = stats()
    top = 'evalsha' if 'evalsha' in st else 'fcall' if 'fcall' in st else max(st, key=lambda k: st[k][0] if k not in ('config','info') else -1)
    c, u = st[top]
    nested = ' '.join('%s=%d' % (k, v[0]) for k, v in st.items() if k not in ('config', 'info', top))
    print('%-44s %-8s calls=%6d usec/call=%6.3f  nested:%s' % (name, top, c, u / c, nested))
    return u / c

REC = rd('record.lua'); ACQ = rd('acquire.lua'); COM = rd('complete.lua')
def load(src): return cmd('SCRIPT', 'LOAD', src).decode()
BODY = json.dumps({'paymentId': 'p', 'pad': 'x' * 160})[:200].ljust(200).encode()
LEASE, RET = 30000, 86400000
FP = b''
def keys(tag): return [('idempotency:bench:%s:%s' % (tag, uuid.uuid4().hex[:12])).encode() for _ in range(N)]

def protocol(label, acq_src, com_src, fp=FP):
    a, c = load(acq_src), load(com_src)
    ks = keys(label); owners = [uuid.uuid4().hex.encode() for _ in ks]
    r = {}
    r['acquire new'] = phase(label + ' acquire(new)', [enc('EVALSHA', a, 1, k, o, LEASE, RET, fp) for k, o in zip(ks, owners)],
                             lambda x: isinstance(x, list) and x[0] == 1)
    r['complete'] = phase(label + ' complete', [enc('EVALSHA', c, 1, k, o, 1, RET, BODY, b'') for k, o in zip(ks, owners)],
                          lambda x: x == 1)
    r['acquire replay'] = phase(label + ' acquire(replay)', [enc('EVALSHA', a, 1, k, uuid.uuid4().hex, LEASE, RET, fp) for k in ks],
                                lambda x: isinstance(x, list) and x[0] == 3)
    cmd('FLUSHALL')
    return r
