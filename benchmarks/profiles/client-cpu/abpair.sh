#!/bin/bash
# One quick harness run of the starter and raw Lettuce at 8 threads (new keys and replays, 3 x 2 s), heap pre-touched.
# usage: abpair.sh TAG TREE OUT ; alternate two trees (a scratch clone of the commit before, and this one) and read
# the logs with ratios.py
tag=$1; tree=$2; OUT=${3:-/tmp}
cd $tree
./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec -Dharness.args="--quick --sides=starter,lettuce --threads=8 --workloads=new,replays --reps=3 --seconds=2 --out=$OUT/$tag.md" -Dharness.jvmArgs="-Xms1g -Xmx1g -XX:+AlwaysPreTouch" > $OUT/$tag.log 2>&1
echo "== $tag $(date +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
