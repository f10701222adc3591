# Aggregate an async-profiler collapsed profile by frame for the threads matching a pattern.
# usage: agg.py FILE THREAD_REGEX [self|incl] [unused] [N]
import sys, collections, re
# usage: agg.py file threadregex [mode] ; mode=self|frames
f, tre = sys.argv[1], re.compile(sys.argv[2]); mode = sys.argv[3] if len(sys.argv)>3 else 'self'
depth = int(sys.argv[4]) if len(sys.argv)>4 else 0
selfc = collections.Counter(); incl = collections.Counter(); total=0
for line in open(f):
    stack, n = line.rstrip().rsplit(' ', 1); n=int(n)
    fr = stack.split(';')
    if not tre.search(fr[0]): continue
    total += n
    selfc[fr[-1]] += n
    for x in set(fr[1:]): incl[x] += n
print('total', total)
c = selfc if mode=='self' else incl
for k,v in c.most_common(int(sys.argv[5]) if len(sys.argv)>5 else 40):
    print(f"{v:7d} {100*v/total:5.1f}% {k[:170]}")
