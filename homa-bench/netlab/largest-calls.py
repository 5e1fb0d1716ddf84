#!/usr/bin/env python3
"""Follows the largest bucket's calls of a `compare` run from Homa's runs to TCP's.

usage: largest-calls.py OUT_DIR      (the --out directory of `java -jar homa-bench.jar compare`)

Every client writes largest-calls.csv (arrival,server,length,intended_us,rtt_us). The same seed draws the same
arrivals for both protocols, so (repeat, client, arrival) names one call in both. Prints per repeat: the calls
found in both, the rank correlation of their RTTs, the six slowest Homa calls with TCP's RTT and rank for the same
call, and TCP/Homa on the calls TCP took more than 5 s over against the others. Server indexes are mapped to hosts
as compare.sh and the rack order them (every other host, in host order).
"""
import csv
import statistics
import sys
from pathlib import Path


def load(out: Path, repeat: int):
    calls = {}
    for proto in ("homa", "tcp"):
        for client_dir in sorted((out / f"repeat-{repeat}" / proto).glob("client-h*")):
            client = int(client_dir.name[len("client-h"):])
            file = client_dir / "largest-calls.csv"
            if not file.exists():
                continue
            hosts = None
            for row in csv.DictReader(file.open()):
                if hosts is None:
                    count = len(list((out / f"repeat-{repeat}" / proto).glob("client-h*")))
                    hosts = [h for h in range(1, count + 1) if h != client]
                key = (client, int(row["arrival"]))
                calls.setdefault(key, {})[proto] = (int(row["rtt_us"]), hosts[int(row["server"])],
                                                    int(row["length"]), int(row["intended_us"]))
    return {k: v for k, v in calls.items() if "homa" in v and "tcp" in v}


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0] * len(values)
    for position, i in enumerate(order):
        r[i] = position
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    return cov / (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5


def main(out: Path):
    repeat = 1
    while (out / f"repeat-{repeat}").is_dir():
        calls = load(out, repeat)
        if not calls:
            print(f"repeat {repeat}: no largest-calls.csv with both protocols")
            repeat += 1
            continue
        homa = [v["homa"][0] for v in calls.values()]
        tcp = [v["tcp"][0] for v in calls.values()]
        by_tcp = {k: i + 1 for i, k in enumerate(sorted(calls, key=lambda k: -calls[k]["tcp"][0]))}
        print(f"repeat {repeat}: {len(calls)} calls in both; Spearman(homa, tcp) {spearman(homa, tcp):.2f}")
        for k in sorted(calls, key=lambda k: -calls[k]["homa"][0])[:6]:
            rtt, server, length, intended = calls[k]["homa"]
            print(f"  h{k[0]} -> h{server} {length:>7} B at {intended / 1e6:6.2f} s: homa {rtt / 1e6:6.2f} s,"
                  f" tcp {calls[k]['tcp'][0] / 1e6:6.2f} s (tcp's {by_tcp[k]} slowest of {len(calls)})")
        slow = [v["tcp"][0] / v["homa"][0] for v in calls.values() if v["tcp"][0] > 5_000_000]
        rest = [v["tcp"][0] / v["homa"][0] for v in calls.values() if v["tcp"][0] <= 5_000_000]
        if slow and rest:
            print(f"  tcp/homa median: {statistics.median(slow):.2f} on the {len(slow)} calls TCP took > 5 s over,"
                  f" {statistics.median(rest):.2f} on the other {len(rest)}")
        repeat += 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    main(Path(sys.argv[1]))
