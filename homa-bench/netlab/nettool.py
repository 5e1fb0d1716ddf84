#!/usr/bin/env python3
"""Small traffic tools for checking the netlab rack (no dependencies beyond the standard library).

  udp-echo  --port P --duration S                 echo every datagram back to its sender, until S seconds passed
  probe     --to ADDR:PORT --tos T --count N ...  UDP ping-pong with the IP TOS byte set; prints RTT percentiles
  tcp-sink  --port P --duration S                 accept TCP connections, discard data, report the received rate
  tcp-blast --to ADDR:PORT --duration S [--tos T] send bulk TCP data as fast as the network takes it

Every tool stops by itself (duration or count); results go to stdout as one `key=value ...` line.
Addresses are checked to be inside 198.18.0.0/15, the only range the rack uses.
"""
import argparse
import ipaddress
import select
import socket
import struct
import sys
import threading
import time

LAB_NET = ipaddress.ip_network("198.18.0.0/15")


def lab_endpoint(text):
    host, _, port = text.rpartition(":")
    if ipaddress.ip_address(host) not in LAB_NET:
        raise argparse.ArgumentTypeError(f"{host} is outside {LAB_NET}; the rack uses nothing else")
    return host, int(port)


def percentile(sorted_values, fraction):
    if not sorted_values:
        return float("nan")
    index = min(len(sorted_values) - 1, max(0, int(round(fraction * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def udp_echo(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.tos is not None:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.tos)
    sock.bind((args.bind, args.port))
    deadline = time.monotonic() + args.duration
    echoed = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([sock], [], [], min(left, 0.5))
        if not ready:
            continue
        data, peer = sock.recvfrom(65535)
        if args.reflect_tos and len(data) >= 9:
            # the probe asks for its reply at its own priority level
            tos = data[8]
            sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
        sock.sendto(data, peer)
        echoed += 1
    print(f"udp-echo echoed={echoed}", flush=True)


def probe(args):
    host, port = args.to
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.tos)
    sock.connect((host, port))
    size = max(args.size, 9)
    padding = b"\0" * (size - 9)
    rtts = []
    lost = 0
    next_send = time.monotonic()
    for seq in range(args.count):
        now = time.monotonic()
        if now < next_send:
            time.sleep(next_send - now)
        next_send += args.interval_ms / 1000.0
        sent_at = time.perf_counter_ns()
        try:
            sock.send(struct.pack("!QB", seq, args.tos) + padding)
        except ConnectionRefusedError:
            pass   # an ICMP port-unreachable for an earlier probe; this one still counts
        while True:
            ready, _, _ = select.select([sock], [], [], args.timeout_ms / 1000.0)
            if not ready:
                lost += 1
                break
            try:
                data = sock.recv(65535)
            except ConnectionRefusedError:
                lost += 1   # nobody listens (yet): counted as lost, not a crash
                break
            if len(data) >= 8 and struct.unpack("!Q", data[:8])[0] == seq:
                rtts.append((time.perf_counter_ns() - sent_at) / 1000.0)
                break
            # a late reply to an earlier probe: ignore it and keep waiting for this one
    rtts.sort()
    print(
        f"probe tos=0x{args.tos:02x} size={size} count={args.count} lost={lost} "
        f"min_us={rtts[0] if rtts else float('nan'):.0f} p50_us={percentile(rtts, 0.50):.0f} "
        f"p90_us={percentile(rtts, 0.90):.0f} p99_us={percentile(rtts, 0.99):.0f} "
        f"max_us={rtts[-1] if rtts else float('nan'):.0f}",
        flush=True,
    )
    if args.fail_if_lost_over is not None and lost > args.fail_if_lost_over:
        sys.exit(1)


def tcp_sink(args):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind((args.bind, args.port))
    server.listen(16)
    deadline = time.monotonic() + args.duration
    lock = threading.Lock()
    totals = {"bytes": 0, "first": None, "last": None, "connections": 0}

    def drain(conn):
        conn.settimeout(0.5)
        buffer = bytearray(1 << 18)   # reused: allocating per recv would cost more CPU than the network
        with conn:
            while time.monotonic() < deadline:
                try:
                    received = conn.recv_into(buffer)
                except socket.timeout:
                    continue
                except ConnectionError:
                    break
                if not received:
                    break
                now = time.monotonic()
                with lock:
                    if totals["first"] is None:
                        totals["first"] = now
                    totals["last"] = now
                    totals["bytes"] += received

    threads = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        ready, _, _ = select.select([server], [], [], min(left, 0.5))
        if ready:
            conn, _ = server.accept()
            totals["connections"] += 1
            thread = threading.Thread(target=drain, args=(conn,), daemon=True)
            thread.start()
            threads.append(thread)
    for thread in threads:
        thread.join(timeout=1.0)
    span = (totals["last"] - totals["first"]) if totals["first"] is not None else 0.0
    mbps = totals["bytes"] * 8 / span / 1e6 if span > 0 else 0.0
    print(f"tcp-sink connections={totals['connections']} bytes={totals['bytes']} seconds={span:.2f} "
          f"mbps={mbps:.1f}", flush=True)


def tcp_blast(args):
    host, port = args.to
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if args.tos is not None:
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, args.tos)
    sock.settimeout(2.0)
    sock.connect((host, port))
    chunk = b"\xa5" * (1 << 16)
    deadline = time.monotonic() + args.duration
    sent = 0
    started = time.monotonic()
    try:
        while time.monotonic() < deadline:
            try:
                sent += sock.send(chunk)
            except socket.timeout:
                continue
            except ConnectionError:
                break   # the sink stopped first
    finally:
        sock.close()
    elapsed = time.monotonic() - started
    print(f"tcp-blast bytes={sent} seconds={elapsed:.2f} mbps={sent * 8 / elapsed / 1e6:.1f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    echo = sub.add_parser("udp-echo")
    echo.add_argument("--bind", default="0.0.0.0")
    echo.add_argument("--port", type=int, required=True)
    echo.add_argument("--duration", type=float, required=True)
    echo.add_argument("--tos", type=lambda s: int(s, 0))
    echo.add_argument("--reflect-tos", action="store_true", help="reply with the TOS the probe carries")
    echo.set_defaults(run=udp_echo)

    pr = sub.add_parser("probe")
    pr.add_argument("--to", type=lab_endpoint, required=True)
    pr.add_argument("--tos", type=lambda s: int(s, 0), default=0)
    pr.add_argument("--count", type=int, default=1000)
    pr.add_argument("--interval-ms", type=float, default=2.0)
    pr.add_argument("--size", type=int, default=64)
    pr.add_argument("--timeout-ms", type=float, default=200.0)
    pr.add_argument("--fail-if-lost-over", type=int)
    pr.set_defaults(run=probe)

    sink = sub.add_parser("tcp-sink")
    sink.add_argument("--bind", default="0.0.0.0")
    sink.add_argument("--port", type=int, required=True)
    sink.add_argument("--duration", type=float, required=True)
    sink.set_defaults(run=tcp_sink)

    blast = sub.add_parser("tcp-blast")
    blast.add_argument("--to", type=lab_endpoint, required=True)
    blast.add_argument("--duration", type=float, required=True)
    blast.add_argument("--tos", type=lambda s: int(s, 0))
    blast.set_defaults(run=tcp_blast)

    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
