#!/usr/bin/env bash
# compare.sh: Homa vs TCP in the emulated rack (netlab.sh), all-to-all as in the reference benchmark.
#
# Brings the rack up, measures its unloaded RTT, then for each protocol (Homa first, then TCP) starts one bench
# JVM per host, `homa-bench.jar node`: an echo server and an open-loop client in one process (for Homa one
# endpoint, as a host has one Homa transport instance); each client sends to the servers of all other hosts.
# The clients' histograms are merged by `homa-bench.jar merge` into OUT/results.csv and OUT/rtt.svg.
# CPU utilisation is reported next to the results: machine-wide from /proc/stat deltas (all cores, including
# the kernel's packet processing for the rack, and anything else running on the machine) and the rack JVMs' own
# CPU time from /proc/<pid>/stat. The rack is torn down on exit, failure or Ctrl-C.
#
# Load: --load is the utilisation of every host link, each direction. Every host both sends requests and
# returns equally long responses, so its uplink carries its own requests plus its responses to the others:
# each client offers --load x link / 2 of request bits.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

HOSTS=4
# 50 Mbit/s: as high as the data path allows while a two-core machine stays well under 70% busy; at rates where the
# hosts' CPU rather than the link sets the largest messages' tail, the run measures the CPU (docs/benchmarking.md).
LINK_MBPS=50
WORKLOAD=w4
LOAD=0.8
DURATION=30
# The JVMs start on the same cores: keep their JIT compilation out of the measured window. C2 compiles and
# recompiles the engine's hottest methods (deoptimised when a rare branch is first taken) for tens of seconds of a
# Homa JVM's life (-XX:+PrintCompilation shows it).
WARMUP=45
OUT=results/netlab
MAX_MESSAGE=1000000
RTT_US=auto
# Homa's RTT budget (RTTbytes: unscheduled bytes, grant windows, the FIFO grant increment) is the time to send a
# full-size DATA packet and get its GRANT back. The probe measures 64 B packets; on these slow links a full
# 1,514 B frame takes 484 us per hop at 25 Mbit/s (two hops: the host's NIC and the switch port), which the probe
# does not see. So Homa gets the probe's RTT plus a full frame's serialization on both hops: with the probe's RTT
# alone, unscheduled bytes and the FIFO grant increment were one packet and the grant window a few packets, and
# the largest messages' tail did not shrink with a faster link, a sign of round trips, not bandwidth. Four frames
# (the simulator's rule for its own RTT budget, a full packet each way) put more unscheduled bytes ahead of short
# messages in the host's FIFO and made their P99 longer. --homa-min-rtt-us sets a floor on top (0: none); a floor
# far above this rule (several times the real round trip) can set off a retransmission storm.
HOMA_MIN_RTT_US=0
FRAME_BYTES=1514
PROTOCOLS=homa,tcp
BUFFER_PKTS=200
HOST_QUEUES=prio   # the hosts' NICs: fifo or prio (netlab.sh --host-queues); prio, as the bench CLI's compare
# Threads (kernel names, an extended regex) given real-time priority (SCHED_FIFO 1) in every rack JVM once the
# clients start; empty: none. Default: the clients' generators (OpenLoopDriver.THREAD_NAME). Four hosts share two
# cores here, and a generator woken late sends late, which makes the run OVERLOADED for a reason no real host has;
# the generators sleep between arrivals and spin at most 200 us before one, so they take little from the rest.
REALTIME_THREADS=bench-driver
JAR="$repo/homa-bench/target/homa-bench.jar"
CLASSPATH_=""     # --classpath: run io.homa4j.bench.Main from this class path instead of -jar $JAR
JAVA=java
SEED=1
TCP_CONNECTIONS=""
MAX_OUTSTANDING=""
PORT=4500
CLIENTS=""        # clients run in hosts 1..CLIENTS (default: every host)
LOAD_MBPS=""      # request bits per client; overrides --load
PREFIX=${NETLAB_PREFIX:-homa-lab}
# --unloaded-only: instead of the loaded runs, each protocol's unloaded RTT by length on the idle rack (one call at
# a time from h1 to h2 after a warm-up: `homa-bench.jar unloaded`) into OUT/unloaded-<protocol>.csv.
# --unloaded-dir DIR: the loaded runs' clients divide every call's RTT by DIR/unloaded-<protocol>.csv (slowdown).
UNLOADED_ONLY=0
UNLOADED_DIR=""
CAPTURE=0         # --capture: Homa runs record every host's packets over the measured phase (short-waits.py)
UNLOADED_WARMUP=10
# The heap at its full size from the start, touched before the run: a growing heap pauses the JVMs in the first
# seconds, and a pause stops the generator too (late sends).
# 128 MB, not more: kernels that run DAMON proactive reclaim (kdamond, action pageout) treat a pre-touched page a JVM
# never uses again as cold memory, and with large pre-touched heaps the reclaim thread held a core for milliseconds
# at a time while the event loops it displaced waited with a packet in their socket.
# No periodic "Cleanup" safepoint (GuaranteedSafepointInterval=0): with four JVMs on two cores, reaching one takes
# milliseconds about once a second per JVM, stopping the generator with every other thread.
# -XX:PerMethodTrapLimit=0: C2 compiles a branch it has not yet seen taken instead of an uncommon trap, so a packet
# type first met late in a run (a RESEND, a BUSY) does not throw the event loop's compiled dispatch back to
# profiling code and C2 into another compile of it; the rack's JVMs then take less of the machine.
JAVA_OPTS=${NETLAB_JAVA_OPTS:-"-Xms128m -Xmx128m -XX:+AlwaysPreTouch -XX:+UseSerialGC -XX:CICompilerCount=2 -XX:+UnlockDiagnosticVMOptions -XX:GuaranteedSafepointInterval=0 -XX:PerMethodTrapLimit=0"}
CLIENT_TIMEOUT_EXTRA=90    # seconds past warmup + duration before a client counts as hung

usage() {
  cat >&2 <<EOF
usage: compare.sh [--hosts H] [--link-mbps R] [--workload w1..w5|SIZE] [--load 0.8] [--duration S] [--out DIR]
                  [--max-message B] [--rtt-us N|auto] [--protocols homa,tcp] [--buffer-pkts N] [--warmup S]
                  [--seed S] [--tcp-connections N] [--max-outstanding N] [--jar PATH] [--prefix homa-...]
                  [--clients N] [--load-mbps M] [--homa-min-rtt-us N] [--java PATH] [--classpath CP]
                  [--host-queues fifo|prio] [--realtime-threads REGEX] [--unloaded-only] [--unloaded-dir DIR]
                  [--capture]
  --clients N: clients only in hosts 1..N (servers in every host); --load-mbps M: each client's request
  bits per second, instead of the rate derived from --load (load x link / 2, for all-to-all echo traffic)
  --java/--classpath: the java binary and a class path holding io.homa4j.bench.Main (instead of java -jar JAR;
  the bench jar's own 'compare --where rack' passes its own)
  --unloaded-only: measure each protocol's unloaded RTT by length (OUT/unloaded-<protocol>.csv), no loaded runs;
  --unloaded-dir DIR: the clients also record each call's slowdown against DIR/unloaded-<protocol>.csv
  --capture: in Homa's runs every host records its NIC's packets over the measured phase (short-waits.py
  capture), and OUT/<protocol>/short-waits.txt says where short calls waited between the hosts' NICs
  --homa-min-rtt-us N: floor of Homa's RTT budget (default $HOMA_MIN_RTT_US; Homa's budget is the measured or given
  --rtt-us plus a full frame's serialization on both hops, if larger)
  single long-message flow: --hosts 2 --clients 1 --workload 1000000 --load-mbps <just under the link>
  defaults: --hosts $HOSTS --link-mbps $LINK_MBPS --workload $WORKLOAD --load $LOAD --duration $DURATION
            --out $OUT --max-message $MAX_MESSAGE --rtt-us $RTT_US (measured) --protocols $PROTOCOLS
  JVM options: NETLAB_JAVA_OPTS (default: $JAVA_OPTS)
EOF
  exit 2
}

die() { echo "compare.sh: $*" >&2; exit 1; }

while (($#)); do
  case "$1" in
    --hosts) HOSTS=${2:?}; shift 2 ;;
    --link-mbps) LINK_MBPS=${2:?}; shift 2 ;;
    --workload) WORKLOAD=${2:?}; shift 2 ;;
    --load) LOAD=${2:?}; shift 2 ;;
    --duration) DURATION=${2:?}; shift 2 ;;
    --warmup) WARMUP=${2:?}; shift 2 ;;
    --out) OUT=${2:?}; shift 2 ;;
    --max-message) MAX_MESSAGE=${2:?}; shift 2 ;;
    --rtt-us) RTT_US=${2:?}; shift 2 ;;
    --homa-min-rtt-us) HOMA_MIN_RTT_US=${2:?}; shift 2 ;;
    --protocols) PROTOCOLS=${2:?}; shift 2 ;;
    --buffer-pkts) BUFFER_PKTS=${2:?}; shift 2 ;;
    --host-queues) HOST_QUEUES=${2:?}; shift 2 ;;
    --realtime-threads) REALTIME_THREADS=${2?}; shift 2 ;;
    --seed) SEED=${2:?}; shift 2 ;;
    --tcp-connections) TCP_CONNECTIONS=${2:?}; shift 2 ;;
    --max-outstanding) MAX_OUTSTANDING=${2:?}; shift 2 ;;
    --jar) JAR=${2:?}; shift 2 ;;
    --classpath) CLASSPATH_=${2:?}; shift 2 ;;
    --java) JAVA=${2:?}; shift 2 ;;
    --clients) CLIENTS=${2:?}; shift 2 ;;
    --load-mbps) LOAD_MBPS=${2:?}; shift 2 ;;
    --prefix) PREFIX=${2:?}; shift 2 ;;
    --unloaded-only) UNLOADED_ONLY=1; shift ;;
    --unloaded-dir) UNLOADED_DIR=${2:?}; shift 2 ;;
    --capture) CAPTURE=1; shift ;;
    -h|--help) usage ;;
    *) echo "compare.sh: unknown option '$1'" >&2; usage ;;
  esac
done

[[ "$HOSTS" =~ ^[0-9]+$ ]] && ((HOSTS >= 2)) || die "--hosts must be >= 2"
[[ "$LINK_MBPS" =~ ^[0-9]+$ ]] || die "--link-mbps must be a whole number"
[[ "$DURATION" =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--duration must be seconds"
[[ "$LOAD" =~ ^[0-9]*[.]?[0-9]+$ ]] || die "--load must be a fraction like 0.8"
CLIENTS=${CLIENTS:-$HOSTS}
[[ "$CLIENTS" =~ ^[0-9]+$ ]] && ((CLIENTS >= 1 && CLIENTS <= HOSTS)) || die "--clients must be 1..--hosts"
[[ -z "$LOAD_MBPS" || "$LOAD_MBPS" =~ ^[0-9]*[.]?[0-9]+$ ]] || die "--load-mbps must be a number"
[[ "$RTT_US" == auto || "$RTT_US" =~ ^[0-9]+$ ]] || die "--rtt-us must be a number or auto"
[[ "$HOMA_MIN_RTT_US" =~ ^[0-9]+$ ]] || die "--homa-min-rtt-us must be a whole number"
((EUID == 0)) || die "must run as root, or without root through rootless.sh (the rack is made of network namespaces)"
command -v "$JAVA" >/dev/null || die "java is missing"
command -v python3 >/dev/null || die "python3 is missing (used to measure the rack's RTT)"
if [[ -n "$CLASSPATH_" ]]; then
  bench=("$JAVA" -cp "$CLASSPATH_" io.homa4j.bench.Main)
else
  [[ -f "$JAR" ]] || die "bench jar not found: $JAR (build it: mvn -B -q package -DskipTests)"
  bench=("$JAVA" -jar "$JAR")
fi
IFS=, read -r -a protocol_list <<<"$PROTOCOLS"
for protocol in "${protocol_list[@]}"; do
  [[ "$protocol" =~ ^(homa|tcp|grpc-homa|grpc-tcp)$ ]] || die "--protocols takes homa, tcp, grpc-homa, grpc-tcp"
done

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log() { echo "compare.sh: $*" | tee -a "$OUT/run.log" >&2; }
: >"$OUT/run.log"

netlab() { "$here/netlab.sh" "$@" --prefix "$PREFIX"; }
# shellcheck source=lib.sh
source "$here/lib.sh"
addr() { echo "198.18.0.$1"; }

# Gives the threads named like REALTIME_THREADS in the given JVMs SCHED_FIFO priority 1, polling until every client
# JVM has its generator (named when its client starts) so prioritised, for up to 10 s. Reads the names with the
# shell's own `read`: a `cat` per thread forks about a hundred times per pass, and on a loaded machine one pass
# outlasted the old 3 s deadline, so the JVM scanned first, before its generator was named, was never looked at
# again (h1's generator ran unprioritised in most repeats, its wake lag P99 4-21 ms against 1-5 ms).
realtime_threads() {   # client pids... -- other pids...
  [[ -n "$REALTIME_THREADS" ]] || return 0
  command -v chrt >/dev/null || { log "chrt is missing: no real-time priority for $REALTIME_THREADS"; return 0; }
  chrt -f 1 true 2>/dev/null || {
    log "no real-time priority for $REALTIME_THREADS: not permitted here${NETLAB_ROOTLESS:+ (rootless: it needs CAP_SYS_NICE on the machine itself)}"
    return 0
  }
  local pid task name done_tids=" " until=$((SECONDS + 10)) missing clients=() others=() unprioritised
  while (($#)) && [[ "$1" != -- ]]; do clients+=("$1"); shift; done
  (($#)) && shift
  others=("$@")
  while :; do
    missing=0 unprioritised=""
    for pid in "${clients[@]}" "${others[@]}"; do
      local found=0
      for task in /proc/"$pid"/task/*; do
        read -r name <"$task/comm" 2>/dev/null || continue
        [[ "$name" =~ ^($REALTIME_THREADS)$ ]] || continue
        [[ "$name" == bench-driver ]] && found=1
        [[ "$done_tids" == *" ${task##*/} "* ]] && continue
        chrt -f -p 1 "${task##*/}" >/dev/null 2>&1 || log "chrt failed for thread $name of pid $pid"
        done_tids+="${task##*/} "
      done
      if ((!found)) && [[ " ${clients[*]} " == *" $pid "* ]]; then
        missing=1
        unprioritised+=" $pid"
      fi
    done
    ((missing && SECONDS < until)) || break
    sleep 0.1
  done
  log "real-time priority (SCHED_FIFO 1) for threads ^($REALTIME_THREADS)\$: $(($(wc -w <<<"$done_tids"))) threads"
  [[ -z "$unprioritised" ]] ||
    log "WARNING: no bench-driver thread after 10 s in client JVM(s)$unprioritised: their generators run unprioritised"
}

jvm_pids=()
stop_jvms() {
  local pid
  for pid in "${jvm_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${jvm_pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  jvm_pids=()
}
cleanup() {
  local status=$?
  # a second Ctrl-C or SIGTERM (a terminal sends SIGINT to the whole process group, and a parent may add SIGTERM)
  # must not cut the teardown short
  trap - EXIT
  trap '' INT TERM
  stop_jvms
  netlab down >/dev/null 2>&1 || echo "compare.sh: netlab.sh down failed; run it by hand" >&2
  exit "$status"
}
trap cleanup EXIT
trap 'echo "compare.sh: interrupted" >&2; exit 130' INT TERM

# /proc/stat "cpu" line: user nice system idle iowait irq softirq steal
cpu_sample() { head -1 /proc/stat | awk '{print $2, $3, $4, $5, $6, $7, $8, $9}'; }
cpu_report() {   # before after -> "busy% user% sys% softirq% steal%"
  awk -v a="$1" -v b="$2" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= 8; i++) { d[i] = y[i] - x[i]; total += d[i] }
    if (total <= 0) total = 1
    printf "%.0f %.0f %.0f %.0f %.0f", 100 * (total - d[4] - d[5]) / total, 100 * (d[1] + d[2]) / total,
      100 * (d[3] + d[6]) / total, 100 * d[7] / total, 100 * d[8] / total }'
}
jvm_cpu_ticks() {   # utime + stime of our JVMs so far
  local pid total=0 fields
  for pid in "$@"; do
    fields=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || continue
    total=$((total + fields))
  done
  echo "$total"
}

# bytes sent so far by every switch egress port (the downlinks to hosts 1..H), from each port's root qdisc;
# with the time, so the utilisation of every downlink over the measured phase can be reported
port_bytes_sample() {
  local i line
  line=$(date +%s.%N)
  for ((i = 1; i <= HOSTS; i++)); do
    line+=" $(tc -n "$PREFIX-sw" -s qdisc show dev "p$i" 2>/dev/null | awk '/^qdisc htb 1: root/ { root = 1 }
      root && /Sent/ { print $2; exit }')"
  done
  echo "$line"
}
port_report() {   # protocol before after -> one CSV line per port: protocol,port,mbps,pct_of_link
  awk -v p="$1" -v a="$2" -v b="$3" -v r="$LINK_MBPS" 'BEGIN {
    n = split(a, x, " "); split(b, y, " "); t = y[1] - x[1]; if (t <= 0) t = 1
    for (i = 2; i <= n; i++) { m = (y[i] - x[i]) * 8 / t / 1e6; printf "%s,p%d,%.2f,%.1f\n", p, i - 1, m, 100 * m / r } }'
}

# One CSV line: what was lost in a protocol's run, and what Homa sent again. The rack is built afresh for each
# protocol, so the qdisc and kernel counters are this run's alone. Switch drops: every priority level of every
# downlink (`netlab status`); host queues: each host's egress qdisc ("dropped N" lines); UDP receive-buffer
# overflows from each host's /proc/net/snmp; for Homa, DATA packets sent and retransmitted, summed over the
# engines' MetricsSnapshot lines that every JVM prints when it stops (TCP leaves the last two empty).
loss_report() {   # protocol dir
  local protocol=$1 dir=$2 switch host udp data="" resent=""
  switch=$(grep -E '^ +p[0-9]+:' "$dir/switch.txt" 2>/dev/null | awk '{ for (f = 3; f <= NF; f += 2) {
      split($f, c, "/"); d += c[2] } } END { print d + 0 }')
  host=$(grep -E '^=+ .*-h[0-9]+:' -A3 "$dir/switch.txt" 2>/dev/null | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' |
    awk '{ d += $1 } END { print d + 0 }')
  udp=$(cat "$dir"/snmp-h*.txt 2>/dev/null | awk '$1 == "Udp:" && $2 ~ /^[0-9]/ { e += $6 } END { print e + 0 }')
  if [[ "$protocol" == homa || "$protocol" == grpc-homa ]]; then
    read -r data resent < <(grep -h 'MetricsSnapshot{' "$dir"/node-h*.err 2>/dev/null | awk '{
        if (match($0, /DATA in\/out=[0-9]+\/[0-9]+/)) { split(substr($0, RSTART, RLENGTH), a, "/"); d += a[3] }
        if (match($0, /retransmitted=[0-9]+/)) { r += substr($0, RSTART + 14, RLENGTH - 14) } }
      END { print d + 0, r + 0 }')
  fi
  echo "$protocol,$switch,$host,$udp,$data,$resent"
}

# --- the rack -----------------------------------------------------------------------------------------------
netlab up --hosts "$HOSTS" --link-mbps "$LINK_MBPS" --buffer-pkts "$BUFFER_PKTS" --host-queues "$HOST_QUEUES" | tee -a "$OUT/run.log"
if [[ "$RTT_US" == auto ]]; then
  on 2 python3 "$here/nettool.py" udp-echo --port 9000 --duration 20 --reflect-tos >/dev/null &
  echo_pid=$!
  wait_listening 2 udp 9000 || die "udp echo for the RTT probe did not start"
  rtt_line=$(on 1 python3 "$here/nettool.py" probe --to "$(addr 2):9000" --tos 0xe0 --count 1000 --interval-ms 2)
  stop_helpers "$echo_pid"
  log "unloaded RTT (64 B UDP ping-pong h1-h2, python): $rtt_line"
  RTT_US=$(sed -n 's/.* p50_us=\([0-9]*\).*/\1/p' <<<"$rtt_line")
  [[ -n "$RTT_US" ]] || die "could not measure the rack's RTT"
fi
FULL_PACKET_RTT_US=$((RTT_US + 2 * FRAME_BYTES * 8 / LINK_MBPS))
HOMA_RTT_US=$((FULL_PACKET_RTT_US > HOMA_MIN_RTT_US ? FULL_PACKET_RTT_US : HOMA_MIN_RTT_US))
if [[ -n "$LOAD_MBPS" ]]; then
  request_mbps=$LOAD_MBPS
else
  request_mbps=$(awk -v l="$LOAD" -v r="$LINK_MBPS" 'BEGIN { printf "%.3f", l * r / 2 }')
fi
log "rack: $HOSTS hosts, link $LINK_MBPS Mbit/s, switch buffers $BUFFER_PKTS pkts per level per port;" \
  "bench: --link-mbps $LINK_MBPS, rack RTT $RTT_US us (64 B), Homa --rtt-us $HOMA_RTT_US (full packet); workload $WORKLOAD (max $MAX_MESSAGE B) at load $LOAD" \
  "= $request_mbps Mbit/s of requests per client ($CLIENTS clients), warmup $WARMUP s + $DURATION s"
{
  echo "hosts=$HOSTS link_mbps=$LINK_MBPS buffer_pkts=$BUFFER_PKTS host_queues=$HOST_QUEUES rtt_us=$RTT_US homa_rtt_us=$HOMA_RTT_US workload=$WORKLOAD"
  echo "max_message=$MAX_MESSAGE load=$LOAD clients=$CLIENTS request_mbps_per_client=$request_mbps duration=$DURATION warmup=$WARMUP"
  echo "java_opts=$JAVA_OPTS"
} >"$OUT/rack.txt"
echo "protocol,machine_cpu_busy_pct,user_pct,system_pct,softirq_pct,steal_pct,rack_jvm_cpu_seconds,rack_jvm_pct,outside_rack_pct,window_seconds" \
  >"$OUT/cpu.csv"

echo "protocol,host,sent,completed,failed,unfinished,achieved_mbps" >"$OUT/clients.csv"
echo "protocol,switch_port,wire_mbps,pct_of_link" >"$OUT/links.csv"
echo "protocol,switch_dropped,host_queue_dropped,udp_rcvbuf_errors,data_packets_out,retransmitted_packets" \
  >"$OUT/losses.csv"
# the generators spin the last 200 us before an arrival instead of trusting the wake-up from a park (at 25 Mbit/s
# a client sends about 20 requests per second: 0.4% of a core)
# The drain (calls still open after the last arrival may finish, and count, within it) outlasts the slowest calls:
# in the rack the largest bucket's P99 RTT can reach tens of seconds, so with the client's default of 10 s a slow
# call that arrived near the end would be cut off, left out of the histogram and counted unfinished (OVERLOADED);
# the drain ends as soon as every call is done.
DRAIN=30
extra_client_args=(--progress none --spin-us 200 --warmup "$WARMUP" --drain "$DRAIN")
[[ -n "$TCP_CONNECTIONS" ]] && extra_client_args+=(--tcp-connections "$TCP_CONNECTIONS")
[[ -n "$MAX_OUTSTANDING" ]] && extra_client_args+=(--max-outstanding "$MAX_OUTSTANDING")
ticks_per_second=$(getconf CLK_TCK)
failed=0
client_dirs=()

# One protocol's unloaded RTT by length: a server in h2, the probe in h1, nothing else on the rack.
run_unloaded() {
  local protocol=$1 rtt_us=$RTT_US server_pid
  [[ "$protocol" == homa || "$protocol" == grpc-homa ]] && rtt_us=$HOMA_RTT_US
  netlab up --hosts "$HOSTS" --link-mbps "$LINK_MBPS" --buffer-pkts "$BUFFER_PKTS" --host-queues "$HOST_QUEUES" >/dev/null
  local common=(--protocol "$protocol" --link-mbps "$LINK_MBPS" --link-framing-bytes 14 --rtt-us "$rtt_us"
    --max-message "$MAX_MESSAGE")
  # shellcheck disable=SC2086
  ip netns exec "$PREFIX-h2" "${bench[0]}" $JAVA_OPTS "${bench[@]:1}" server "${common[@]}" --port "$PORT" \
    --bind "$(addr 2)" \
    >"$OUT/unloaded-$protocol-server.out" 2>&1 &
  server_pid=$!
  jvm_pids+=("$server_pid")
  local deadline=$((SECONDS + 90))
  until grep -q '^homa-bench server: protocol=' "$OUT/unloaded-$protocol-server.out" 2>/dev/null; do
    kill -0 "$server_pid" 2>/dev/null || { tail -5 "$OUT/unloaded-$protocol-server.out" >&2; die "$protocol server in h2 exited"; }
    ((SECONDS < deadline)) || die "$protocol server in h2 not serving after 90 s"
    sleep 0.2
  done
  log "$protocol: unloaded RTT by length, one call at a time h1 -> h2 after a $UNLOADED_WARMUP s warm-up"
  # shellcheck disable=SC2086
  ip netns exec "$PREFIX-h1" "${bench[0]}" $JAVA_OPTS "${bench[@]:1}" unloaded "${common[@]}" --bind "$(addr 1)" \
    --server "$(addr 2):$PORT" --warmup "$UNLOADED_WARMUP" \
    --out "$OUT/unloaded-$protocol.csv" >"$OUT/unloaded-$protocol.out" 2>&1 ||
    { tail -5 "$OUT/unloaded-$protocol.out" >&2; die "$protocol: the unloaded probe failed"; }
  log "$protocol: $(tail -1 "$OUT/unloaded-$protocol.out")"
  stop_jvms
}

run_protocol() {
  local protocol=$1 dir="$OUT/$1" i j servers
  local rtt_us=$RTT_US
  if [[ "$protocol" == homa || "$protocol" == grpc-homa ]]; then rtt_us=$HOMA_RTT_US; fi
  local slowdown_args=()
  if [[ -n "$UNLOADED_DIR" ]]; then
    [[ -f "$UNLOADED_DIR/unloaded-$protocol.csv" ]] || die "no unloaded RTT for $protocol in $UNLOADED_DIR"
    slowdown_args=(--unloaded-rtt "$UNLOADED_DIR/unloaded-$protocol.csv")
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # a fresh rack for each protocol: empty queues, zeroed switch counters
  netlab up --hosts "$HOSTS" --link-mbps "$LINK_MBPS" --buffer-pkts "$BUFFER_PKTS" --host-queues "$HOST_QUEUES" >/dev/null
  # One JVM per host, as a Homa host has one transport instance: hosts 1..CLIENTS run a node (echo server and
  # client; for Homa one endpoint, so one pacer and one grant scheduler per host), the others a plain server.
  # TCP runs the same way, so both have the same processes on the same cores.
  local server_pids=() client_pids=() started_at servers
  for ((i = 1; i <= HOSTS; i++)); do
    # the hosts' tbf (their NIC) charges each packet its Ethernet header too: Homa's pacer counts it, or its host
    # queue outgrows its bound by about 1% of every busy period (TCP ignores the option)
    local common=(--protocol "$protocol" --port "$PORT" --bind "$(addr "$i")" --link-mbps "$LINK_MBPS"
      --link-framing-bytes 14
      --rtt-us "$rtt_us" --max-message "$MAX_MESSAGE")
    if ((i <= CLIENTS)); then
      servers=""
      for ((j = 1; j <= HOSTS; j++)); do
        ((j == i)) || servers+="${servers:+,}$(addr "$j"):$PORT"
      done
      # shellcheck disable=SC2086
      # ip netns exec execs the JVM in place, so $! is the JVM's pid (a shell function here would hide it)
      ip netns exec "$PREFIX-h$i" "${bench[0]}" $JAVA_OPTS "${bench[@]:1}" node "${common[@]}" --servers "$servers" \
        --workload "$WORKLOAD" --load-mbps "$request_mbps" --duration "$DURATION" --out "$dir/client-h$i" \
        --seed $((SEED * 1000 + i)) --start-file "$dir/start" "${extra_client_args[@]}" "${slowdown_args[@]}" \
        >"$dir/node-h$i.out" 2>"$dir/node-h$i.err" &
      client_pids+=($!)
    else
      # shellcheck disable=SC2086
      ip netns exec "$PREFIX-h$i" "${bench[0]}" $JAVA_OPTS "${bench[@]:1}" server "${common[@]}" \
        >"$dir/node-h$i.out" 2>"$dir/node-h$i.err" &
      server_pids+=($!)
    fi
    jvm_pids+=($!)
  done
  local deadline=$((SECONDS + 90)) all_pids=("${client_pids[@]}" "${server_pids[@]}")
  for ((i = 1; i <= HOSTS; i++)); do
    until grep -q '^homa-bench \(server\|node\): protocol=' "$dir/node-h$i.out" 2>/dev/null; do
      kill -0 "${all_pids[i - 1]}" 2>/dev/null || { tail -5 "$dir/node-h$i.err" >&2; die "$protocol JVM in h$i exited"; }
      ((SECONDS < deadline)) || die "$protocol JVM in h$i not serving after 90 s"
      sleep 0.2
    done
  done
  log "$protocol: $HOSTS hosts serving; starting the clients in hosts 1..$CLIENTS"
  started_at=$SECONDS
  touch "$dir/start"
  realtime_threads "${client_pids[@]}" -- "${server_pids[@]}"
  # the measured phase, in seconds from the clients' start: after JVM start-up and warm-up, before the drain
  local measure_from measure_to
  measure_from=$(awk -v w="$WARMUP" 'BEGIN { printf "%d", w + 3 }')
  measure_to=$(awk -v w="$WARMUP" -v d="$DURATION" 'BEGIN { printf "%d", w + d + 1 }')
  local capture_pids=()
  if ((CAPTURE)) && [[ "$protocol" == homa ]]; then
    # over the measured phase only, as the CPU sample below
    local capture_seconds=$((measure_to - measure_from))
    ((capture_seconds >= 2)) || capture_seconds=2
    for ((i = 1; i <= HOSTS; i++)); do
      on "$i" python3 "$here/short-waits.py" capture --out "$dir/capture-h$i.bin" --delay "$measure_from" \
        --seconds "$capture_seconds" >"$dir/capture-h$i.out" 2>&1 &
      capture_pids+=($!)
    done
  fi
  # a client is done when its node prints the summary line (its server keeps answering the others)
  client_running() { kill -0 "$1" 2>/dev/null && ! grep -q 'requests sent=' "$2" 2>/dev/null; }
  # wait for the clients; CPU is sampled over the measured phase only, machine-wide and for the rack's JVMs
  local limit alive pid status summary
  local cpu_before="" cpu_after="" jvm_before=0 jvm_after=0 window_start=0 window_end=0 ports_before="" ports_after=""
  limit=$(awk -v w="$WARMUP" -v d="$DURATION" -v e="$CLIENT_TIMEOUT_EXTRA" 'BEGIN { printf "%d", w + d + e }')
  deadline=$((SECONDS + limit))
  while :; do
    alive=0
    for ((i = 1; i <= CLIENTS; i++)); do client_running "${client_pids[i - 1]}" "$dir/node-h$i.out" && alive=1; done
    if [[ -z "$cpu_before" ]] && ((SECONDS - started_at >= measure_from || !alive)); then
      cpu_before=$(cpu_sample); jvm_before=$(jvm_cpu_ticks "${server_pids[@]}" "${client_pids[@]}")
      ports_before=$(port_bytes_sample)
      window_start=$SECONDS
    fi
    if [[ -z "$cpu_after" ]] && ((SECONDS - started_at >= measure_to || !alive)); then
      cpu_after=$(cpu_sample); jvm_after=$(jvm_cpu_ticks "${server_pids[@]}" "${client_pids[@]}")
      ports_after=$(port_bytes_sample)
      window_end=$SECONDS
    fi
    ((alive)) || break
    if ((SECONDS >= deadline)); then
      log "$protocol: clients still running after $limit s; stopping them"
      failed=1
      break
    fi
    sleep 0.5
  done
  [[ -n "$cpu_after" ]] || { cpu_after=$(cpu_sample); window_end=$SECONDS; ports_after=$(port_bytes_sample); }
  # what every downlink carried on the wire (frames as the qdisc counts them: Ethernet header, no FCS/preamble)
  port_report "$protocol" "$ports_before" "$ports_after" >>"$OUT/links.csv"
  log "$protocol: switch egress (downlink) wire rate over the measured phase, Mbit/s (% of the link):" \
    "$(awk -F, -v p="$protocol" '$1 == p { printf "%s %s (%s%%); ", $2, $3, $4 }' "$OUT/links.csv")"
  local jvm_ticks=$((jvm_after - jvm_before)) wall=$((window_end - window_start))
  # every client is done (or hung): now the servers may stop
  for pid in "${client_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for ((i = 1; i <= CLIENTS; i++)); do
    pid=${client_pids[i - 1]}
    status=0
    wait "$pid" || status=$?
    if ((status != 0)); then
      log "$protocol: node h$i exited with $status: $(tail -3 "$dir/node-h$i.err" | tr '\n' ' ')"
      failed=1
    fi
    summary=$(grep 'requests sent=' "$dir/node-h$i.out" 2>/dev/null | tail -1)
    log "$protocol h$i: $summary"
    awk -v p="$protocol" -v h="h$i" '{
        for (f = 1; f <= NF; f++) { split($f, kv, "="); v[kv[1]] = kv[2] }
        printf "%s,%s,%s,%s,%s,%s,%s\n", p, h, v["sent"], v["completed"], v["failed"], v["unfinished"], v["achieved"]
      }' <<<"${summary/requests sent=/sent=}" >>"$OUT/clients.csv"
    [[ -f "$dir/client-h$i/histograms.csv" ]] && client_dirs+=("$dir/client-h$i")
  done
  netlab status >"$dir/switch.txt" 2>&1 || true
  if ((${#capture_pids[@]})); then
    for pid in "${capture_pids[@]}"; do wait "$pid" || true; done
    if python3 "$here/short-waits.py" analyze "$dir"/capture-h*.bin >"$dir/short-waits.txt" 2>&1; then
      log "$protocol: where short calls waited between the NICs, us: $(tail -n +2 "$dir/short-waits.txt" | tr '\n' ';')" \
        "(captures: $(cat "$dir"/capture-h*.out | sed 's/^capture=.*capture-//' | tr '\n' ' '))"
    else
      log "$protocol: no short-call breakdown: $(tr '\n' ' ' <"$dir/short-waits.txt")"
    fi
    rm -f "$dir"/capture-h*.bin
  fi
  # per-host kernel counters: UDP receive-buffer overflows explain Homa losses the switch did not cause
  local udp_summary=""
  for ((i = 1; i <= HOSTS; i++)); do
    on "$i" cat /proc/net/snmp >"$dir/snmp-h$i.txt" 2>/dev/null || true
    udp_summary+=$(awk -v h="h$i" '$1 == "Udp:" && $2 ~ /^[0-9]/ {
      printf " %s: in %s, rcvbuf-errors %s, sndbuf-errors %s;", h, $2, $6, $7 }' "$dir/snmp-h$i.txt")
  done
  log "$protocol: host UDP counters:$udp_summary"
  stop_jvms
  # after stop_jvms: a JVM prints its engines' MetricsSnapshot as it stops
  loss_report "$protocol" "$dir" >>"$OUT/losses.csv"
  read -r busy user sys softirq steal <<<"$(cpu_report "$cpu_before" "$cpu_after")"
  local jvm_seconds jvm_pct
  jvm_seconds=$(awk -v t="$jvm_ticks" -v h="$ticks_per_second" 'BEGIN { printf "%.1f", t / h }')
  jvm_pct=$(awk -v s="$jvm_seconds" -v w="$wall" -v n="$(nproc)" 'BEGIN { printf "%.0f", (w > 0 ? 100 * s / (w * n) : 0) }')
  # what neither the rack's JVMs nor packet processing (softirq) used: other processes on a shared machine
  local outside_pct=$((busy - softirq - jvm_pct))
  ((outside_pct >= 0)) || outside_pct=0
  echo "$protocol,$busy,$user,$sys,$softirq,$steal,$jvm_seconds,$jvm_pct,$outside_pct,$wall" >>"$OUT/cpu.csv"
  log "$protocol: CPU over the measured phase ($wall s, all cores = 100%): machine busy $busy% (user $user%, system" \
    "$sys%, softirq $softirq%, steal $steal%); rack JVMs $jvm_seconds CPU-s ($jvm_pct%); outside the rack ~$outside_pct%"
  log "$protocol: switch ports (level: sent/dropped/backlog): $(grep -E '^ +p[0-9]+:' "$dir/switch.txt" | tr -s ' ' | tr '\n' ';')"
}

if ((UNLOADED_ONLY)); then
  for protocol in "${protocol_list[@]}"; do
    run_unloaded "$protocol"
  done
  echo "results: $(for protocol in "${protocol_list[@]}"; do printf '%s ' "$OUT/unloaded-$protocol.csv"; done)"
  exit 0
fi
for protocol in "${protocol_list[@]}"; do
  run_protocol "$protocol"
done

((${#client_dirs[@]})) || die "no client produced histograms"
in_dirs=$(IFS=,; echo "${client_dirs[*]}")
title="netlab: $HOSTS hosts, ${LINK_MBPS} Mbit/s links, $WORKLOAD (max $MAX_MESSAGE B), load $LOAD"
"${bench[0]}" $JAVA_OPTS "${bench[@]:1}" merge --in "$in_dirs" --out "$OUT" --title "$title" | tee "$OUT/table.txt"
echo
echo "Clients (requests; failed = typed error, unfinished = no answer by the end of the drain):"
column -t -s, "$OUT/clients.csv" 2>/dev/null || cat "$OUT/clients.csv"
awk -F, 'NR > 1 && ($5 + $6) > 0 { bad[$1] += $5 + $6 } END {
  for (p in bad) printf "compare.sh: WARNING: %s: %d requests failed or did not finish; they are not in the RTT histograms\n", p, bad[p] }' \
  "$OUT/clients.csv" | tee -a "$OUT/run.log" >&2
echo
echo "CPU (all cores = 100%):"
column -t -s, "$OUT/cpu.csv" 2>/dev/null || cat "$OUT/cpu.csv"
echo
echo "Switch egress ports (downlinks to the hosts) over the measured phase, wire bytes:"
column -t -s, "$OUT/links.csv" 2>/dev/null || cat "$OUT/links.csv"
echo
echo "Losses (packets; the switch's downlinks at every level, the hosts' egress queues, UDP receive buffers) and what Homa sent again:"
column -t -s, "$OUT/losses.csv" 2>/dev/null || cat "$OUT/losses.csv"
echo "results: $OUT/results.csv, $OUT/rtt.svg, $OUT/table.txt, $OUT/clients.csv, $OUT/cpu.csv, $OUT/links.csv, $OUT/losses.csv, $OUT/run.log"
exit "$failed"
