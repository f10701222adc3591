# Bytes allocated by site (deepest starter frame, allocating frame, class) in an alloc profile taken with total.
# usage: alloc2.py FILE STACK_REGEX [N]
import sys, collections, re
f=sys.argv[1]; filt=re.compile(sys.argv[2]); c=collections.Counter(); t=0
for line in open(f):
    stack,n=line.rstrip().rsplit(' ',1); n=int(n)
    if not filt.search(stack): continue
    fr=stack.split(';'); cls=fr[-1]
    site=[x for x in fr[:-1] if (x.startswith('dev/idempotency/') and 'benchmarks' not in x) ]
    key=(site[-1] if site else '?', fr[-2], cls)
    c[key]+=n; t+=n
print('total bytes', t)
for k,v in c.most_common(int(sys.argv[3]) if len(sys.argv)>3 else 40): print(f"{100*v/t:5.1f}% {k[0][:62]} | {k[1][:58]} | {k[2][:60]}")
