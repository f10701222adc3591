# Caller samples of each side in a window profile (window.sh), and how many of them are page faults (first touch
# of heap pages), with evalsha dispatch as a per-command yardstick.
# usage: pagefaults.py FILE
import sys
d = {'StarterSide': [0, 0, 0], 'LettuceFloor': [0, 0, 0]}
for line in open(sys.argv[1]):
    stack, n = line.rstrip().rsplit(' ', 1)
    n = int(n)
    if not stack.startswith('[caller'):
        continue
    side = 'StarterSide' if 'StarterSide' in stack else 'LettuceFloor' if 'LettuceFloor' in stack else None
    if side is None:
        continue
    d[side][0] += n
    if 'asm_exc_page_fault' in stack:
        d[side][1] += n
    if 'AbstractRedisAsyncCommands.evalsha' in stack:
        d[side][2] += n
for side, (total, faults, evalsha) in d.items():
    print(f"{side}: {total} caller samples, page faults {faults} ({100 * faults / max(total, 1):.1f} %), evalsha dispatch {evalsha}")
