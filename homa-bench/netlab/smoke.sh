#!/usr/bin/env bash
# smoke.sh: a few-second CI check that the netlab scripts work. Skips (exit 0, with the reason) when not root or
# when ip/tc/python3 are missing or network namespaces cannot be made; otherwise fails (non-zero) when:
#   - the 2-host rack does not come up, or a marked UDP probe h1 -> h2 is lost or slower than 20 ms at P50
#   - the switch does not classify by DSCP (the marked probe must land in level 7, the unmarked in level 0)
#   - a 2 s TCP flow is outside 50..105% of the link rate (the shaper is off or broken)
#   - the bench jar exists but short-waits.py, recording both hosts while a Homa client makes 150 short calls,
#     does not find at least 100 calls whole
#   - the bench jar exists (built by the CI's `mvn verify`) but a short low-load run of the README's main job in
#     the rack (`homa-bench.jar compare --where rack`, which runs compare.sh) does not produce results.csv rows
#     for every protocol (RPCs that failed are printed, not failed on: that is the protocol's result, not the
#     scripts')
#   - Ctrl-C (SIGINT to the process group, as a terminal sends it) during such a run leaves any namespace behind
#   - the rack is not completely gone afterwards
# The compare part (a few minutes: the calibration run, the unloaded RTT, then both protocols) is skipped with NETLAB_SMOKE_RACK_ONLY=1.
# Its namespaces are named homa-smoke-<pid>-*, so it never touches a developer's rack or another smoke run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export NETLAB_PREFIX=homa-smoke-$$
# shellcheck source=lib.sh
source "$here/lib.sh"
LINK_MBPS=100

skip() { echo "netlab smoke: SKIPPED: $*"; exit 0; }
((EUID == 0)) || skip "not root (the rack needs network namespaces and qdiscs)"
for tool in ip tc python3; do
  command -v "$tool" >/dev/null || skip "'$tool' is missing"
done
probe_ns="$NETLAB_PREFIX-probe$$"
ip netns add "$probe_ns" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "$probe_ns"

failures=0
fail() { echo "netlab smoke: FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "netlab smoke: ok: $*"; }
helpers=()
cleanup() {
  stop_helpers "${helpers[@]}"
  "$here/netlab.sh" down >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT TERM
level_sent() {   # port level -> packets sent by that priority class of the switch port
  "$here/netlab.sh" status | awk -v port="$1:" -v level="L$2" '$1 == port {
    for (i = 2; i < NF; i += 2) if ($i == level) { split($(i + 1), f, "/"); print f[1] } }'
}

if ! "$here/netlab.sh" up --hosts 2 --link-mbps "$LINK_MBPS"; then
  fail "netlab.sh up"
  exit 1
fi
"$here/netlab.sh" status >/dev/null || fail "netlab.sh status after up"

on 2 python3 "$here/nettool.py" udp-echo --port 9000 --duration 15 --reflect-tos >/dev/null &
helpers+=($!)
wait_listening 2 udp 9000 || fail "udp echo server did not start"
before7=$(level_sent p2 7)
marked=$(on 1 python3 "$here/nettool.py" probe --to 198.18.0.2:9000 --tos 0xe0 --count 200 --interval-ms 2 \
  --timeout-ms 500)
echo "netlab smoke: marked probe: $marked"
lost=$(sed -n 's/.* lost=\([0-9]*\).*/\1/p' <<<"$marked")
p50=$(sed -n 's/.* p50_us=\([0-9]*\).*/\1/p' <<<"$marked")
if [[ "$lost" == 0 && -n "$p50" ]] && ((p50 < 20000)); then pass "probe RTT p50 ${p50} us, none lost"
else fail "probe lost $lost or p50 '$p50' us >= 20 ms"; fi
after7=$(level_sent p2 7)
((after7 - before7 >= 200)) && pass "switch port p2 level 7 carried the 200 marked probes" \
  || fail "switch port p2 level 7 counted $((after7 - before7)) of 200 marked probes"
before0=$(level_sent p2 0)
on 1 python3 "$here/nettool.py" probe --to 198.18.0.2:9000 --tos 0 --count 100 --interval-ms 2 >/dev/null
after0=$(level_sent p2 0)
((after0 - before0 >= 100)) && pass "unmarked probes went to level 0" \
  || fail "switch port p2 level 0 counted $((after0 - before0)) of 100 unmarked probes"

sink_out=$(mktemp)
on 2 python3 "$here/nettool.py" tcp-sink --port 9001 --duration 5 >"$sink_out" &
sink=$!
wait_listening 2 tcp 9001 || fail "tcp sink did not start"
on 1 python3 "$here/nettool.py" tcp-blast --to 198.18.0.2:9001 --duration 2 >/dev/null || fail "tcp-blast"
wait "$sink"
echo "netlab smoke: single flow: $(cat "$sink_out")"
mbps=$(sed -n 's/.* mbps=\([0-9.]*\).*/\1/p' "$sink_out")
rm -f "$sink_out"
if awk -v m="${mbps:-0}" -v r="$LINK_MBPS" 'BEGIN { exit !(m >= 0.5 * r && m <= 1.05 * r) }'; then
  pass "TCP flow ${mbps} Mbit/s on a ${LINK_MBPS} Mbit/s link"
else
  fail "TCP flow ${mbps:-?} Mbit/s is outside 50..105% of ${LINK_MBPS} Mbit/s"
fi

# short-waits.py: both hosts' NICs recorded while a Homa client calls an echo server one call at a time; the
# analysis must find the short calls whole (request and response seen at both NICs)
jar="$repo/homa-bench/target/homa-bench.jar"
if [[ -z "${NETLAB_SMOKE_RACK_ONLY:-}" && -f "$jar" ]] && command -v java >/dev/null; then
  waits=$(mktemp -d)
  on 2 java -jar "$jar" server --protocol homa --bind 198.18.0.2 --port 9002 --link-mbps "$LINK_MBPS" \
    >"$waits/server.out" 2>&1 &
  helpers+=($!)
  if wait_listening 2 udp 9002; then
    for h in 1 2; do
      on "$h" python3 "$here/short-waits.py" capture --out "$waits/capture-h$h.bin" --seconds 8 \
        >"$waits/capture-h$h.out" 2>&1 &
      helpers+=($!)
    done
    on 1 java -jar "$jar" unloaded --protocol homa --server 198.18.0.2:9002 --bind 198.18.0.1 \
      --link-mbps "$LINK_MBPS" --max-message 1000 --samples 50 --warmup 1 --out "$waits/unloaded.csv" \
      >"$waits/unloaded.out" 2>&1 || fail "unloaded homa calls for short-waits.py: $(tail -2 "$waits/unloaded.out")"
    for pid in "${helpers[@]: -2}"; do wait "$pid"; done
    python3 "$here/short-waits.py" analyze "$waits"/capture-h*.bin >"$waits/short-waits.txt" 2>&1
    calls=$(sed -n 's/^nic_to_nic n=\([0-9]*\) .*/\1/p' "$waits/short-waits.txt")
    if ((${calls:-0} >= 100)); then
      pass "short-waits.py saw $calls short calls whole: $(grep '^nic_to_nic' "$waits/short-waits.txt")"
    else
      fail "short-waits.py saw ${calls:-no} short calls of the 150 made: $(tr '\n' ' ' <"$waits/short-waits.txt")"
    fi
  else
    fail "homa echo server for short-waits.py did not start: $(tail -2 "$waits/server.out")"
  fi
  stop_helpers "${helpers[@]}"
  helpers=()
  rm -rf "$waits"
fi

jar="$repo/homa-bench/target/homa-bench.jar"
if [[ -n "${NETLAB_SMOKE_RACK_ONLY:-}" ]]; then
  echo "netlab smoke: NETLAB_SMOKE_RACK_ONLY set: rack checks only"
elif [[ -f "$jar" ]] && command -v java >/dev/null; then
  out=$(mktemp -d)
  if timeout 480 java -jar "$jar" compare --where rack --prefix "$NETLAB_PREFIX-cmp" --hosts 2 \
      --link-mbps "$LINK_MBPS" --workload w4 --max-message 100000 --load 0.1 --duration 3 --warmup 1 \
      --repeats 1 --out "$out" >"$out/compare.log" 2>&1; then
    for protocol in homa tcp; do
      rows=$(awk -F, -v p="$protocol" '$1 == p && $3 > 0' "$out/results.csv" 2>/dev/null | wc -l)
      ((rows > 0)) && pass "compare --where rack: $rows $protocol buckets with results" \
        || fail "compare --where rack: no $protocol rows in results.csv"
    done
    [[ -s "$out/rtt.svg" ]] && pass "compare wrote rtt.svg" || fail "compare wrote no rtt.svg"
    # failed RPCs are a result of the protocol, not of the scripts: shown, not failed on
    grep 'requests sent=' "$out/compare.log" | sed 's/^/netlab smoke: /'
  else
    fail "compare --where rack exited non-zero; its log:"
    tail -20 "$out/compare.log"
  fi
  left=$(ip netns list | grep -c "^$NETLAB_PREFIX-cmp-" || true)
  ((left == 0)) && pass "compare removed its rack" || fail "compare left $left namespaces behind"

  # A shell that started with SIGINT ignored (a background job of a non-interactive shell) hands that on to every
  # child, `set -m` cannot undo it, and a JVM that starts with SIGINT ignored never installs its handler: such a
  # run finishes the whole comparison and fails this check after 60 s (a CI run started with `&`, for example).
  sigign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
  if (( (16#${sigign:-0} & 2) != 0 )); then
    echo "netlab smoke: SKIPPED the Ctrl-C check: SIGINT is ignored in this shell (started in the background?)," \
      "so nothing it starts can receive one"
  else
    # Ctrl-C: a terminal sends SIGINT to the whole foreground process group (the JVM, compare.sh, the rack's JVMs)
    set -m   # the run gets its own process group, as a terminal's foreground job has, and SIGINT is not ignored
    java -jar "$jar" compare --where rack --prefix "$NETLAB_PREFIX-int" --hosts 2 --link-mbps "$LINK_MBPS" \
      --max-message 100000 --load 0.1 --duration 30 --warmup 1 --repeats 1 --out "$out/int" >"$out/int.log" 2>&1 &
    job=$!
    set +m
    for _ in $(seq 150); do grep -q 'running' "$out/int.log" 2>/dev/null && break; sleep 0.2; done
    kill -INT -- "-$job" 2>/dev/null
    status=0
    timeout 60 tail --pid="$job" -f /dev/null || fail "compare still running 60 s after SIGINT"
    wait "$job" || status=$?
    left=$(ip netns list | grep -c "^$NETLAB_PREFIX-int-" || true)
    ((left == 0)) && pass "Ctrl-C during compare --where rack: exit $status, no namespace left" \
      || fail "Ctrl-C during compare left $left namespaces: $(ip netns list | grep "^$NETLAB_PREFIX-int-" | tr '\n' ' ')"
  fi
  rm -rf "$out"
else
  echo "netlab smoke: bench jar not built ($jar): rack checks only"
fi

stop_helpers "${helpers[@]}"
helpers=()
"$here/netlab.sh" down >/dev/null || fail "netlab.sh down"
left=$(ip netns list | grep -c "^$NETLAB_PREFIX-" || true)
((left == 0)) && pass "rack removed" || fail "$left namespaces left behind"

if ((failures)); then
  echo "netlab smoke: $failures check(s) failed"
  exit 1
fi
echo "netlab smoke: all checks passed"
