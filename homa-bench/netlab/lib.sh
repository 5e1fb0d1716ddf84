# shellcheck shell=bash
# Shared by the netlab scripts (sourced, not run). Needs PREFIX or NETLAB_PREFIX.

# on <host-index> <command...>: run a command inside rack host <i>
on() { local i=$1; shift; ip netns exec "${PREFIX:-${NETLAB_PREFIX:-homa-lab}}-h$i" "$@"; }

# wait_listening <host-index> udp|tcp <port>: polls the host's sockets until one is bound there (max 5 s)
wait_listening() {
  local flag=-Hlun _
  [[ "$2" == tcp ]] && flag=-Hltn
  for _ in $(seq 50); do
    [[ -n "$(on "$1" ss "$flag" "sport = :$3")" ]] && return 0
    sleep 0.1
  done
  return 1
}

# stop_helpers <pid...>: end helper processes this script started, and reap them quietly
stop_helpers() {
  local pid
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}
