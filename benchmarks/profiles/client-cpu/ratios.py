import sys, re, collections
# usage: ratios.py log... ; prints caller and JVM CPU/call per side and ratios starter/lettuce
pat = re.compile(r'rep (\d+)/\d+, (new keys|replays)\s+(\w+)\s+([\d,]+) calls/s.*callers\s+([\d.]+) µs, JVM\s+([\d.]+) µs, Redis\s+([\d.]+)')
def parse(f):
    d = collections.defaultdict(list)
    for line in open(f):
        m = pat.search(line)
        if m:
            rep, wl, side, cps, cal, jvm, red = m.groups()
            d[(wl, side)].append((float(cps.replace(',','')), float(cal), float(jvm), float(red)))
    return d
tot = collections.defaultdict(list)
for f in sys.argv[1:]:
    d = parse(f); out=[f.split('/')[-1]]
    for wl in ('new keys','replays'):
        s, l = d[(wl,'starter')], d[(wl,'lettuce')]
        if not s or not l: continue
        sc = sum(x[1] for x in s)/len(s); lc = sum(x[1] for x in l)/len(l)
        sj = sum(x[2] for x in s)/len(s); lj = sum(x[2] for x in l)/len(l)
        tp = sum(a[0]/b[0] for a,b in zip(s,l))/len(s)
        out.append(f"{wl}: callers {sc:.1f}/{lc:.1f}={sc/lc:.2f} JVM {sj:.1f}/{lj:.1f}={sj/lj:.2f} tput {tp:.2f}")
        tot[wl].append((sc/lc, sj/lj, sc-lc, sj-lj))
    print(' | '.join(out))
for wl, v in tot.items():
    import statistics as st
    print(wl, 'median caller ratio %.2f (%s) JVM ratio %.2f; caller +%.1f µs JVM +%.1f µs' % (st.median(x[0] for x in v), ' '.join('%.2f'%x[0] for x in v), st.median(x[1] for x in v), st.median(x[2] for x in v), st.median(x[3] for x in v)))
