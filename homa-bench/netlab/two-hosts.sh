#!/usr/bin/env bash
# two-hosts.sh: runs docs/benchmarking.md's "Two hosts" recipe exactly as written, host A and host B being two
# network namespaces of a 2-host netlab rack (100 Mbit/s), shortened for CI: every `--duration N` becomes
# `--duration 3` and every `--load-mbps M` becomes `--load-mbps 5`; nothing else is changed. Lines ending in `&`
# start in the background (the servers), `kill %1 %2` sends SIGTERM to them, every other line runs to completion.
# Fails (non-zero) when a command fails, a server does not exit 0 after SIGTERM, a client's summary line reports
# failed calls or its log a failure, or the merged results lack a protocol. Skips (exit 0, with the reason) where
# the rack cannot be built. Needs the bench jar (mvn package).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export NETLAB_PREFIX=homa-recipe-$$
# shellcheck source=lib.sh
source "$here/lib.sh"

skip() { echo "two-hosts recipe: SKIPPED: $*"; exit 0; }
fail() { echo "two-hosts recipe: FAIL: $*"; failures=$((failures + 1)); }
((EUID == 0)) || skip "not root (the two hosts are network namespaces)"
for tool in ip tc java; do command -v "$tool" >/dev/null || skip "'$tool' is missing"; done
[[ -f "$repo/homa-bench/target/homa-bench.jar" ]] || skip "bench jar not built (mvn -B -q package -DskipTests)"
probe_ns="$NETLAB_PREFIX-probe"
ip netns add "$probe_ns" 2>/dev/null || skip "cannot create network namespaces here"
ip netns del "$probe_ns"

# The recipe: the first fenced block after the "## Two hosts" heading.
recipe=$(awk '/^## Two hosts/ { section = 1 } section && /^```/ { if (inside) exit; inside = 1; next }
  inside { print }' "$repo/docs/benchmarking.md")
[[ -n "$recipe" ]] || { echo "two-hosts recipe: FAIL: no recipe block in docs/benchmarking.md"; exit 1; }

failures=0
work=$(mktemp -d)
ln -s "$repo/homa-bench" "$work/homa-bench"   # the recipe runs from a clone's directory
servers=()
cleanup() {
  stop_helpers "${servers[@]}"
  "$here/netlab.sh" down >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
"$here/netlab.sh" up --hosts 2 --link-mbps 100 >/dev/null || { echo "two-hosts recipe: FAIL: netlab.sh up"; exit 1; }

host=""
n=0
while IFS= read -r line; do
  case "$line" in
    "# host A"*) host=1; continue ;;
    "# host B"*) host=2; continue ;;
    "#"*|"") continue ;;
  esac
  [[ -n "$host" ]] || { fail "a command before any '# host' line: $line"; break; }
  n=$((n + 1))
  cmd=$(sed -E 's/--duration [0-9.]+/--duration 3/; s/--load-mbps [0-9.]+/--load-mbps 5/' <<<"$line")
  echo "two-hosts recipe: host $([[ $host == 1 ]] && echo A || echo B): $cmd"
  if [[ "$cmd" =~ ^kill\ (%[0-9]+\ ?)+$ ]]; then
    for job in ${cmd#kill }; do
      pid=${servers[${job#%} - 1]:-}
      [[ -n "$pid" ]] || { fail "$job: no such background command"; continue; }
      kill -TERM "$pid"
      status=0
      wait "$pid" || status=$?
      ((status == 0)) && echo "two-hosts recipe: ok: $job exited 0 after SIGTERM" \
        || { fail "$job exited $status after SIGTERM:"; tail -5 "$work/bg-${job#%}.err"; }
    done
    servers=()
  elif [[ "$cmd" == *" &" ]]; then
    i=$((${#servers[@]} + 1))
    # exec: the background pid is the JVM's own, so SIGTERM reaches it
    ip netns exec "$NETLAB_PREFIX-h$host" bash -c "cd '$work' && exec ${cmd% &}" \
      >"$work/bg-$i.out" 2>"$work/bg-$i.err" &
    servers+=($!)
    for _ in $(seq 150); do grep -q 'listening=' "$work/bg-$i.out" 2>/dev/null && break; sleep 0.2; done
    grep -q 'listening=' "$work/bg-$i.out" || { fail "background command $i never listened:"; tail -5 "$work/bg-$i.err"; }
  else
    if ! ip netns exec "$NETLAB_PREFIX-h$host" bash -c "cd '$work' && $cmd" >"$work/fg-$n.out" 2>"$work/fg-$n.err"; then
      fail "exit $? from: $cmd"
      tail -5 "$work/fg-$n.err"
    fi
    grep -h 'requests sent=' "$work/fg-$n.out" | sed 's/^/two-hosts recipe:   /'
    if grep -q 'requests sent=' "$work/fg-$n.out"; then
      grep -q ' failed=0 ' "$work/fg-$n.out" || fail "calls failed: $(grep 'requests sent=' "$work/fg-$n.out")"
      ! grep -q 'first failure' "$work/fg-$n.err" || fail "a failure reported: $(grep 'first failure' "$work/fg-$n.err")"
    fi
  fi
done <<<"$recipe"

merged=$(grep -o -- '--out [^ ]*' <<<"$(grep ' merge ' <<<"$recipe")" | awk '{print $2}')
if [[ -n "$merged" && -f "$work/$merged/results.csv" ]]; then
  for protocol in homa tcp; do
    calls=$(awk -F, -v p="$protocol" '$1 == p { n += $3 } END { print n + 0 }' "$work/$merged/results.csv")
    ((calls > 0)) && echo "two-hosts recipe: ok: $calls $protocol calls in $merged/results.csv" \
      || fail "no $protocol calls in $merged/results.csv"
  done
  [[ -s "$work/$merged/rtt.svg" ]] || fail "no $merged/rtt.svg"
else
  fail "the recipe's merge wrote no results.csv"
fi
((n >= 5)) || fail "only $n commands in the recipe"
if ((failures)); then
  echo "two-hosts recipe: $failures check(s) failed"
  exit 1
fi
echo "two-hosts recipe: all $n commands ran as written"
