#!/usr/bin/env bash
# check.sh: measures an existing rack (netlab.sh up) with python3 traffic only:
#   1. unloaded RTT: 64 B UDP ping-pong h1 -> h2 (the rack's base RTT, for the bench's --rtt-us)
#   2. single-flow throughput: one TCP bulk flow h1 -> h2 (for --link-mbps; expect ~goodput of the link)
#   3. priority bypass: TCP bulk from h3 (and h4) into h2 at DSCP 0 saturates switch port p2; a UDP probe
#      h1 -> h2 runs once marked as Homa level 7 (TOS 0xe0) and once unmarked (TOS 0)
# Prints one `check ...` line per measurement. Needs at least 3 hosts for step 3 (skipped otherwise).
# usage: check.sh [--hosts H] [--seconds S] [--prefix P]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
PREFIX=${NETLAB_PREFIX:-homa-lab}
HOSTS=4
SECONDS_PER_STEP=6
while (($#)); do
  case "$1" in
    --hosts) HOSTS=$2; shift 2 ;;
    --seconds) SECONDS_PER_STEP=$2; shift 2 ;;
    --prefix) PREFIX=$2; shift 2 ;;
    *) echo "usage: check.sh [--hosts H] [--seconds S] [--prefix P]" >&2; exit 2 ;;
  esac
done
tool="$here/nettool.py"
# shellcheck source=lib.sh
source "$here/lib.sh"
ip netns list | grep -q "^$PREFIX-sw" || { echo "check.sh: no rack with prefix $PREFIX (run netlab.sh up)" >&2; exit 1; }

started=()
cleanup() { stop_helpers "${started[@]}"; }
trap cleanup EXIT

# kernel ICMP echo (no user space on the far side): iputils ping with the TOS byte set, when installed
ping_probe() {   # tos count -> "ping tos=.. count=.. lost=.. p50_us=.. p90_us=.. p99_us=.. max_us=.."
  command -v ping >/dev/null || { echo "ping not installed"; return 0; }
  local times
  times=$(on 1 ping -n -Q "$1" -i 0.002 -c "$2" -W 1 198.18.0.2 | sed -n 's/.*time=\([0-9.]*\).*/\1/p' | sort -g)
  awk -v tos="$1" -v n="$2" '{ t[++k] = $1 * 1000 }
    END {
      printf "ping tos=%s count=%d lost=%d p50_us=%.0f p90_us=%.0f p99_us=%.0f max_us=%.0f\n", tos, n, n - k,
        t[int(k * 0.5) + 1], t[int(k * 0.9) + 1], t[int(k * 0.99) + 1], t[k] }' <<<"$times"
}

echo "check machine $(nproc) cores, $(uptime | sed 's/.*load average/load average/')"
# samples the level-0 backlog of switch port p2 every 0.1 s into a file, until killed
sample_backlog() {
  while :; do
    tc -n "$PREFIX-sw" -s class show dev p2 classid 1:10 | awk '/backlog/ { sub("p$", "", $3); print $3 }'
    sleep 0.1
  done >"$1"
}
backlog_summary() {
  awk '{ n++; sum += $1; if ($1 > max) max = $1; if ($1 > 0) busy++ }
    END { printf "p2-level0-backlog samples=%d mean_pkts=%.0f max_pkts=%d nonempty=%.0f%%", n, sum / (n ? n : 1), max,
          100 * busy / (n ? n : 1) }' "$1"
}

probe_count=$((SECONDS_PER_STEP * 1000 / 2 * 2 / 3))   # 2 ms apart, two thirds of the step

# 1. unloaded RTT
on 2 python3 "$tool" udp-echo --port 9000 --duration 600 --reflect-tos >/dev/null &
started+=($!)
wait_listening 2 udp 9000 || { echo "check.sh: udp echo did not start" >&2; exit 1; }
echo "check unloaded-rtt $(on 1 python3 "$tool" probe --to 198.18.0.2:9000 --tos 0xe0 --count "$probe_count")"
echo "check unloaded-rtt-icmp $(ping_probe 0xe0 "$probe_count")"
echo "check unloaded-rtt-1400B $(on 1 python3 "$tool" probe --to 198.18.0.2:9000 --tos 0xe0 --size 1400 --count "$probe_count")"

# 2. single TCP flow
sink_out=$(mktemp)
on 2 python3 "$tool" tcp-sink --port 9001 --duration $((SECONDS_PER_STEP + 3)) >"$sink_out" &
sink=$!
wait_listening 2 tcp 9001 || { echo "check.sh: tcp sink did not start" >&2; exit 1; }
on 1 python3 "$tool" tcp-blast --to 198.18.0.2:9001 --duration "$SECONDS_PER_STEP" >/dev/null
wait "$sink"
echo "check single-flow $(cat "$sink_out")"

# 3. priority bypass under incast into p2
if ((HOSTS >= 3)); then
  on 2 python3 "$tool" tcp-sink --port 9002 --duration $((SECONDS_PER_STEP * 2 + 8)) >"$sink_out" &
  sink=$!
  wait_listening 2 tcp 9002 || { echo "check.sh: tcp sink did not start" >&2; exit 1; }
  senders=3
  ((HOSTS >= 4)) && senders=4
  for ((i = 3; i <= senders; i++)); do
    on "$i" python3 "$tool" tcp-blast --to 198.18.0.2:9002 --duration $((SECONDS_PER_STEP * 2 + 6)) >/dev/null &
    started+=($!)
  done
  sleep 2   # let cubic fill the port's level-0 queue
  # marked and unmarked probes run at the same time, so both see the same queue
  marked_out=$(mktemp) unmarked_out=$(mktemp) backlog_out=$(mktemp)
  sample_backlog "$backlog_out" &
  sampler=$!
  started+=("$sampler")
  on 1 python3 "$tool" probe --to 198.18.0.2:9000 --tos 0xe0 --count "$probe_count" >"$marked_out" &
  marked=$!
  on 1 python3 "$tool" probe --to 198.18.0.2:9000 --tos 0 --count "$probe_count" >"$unmarked_out"
  wait "$marked"
  echo "check loaded-marked $(cat "$marked_out")"
  echo "check loaded-unmarked $(cat "$unmarked_out")"
  if command -v ping >/dev/null; then
    ping_probe 0xe0 "$probe_count" >"$marked_out" &
    marked=$!
    ping_probe 0 "$probe_count" >"$unmarked_out"
    wait "$marked"
    echo "check loaded-marked-icmp $(cat "$marked_out")"
    echo "check loaded-unmarked-icmp $(cat "$unmarked_out")"
  fi
  stop_helpers "$sampler"
  echo "check loaded-queue $(backlog_summary "$backlog_out")"
  rm -f "$marked_out" "$unmarked_out" "$backlog_out"
  wait "$sink"
  echo "check incast-bulk $(cat "$sink_out") senders=$((senders - 2))"
fi
rm -f "$sink_out"
"$here/netlab.sh" status --prefix "$PREFIX" | grep -E '^ +p[0-9]+:' | sed 's/^ */check switch-counters /'
