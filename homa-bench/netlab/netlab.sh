#!/usr/bin/env bash
# netlab.sh: an emulated rack on one machine, for Homa-vs-TCP runs where the switch has priority queues.
#
#   homa-lab-h1 .. homa-lab-hH   one network namespace per host, eth0 = 198.18.0.<i>/24
#   homa-lab-sw                  the switch: a Linux bridge (br0) over ports p1 .. pH
#
#   host i: eth0 --veth-- p<i> :switch
#
# Every link direction is shaped to the link rate exactly once:
#   host -> switch  at the host's eth0 egress: tbf (a FIFO NIC; tbf also software-segments GSO bursts so the
#                   switch only ever sees MTU-sized packets, as from a real wire)
#   switch -> host  at the switch port p<i> egress: htb with 8 classes, one per Homa priority level, selected
#                   by the DSCP class selector in the TOS byte (level L = DSCP 8*L = TOS L<<5, level 7 served
#                   first), each class with its own finite pfifo (the switch buffer)
# Offloads that would hand the qdiscs multi-packet skbs (tso, gso, udp/gso-list segmentation, gro) are off.
#
# Everything lives inside namespaces named <prefix>-*, so `down` removes all of it (also after a partial `up`)
# without touching the machine's own interfaces, routes or qdiscs.
set -Eeuo pipefail   # -E: the ERR trap of `up` also covers the functions it calls

PREFIX=${NETLAB_PREFIX:-homa-lab}
HOSTS=4
LINK_MBPS=500
BUFFER_PKTS=200          # per priority class, per switch egress port
HOST_QUEUE_PKTS=1000     # host NIC queue (like txqueuelen); per priority class with --host-queues prio
HOST_QUEUES=fifo         # host NIC: one FIFO, or prio: 8 strict-priority queues by DSCP, as the switch ports
MIN_RATE_KBIT=""         # guaranteed rate per priority class; default: 0.2% of the link
BURST_US=500             # shaper bucket depth in microseconds of link time (absorbs late qdisc timers)
SUBNET_PREFIX=198.18.0   # /24; never anything else
FRAME_BYTES=1514         # a full Ethernet frame: the htb quantum and the unit of the queue limits

usage() {
  cat >&2 <<EOF
usage: netlab.sh up     [--hosts H] [--link-mbps R] [--buffer-pkts N] [--host-queue-pkts N] [--burst-us U]
                        [--min-rate-kbit K] [--host-queues fifo|prio] [--prefix P]
       netlab.sh down   [--prefix P]
       netlab.sh status [--prefix P]
       netlab.sh exec <host-index> <command...>   run a command inside host <i> (1-based)
  defaults: --hosts $HOSTS --link-mbps $LINK_MBPS --buffer-pkts $BUFFER_PKTS --host-queue-pkts $HOST_QUEUE_PKTS
            --burst-us $BURST_US --min-rate-kbit <0.2% of link> --host-queues $HOST_QUEUES
            --prefix $PREFIX (also NETLAB_PREFIX)
  host i is $SUBNET_PREFIX.i in namespace <prefix>-h<i>; the switch is <prefix>-sw
EOF
  exit 2
}

die() { echo "netlab.sh: $*" >&2; exit 1; }

is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }

parse_options() {
  while (($#)); do
    case "$1" in
      --hosts) HOSTS=${2:-}; shift 2 ;;
      --link-mbps) LINK_MBPS=${2:-}; shift 2 ;;
      --buffer-pkts) BUFFER_PKTS=${2:-}; shift 2 ;;
      --host-queue-pkts) HOST_QUEUE_PKTS=${2:-}; shift 2 ;;
      --min-rate-kbit) MIN_RATE_KBIT=${2:-}; shift 2 ;;
      --burst-us) BURST_US=${2:-}; shift 2 ;;
      --host-queues) HOST_QUEUES=${2:-}; shift 2 ;;
      --prefix) PREFIX=${2:-}; shift 2 ;;
      -h|--help) usage ;;
      *) echo "netlab.sh: unknown option '$1'" >&2; usage ;;
    esac
  done
  is_uint "$HOSTS" && ((HOSTS >= 2 && HOSTS <= 64)) || die "--hosts must be 2..64"
  is_uint "$LINK_MBPS" && ((LINK_MBPS >= 1 && LINK_MBPS <= 100000)) || die "--link-mbps must be 1..100000"
  is_uint "$BUFFER_PKTS" && ((BUFFER_PKTS >= 1)) || die "--buffer-pkts must be >= 1"
  is_uint "$HOST_QUEUE_PKTS" && ((HOST_QUEUE_PKTS >= 1)) || die "--host-queue-pkts must be >= 1"
  [[ "$HOST_QUEUES" == fifo || "$HOST_QUEUES" == prio ]] || die "--host-queues must be fifo or prio"
  [[ "$PREFIX" =~ ^homa-[a-z0-9-]+$ ]] || die "--prefix must start with 'homa-' (lowercase, digits, '-')"
  if [[ -z "$MIN_RATE_KBIT" ]]; then
    MIN_RATE_KBIT=$((LINK_MBPS * 2))   # 0.2% of the link
    ((MIN_RATE_KBIT >= 8)) || MIN_RATE_KBIT=8
  fi
  is_uint "$MIN_RATE_KBIT" && ((MIN_RATE_KBIT >= 1)) || die "--min-rate-kbit must be >= 1"
  is_uint "$BURST_US" || die "--burst-us must be a number"
  BURST_BYTES=$((LINK_MBPS * BURST_US / 8))
  ((BURST_BYTES >= 2 * FRAME_BYTES)) || BURST_BYTES=$((2 * FRAME_BYTES))   # at least two full frames
}

require_tools() {
  ((EUID == 0)) || die "must run as root, or without root through rootless.sh (network namespaces and qdiscs)"
  command -v ip >/dev/null || die "'ip' (iproute2) is missing"
  command -v tc >/dev/null || die "'tc' (iproute2) is missing"
}

switch_ns() { echo "$PREFIX-sw"; }
host_ns() { echo "$PREFIX-h$1"; }

# Our namespaces, found by name only (nothing else on the machine is looked at).
our_namespaces() {
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${PREFIX}-(sw|h[0-9]+)$" || true
}

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# Offloads that would let a qdisc see one skb for many wire packets. Without ethtool the GSO/TSO size is
# clamped through iproute2 instead (one segment per skb), which has the same effect for the qdiscs.
disable_offloads() {
  local ns=$1 dev=$2
  if command -v ethtool >/dev/null; then
    in_ns "$ns" ethtool -K "$dev" tso off gso off gro off tx-udp-segmentation off tx-gso-list off \
      >/dev/null 2>&1 || in_ns "$ns" ethtool -K "$dev" tso off gso off gro off >/dev/null
  else
    ip -n "$ns" link set dev "$dev" gso_max_segs 1 2>/dev/null || true
  fi
}

quiet_namespace() {
  local ns=$1
  ip -n "$ns" link set lo up
  # no IPv6: router solicitations and DAD would only add noise to the queues
  in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
}

# Switch egress port toward a host: 8 strict-priority htb classes (Homa level L -> htb prio 7-L, 0 = first),
# each with a small guaranteed rate and ceil = link rate, each with its own pfifo.
shape_switch_port() {
  local ns=$1 dev=$2
  local link="${LINK_MBPS}mbit" burst=$BURST_BYTES
  tc -n "$ns" qdisc replace dev "$dev" root handle 1: htb default 10
  tc -n "$ns" class add dev "$dev" parent 1: classid 1:1 htb rate "$link" ceil "$link" \
    burst "$burst" cburst "$burst" quantum "$FRAME_BYTES"
  local level
  for level in 0 1 2 3 4 5 6 7; do
    tc -n "$ns" class add dev "$dev" parent 1:1 classid "1:1$level" htb rate "${MIN_RATE_KBIT}kbit" ceil "$link" \
      prio $((7 - level)) burst "$burst" cburst "$burst" quantum "$FRAME_BYTES"
    tc -n "$ns" qdisc add dev "$dev" parent "1:1$level" handle "1$level:" pfifo limit "$BUFFER_PKTS"
    tc -n "$ns" filter add dev "$dev" parent 1: protocol ip prio 1 u32 \
      match ip tos $((level << 5)) 0xe0 flowid "1:1$level"
  done
  # ARP must never starve behind bulk data at level 0 (it would stall every flow to that host)
  tc -n "$ns" filter add dev "$dev" parent 1: protocol arp prio 2 u32 match u32 0 0 flowid 1:17
}

# Host egress (the NIC) at link rate. tbf rather than htb because tbf splits GSO skbs that are larger than its
# burst into wire-sized packets, so a sender's 64 KB UDP-GSO or TCP burst leaves at link rate.
# fifo: tbf's own FIFO. prio: under the tbf, 8 strict-priority queues selected by the DSCP class selector as at
# the switch ports (an htb that never limits, only orders: every class's rate is far above the link), like a NIC
# with one transmit queue per 802.1p priority. Homa's pacer may keep several packets queued in the NIC to absorb
# the event loop's timer lateness (8 full packets: 3.8 ms at 25 Mbit/s, where the Linux module's pacer keeps
# about 5 us); with one FIFO every GRANT and every short message a host sends waits behind them.
# TCP marks nothing (level 0), so to TCP both are the same FIFO.
shape_host_nic() {
  local ns=$1 dev=$2
  if [[ "$HOST_QUEUES" == fifo ]]; then
    tc -n "$ns" qdisc replace dev "$dev" root handle 1: tbf rate "${LINK_MBPS}mbit" burst "$BURST_BYTES" \
      limit $((HOST_QUEUE_PKTS * FRAME_BYTES))
    return
  fi
  tc -n "$ns" qdisc replace dev "$dev" root handle 1: tbf rate "${LINK_MBPS}mbit" burst "$BURST_BYTES" \
    limit $((HOST_QUEUE_PKTS * FRAME_BYTES))
  local order_only=$((LINK_MBPS * 100))mbit level
  tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 2: htb default 20
  tc -n "$ns" class add dev "$dev" parent 2: classid 2:1 htb rate "$order_only" ceil "$order_only" quantum "$FRAME_BYTES"
  for level in 0 1 2 3 4 5 6 7; do
    tc -n "$ns" class add dev "$dev" parent 2:1 classid "2:2$level" htb rate "$order_only" ceil "$order_only" \
      prio $((7 - level)) quantum "$FRAME_BYTES"
    tc -n "$ns" qdisc add dev "$dev" parent "2:2$level" handle "2$level:" pfifo limit "$HOST_QUEUE_PKTS"
    tc -n "$ns" filter add dev "$dev" parent 2: protocol ip prio 1 u32 \
      match ip tos $((level << 5)) 0xe0 flowid "2:2$level"
  done
}

cmd_up() {
  parse_options "$@"
  require_tools
  if [[ -n "$(our_namespaces)" ]]; then
    echo "netlab.sh: a rack with prefix $PREFIX exists; rebuilding it" >&2
    cmd_down_quiet
  fi
  trap 'echo "netlab.sh: up failed; removing what was made" >&2; cmd_down_quiet' ERR
  local sw i h
  sw=$(switch_ns)
  ip netns add "$sw"
  quiet_namespace "$sw"
  ip -n "$sw" link add name br0 type bridge stp_state 0 forward_delay 0
  ip -n "$sw" link set br0 up
  for ((i = 1; i <= HOSTS; i++)); do
    h=$(host_ns "$i")
    ip netns add "$h"
    quiet_namespace "$h"
    # created inside the switch namespace, the peer end goes straight into the host: nothing in the root ns
    ip -n "$sw" link add name "p$i" type veth peer name eth0 netns "$h"
    ip -n "$sw" link set "p$i" master br0
    disable_offloads "$sw" "p$i"
    disable_offloads "$h" eth0
    shape_switch_port "$sw" "p$i"
    shape_host_nic "$h" eth0
    ip -n "$h" addr add "$SUBNET_PREFIX.$i/24" dev eth0
    ip -n "$sw" link set "p$i" up
    ip -n "$h" link set eth0 up
  done
  # static neighbours: no ARP traffic or ARP timeouts during runs
  local j mac
  for ((j = 1; j <= HOSTS; j++)); do
    mac=$(ip -n "$(host_ns "$j")" -o link show dev eth0 | grep -o 'link/ether [0-9a-f:]*' | awk '{print $2}')
    for ((i = 1; i <= HOSTS; i++)); do
      ((i == j)) && continue
      ip -n "$(host_ns "$i")" neigh replace "$SUBNET_PREFIX.$j" lladdr "$mac" dev eth0 nud permanent
    done
  done
  trap - ERR
  echo "netlab: up: $HOSTS hosts ($SUBNET_PREFIX.1-$HOSTS in $PREFIX-h1..h$HOSTS), switch $sw," \
    "link ${LINK_MBPS} Mbit/s, 8 priority classes x pfifo $BUFFER_PKTS pkts per switch port," \
    "host NIC $([[ "$HOST_QUEUES" == fifo ]] && echo "FIFO $HOST_QUEUE_PKTS pkts" ||
      echo "8 priority queues x $HOST_QUEUE_PKTS pkts")"
}

cmd_down_quiet() {
  local ns pid
  for ns in $(our_namespaces); do
    # processes still running inside the rack were started in it (bench JVMs, probes): end them by pid
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill "$pid" 2>/dev/null || true
    done
  done
  for ns in $(our_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
    done
    ip netns del "$ns" 2>/dev/null || true
  done
}

cmd_down() {
  parse_options "$@"
  require_tools
  local before
  before=$(our_namespaces | wc -l)
  cmd_down_quiet
  [[ -z "$(our_namespaces)" ]] || die "could not remove: $(our_namespaces | tr '\n' ' ')"
  echo "netlab: down: removed $before namespaces with prefix $PREFIX"
}

cmd_status() {
  parse_options "$@"
  require_tools
  local namespaces sw
  namespaces=$(our_namespaces)
  if [[ -z "$namespaces" ]]; then
    echo "netlab: down (no namespaces with prefix $PREFIX)"
    return 3
  fi
  sw=$(switch_ns)
  echo "netlab: up: namespaces: $(echo "$namespaces" | tr '\n' ' ')"
  local ns
  for ns in $namespaces; do
    [[ "$ns" == "$sw" ]] && continue
    echo "== $ns: $(ip -n "$ns" -o -4 addr show dev eth0 | awk '{print $4}')"
    tc -n "$ns" -s qdisc show dev eth0 | sed -n '1,3p' | sed 's/^/   /'
  done
  echo "== $sw: per switch port, priority level L: sent packets/dropped/backlog packets"
  local dev
  for dev in $(ip -n "$sw" -o link show type veth | awk -F': ' '{print $2}' | cut -d@ -f1 | sort -V); do
    tc -n "$sw" -s class show dev "$dev" | awk -v dev="$dev" '
      /^class htb 1:1[0-7] / { level = substr($3, 4) }
      /Sent/ && level != "" { sent[level] = $4; d = $7; gsub(",", "", d); dropped[level] = d }
      /backlog/ && level != "" { backlog[level] = $3; sub("p$", "", backlog[level]); level = "" }
      END {
        line = "   " dev ":"
        for (l = 7; l >= 0; l--) line = line sprintf(" L%d %s/%s/%s", l, sent[l], dropped[l], backlog[l])
        print line
      }'
  done
}

cmd_exec() {
  (($# >= 2)) || usage
  require_tools
  local i=$1; shift
  is_uint "$i" || die "host index must be a number"
  ip netns exec "$(host_ns "$i")" "$@"
}

main() {
  (($#)) || usage
  local cmd=$1; shift
  case "$cmd" in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    exec) cmd_exec "$@" ;;
    *) usage ;;
  esac
}

main "$@"
