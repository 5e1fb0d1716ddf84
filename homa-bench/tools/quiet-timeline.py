#!/usr/bin/env python3
"""Where a quiet call's time goes, segment by segment, from a scheduler and syscall trace.

Reads the output of quiet-timeline.sh (OUT/threads.txt and OUT/events.txt: `perf script -F tid,time,event,trace`
of sched:sched_switch and raw_syscalls:sys_enter/sys_exit over QuietRttBenchmark's measured calls) and rebuilds each
call from the caller's hand-off to the client's event loop to the caller running again: when each thread ran,
read and sent. Prints the P50 and P90 of every segment, in microseconds.

A call is found by the caller's write (the eventfd that wakes the client loop); the client loop is the loop that
sends next, the server loop the other one. Syscall numbers are x86-64's. Tracing adds a few microseconds per
event: compare protocols traced the same way, not with untraced figures.
"""
import re
import statistics
import sys

WRITE, FUTEX = 1, 202
SENDS = {1, 20, 44, 46}           # write, writev, sendto, sendmsg
READS = {0, 19, 45, 47, 299}      # read, readv, recvfrom, recvmsg, recvmmsg

SEGMENTS = [
    "caller's hand-off -> client loop running",
    "client loop running -> its send",
    "client send -> server loop running",
    "server loop running -> its read returns",
    "server read -> its send",
    "server send -> client loop running",
    "client loop running -> its read returns",
    "client read -> caller woken (futex)",
    "caller woken -> caller running",
    "total: hand-off -> caller running",
]

EVENT = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+(\S+):\s+(.*)$')


def load(out):
    names = {}
    with open(f"{out}/threads.txt") as f:
        for line in f:
            tid, name = line.split(None, 1)
            names[int(tid)] = name.strip()
    events = []  # (micros, tid, kind, syscall number)
    with open(f"{out}/events.txt") as f:
        for line in f:
            m = EVENT.match(line)
            if not m:
                continue
            tid, micros, name, rest = int(m.group(1)), float(m.group(2)) * 1e6, m.group(3), m.group(4)
            if name == "sched:sched_switch":
                nxt = int(re.search(r'next_pid=(\d+)', rest).group(1))
                if nxt in names:
                    events.append((micros, nxt, "in", None))
            elif tid in names and name.startswith("raw_syscalls:sys_"):
                kind = "enter" if name.endswith("enter") else "exit"
                events.append((micros, tid, kind, int(rest.split()[1])))
    events.sort()
    return names, events


def first(events, i, test):
    while i < len(events):
        if test(events[i]):
            return i
        i += 1
    return None


def calls(names, events, caller, loops):
    i = 0
    while True:
        i = first(events, i, lambda e: e[1] == caller and e[2] == "enter" and e[3] == WRITE)
        if i is None:
            return
        handoff = events[i][0]
        j = first(events, i, lambda e: e[1] in loops and e[2] == "enter" and e[3] in SENDS)
        if j is None:
            return
        client = events[j][1]
        server = next(t for t in loops if t != client)
        client_running = events[first(events, i, lambda e: e[1] == client and e[2] in ("in", "exit"))][0]
        k = first(events, j + 1, lambda e: e[1] == server and e[2] == "exit" and e[3] in READS)
        if k is None:
            return
        server_running = events[first(events, j + 1, lambda e: e[1] == server and e[2] in ("in", "exit"))][0]
        k2 = first(events, k, lambda e: e[1] == server and e[2] == "enter" and e[3] in SENDS)
        m = first(events, k2 or k, lambda e: e[1] == client and e[2] == "exit" and e[3] in READS)
        if k2 is None or m is None:
            return
        back_running = events[first(events, k2, lambda e: e[1] == client and e[2] in ("in", "exit"))][0]
        f = first(events, m, lambda e: e[1] == client and e[2] == "enter" and e[3] == FUTEX)
        c = first(events, f, lambda e: e[1] == caller and e[2] == "in") if f is not None else None
        if c is None:
            return
        t = [handoff, client_running, events[j][0], server_running, events[k][0], events[k2][0], back_running,
             events[m][0], events[f][0], events[c][0]]
        yield [t[n + 1] - t[n] for n in range(9)] + [t[9] - t[0]]
        i = c


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: quiet-timeline.py OUT (the directory quiet-timeline.sh wrote)")
    names, events = load(sys.argv[1])
    callers = [t for t, n in names.items() if n.startswith("io.homa4j.bench") or "jmh-worker" in n]
    loops = [t for t, n in names.items() if n.startswith("homa4j-endpoint") or n.startswith("tcp-")]
    if len(callers) != 1 or len(loops) != 2:
        sys.exit(f"expected one calling thread and two event loops, found {callers} and {loops}")
    rows = list(calls(names, events, callers[0], loops))
    if not rows:
        sys.exit("no complete call in the trace")
    print(f"{len(rows)} calls; microseconds")
    print(f"{'segment':44} {'P50':>7} {'P90':>7}")
    for n, name in enumerate(SEGMENTS):
        values = sorted(r[n] for r in rows)
        print(f"{name:44} {statistics.median(values):7.1f} {values[int(len(values) * 0.9)]:7.1f}")


if __name__ == "__main__":
    main()
