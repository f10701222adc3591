#!/bin/bash
# Profile the measured window of one quick harness run (starter and raw Lettuce, 8 threads), not its start-up:
# async-profiler is attached with jcmd once the warm-up has run, for 10 s of the measured slices.
# usage (from the project root): AP=/path/to/libasyncProfiler.so OUT=/tmp/out benchmarks/profiles/client-cpu/window.sh TAG [new|replays]
# env JVM="-Xms1g -Xmx1g -XX:+AlwaysPreTouch" to pass other harness JVM options
tag=$1; wl=${2:-new}; OUT=${OUT:-/tmp}
./mvnw -q -Pbenchmarks -pl benchmarks test-compile exec:exec -Dharness.args="--quick --sides=starter,lettuce --threads=8 --workloads=$wl --reps=1 --seconds=12 --out=$OUT/$tag.md" -Dharness.jvmArgs="${JVM:--Xms1g -Xmx1g}" > $OUT/$tag.log 2>&1 &
mvnpid=$!
until grep -q "warming up" $OUT/$tag.log 2>/dev/null; do sleep 0.5; done
pid=$(pgrep -f "dev.idempotency.benchmarks.RedisHarness" | head -1)
sleep 8
# jcmd parses key=value itself: the agent's options go in double quotes
jcmd $pid JVMTI.agent_load $AP '"start,event=cpu,interval=499us,threads"' > $OUT/$tag.attach 2>&1
sleep 10
jcmd $pid JVMTI.agent_load $AP "\"stop,file=$OUT/$tag.collapsed,collapsed\"" >> $OUT/$tag.attach 2>&1
wait $mvnpid
grep "CPU/call" $OUT/$tag.log
