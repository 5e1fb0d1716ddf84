#!/usr/bin/env bash
# quiet-timeline.sh PROTOCOL OUT [GAP_US] [SECONDS]: traces QuietRttBenchmark.warm's measured calls (scheduler
# switches and syscalls of the caller and both event loops, with perf) and prints where a quiet call's time goes,
# segment by segment (quiet-timeline.py). PROTOCOL is HOMA or TCP; GAP_US the idle gap (default 10000); SECONDS
# how long to trace (default 5). Needs root and perf with tracepoints; HOMA_JAR names the bench jar.
set -euo pipefail
protocol=${1:?usage: quiet-timeline.sh HOMA|TCP OUT [GAP_US] [SECONDS]}
out=${2:?usage: quiet-timeline.sh HOMA|TCP OUT [GAP_US] [SECONDS]}
gap=${3:-10000}
seconds=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
jar=${HOMA_JAR:-$here/../target/homa-bench.jar}
[[ $protocol == HOMA || $protocol == TCP ]] || { echo "PROTOCOL must be HOMA or TCP" >&2; exit 2; }
if ! [[ $gap =~ ^[0-9]+$ && $seconds =~ ^[0-9]+$ && $seconds -ge 1 ]]; then
    echo "GAP_US is a whole number of microseconds and SECONDS a whole number from 1" >&2
    exit 2
fi
command -v perf > /dev/null || { echo "perf is not installed" >&2; exit 2; }
mkdir -p "$out"
java -jar "$jar" jmh 'QuietRttBenchmark.warm' -p "gapMicros=$gap" -p "transport=$protocol" -i 3 > "$out/jmh.log" 2>&1 &
bench=$!
until grep -q "^Iteration   1:" "$out/jmh.log" 2>/dev/null; do
    kill -0 $bench 2> /dev/null || { echo "the benchmark ended before measuring; see $out/jmh.log" >&2; exit 1; }
    sleep 0.3
done
fork=$(pgrep -f ForkedMain | head -1)
for task in /proc/"$fork"/task/*; do echo "$(basename "$task") $(cat "$task"/comm)"; done \
    | grep -E "homa4j|bench|tcp-" > "$out/threads.txt"
# the measured iteration starts with back-to-back calls until the JIT is quiet; trace the gapped calls after it
sleep 6
filter=$(awk '{printf "%scommon_pid == %s", (NR > 1 ? " || " : ""), $1}' "$out/threads.txt")
perf record -a -e sched:sched_switch -e raw_syscalls:sys_enter --filter "$filter" -e raw_syscalls:sys_exit \
    --filter "$filter" -o "$out/perf.data" -- sleep "$seconds" > /dev/null 2>&1
wait $bench
perf script -i "$out/perf.data" -F tid,time,event,trace > "$out/events.txt" 2> /dev/null
python3 "$here/quiet-timeline.py" "$out" | tee "$out/timeline.txt"
