#!/usr/bin/env bash
# rootless.sh <command...>: runs a netlab command without root, as rootless containers do: in a new user namespace
# where this user is mapped to root, with its own mount and network namespaces. The rack's network namespaces are
# created inside it and belong to it, so the rack needs no privilege on the machine, and everything it made is
# gone when the command ends (the namespaces' names live on a tmpfs that only this mount namespace sees).
#
#   rootless.sh bash compare.sh --hosts 4 ...
#   rootless.sh check       exits 0 when this machine allows it (prints why not otherwise)
#
# Needs unprivileged user namespaces (user.max_user_namespaces > 0, and kernel.unprivileged_userns_clone = 1 where
# that sysctl exists) and unshare(1) from util-linux. Inside, threads cannot get real-time priority (that needs
# CAP_SYS_NICE on the machine itself); compare.sh says so once.
set -euo pipefail

die() { echo "rootless.sh: $*" >&2; exit 1; }
(($#)) || { echo "usage: rootless.sh check | <command...>" >&2; exit 2; }
command -v unshare >/dev/null || die "unshare (util-linux) is missing"

# ip netns keeps its names under /var/run/netns (usually /run/netns)
netns_dir="$(readlink -f /var/run 2>/dev/null || echo /run)/netns"
inner='set -e
dir=$1; shift
if [[ -d "$dir" ]]; then
  mount -t tmpfs -o mode=0755 homa-netns "$dir"
else
  mount -t tmpfs -o mode=0755 homa-run "$(dirname "$dir")"   # this namespace only: the machine keeps its own
  mkdir -p "$dir"
fi
export NETLAB_ROOTLESS=1
export PATH="$PATH:/usr/sbin:/sbin"   # ip and tc, which an unprivileged PATH may leave out
exec "$@"'

if [[ "$1" == check ]]; then
  max=$(cat /proc/sys/user/max_user_namespaces 2>/dev/null || echo 0)
  ((max > 0)) || die "user namespaces are disabled here (user.max_user_namespaces = $max)"
  if [[ -r /proc/sys/kernel/unprivileged_userns_clone ]] && [[ "$(cat /proc/sys/kernel/unprivileged_userns_clone)" != 1 ]]; then
    die "unprivileged user namespaces are disabled here (kernel.unprivileged_userns_clone = 0)"
  fi
  out=$(unshare --user --map-root-user --mount --net --fork -- bash -c "$inner" rootless "$netns_dir" \
    bash -c 'ip netns add homa-rootless-probe && ip netns del homa-rootless-probe' 2>&1) ||
    die "a user namespace cannot make network namespaces here: ${out:-unknown reason}"
  exit 0
fi
exec unshare --user --map-root-user --mount --net --fork -- bash -c "$inner" rootless "$netns_dir" "$@"
