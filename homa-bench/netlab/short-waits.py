#!/usr/bin/env python3
"""Where a short Homa message waits on the emulated rack, from packet timestamps taken at every host's NIC.

  capture --out FILE --seconds S [--delay D]   run inside one host's namespace: records the Homa packets its
                                               eth0 sends and receives for S seconds (after D seconds)
  analyze FILE...                              the captures of all hosts (named ...-h<i>...): per short call,
                                               where its time went between the two hosts' NICs

Capture: a TPACKET_V3 ring on an AF_PACKET socket with a classic BPF filter that keeps UDP over IPv4 only and
truncates each packet to its headers (96 bytes). The kernel stamps every packet as it crosses the device: an
outgoing one after the host's qdisc (the emulated NIC queue), an incoming one as the device hands it up. The
ring is drained when a block fills or every 200 ms, so the capture wakes up a few times a second rather than
once per packet, and the raw blocks go to FILE unparsed (parsing waits for `analyze`, after the run).

Analyze: a call is short when its request is at most --short bytes (default 1000, the README's bucket) and both
messages fit in one packet. For each, from the client's and the server's timestamps (one clock: every namespace
shares the machine's):
  request wire    client NIC out -> server NIC in      the switch: its queue and two serializations
  server host     server NIC in -> response NIC out    wake-up, engine, handler, and the wait in the server's NIC
  response wire   server NIC out -> client NIC in
  NIC to NIC      client NIC out -> client NIC in      the call's RTT less the client host's own part
What is left of the RTT a client records (its send lag, its event loop, the wait in its own NIC) is the RTT less
NIC to NIC. Lines: `key=value` percentiles in microseconds.
"""
import argparse
import ctypes
import mmap
import re
import select
import socket
import struct
import sys
import time
from collections import defaultdict

from nettool import percentile  # the rack's percentile rule (nearest rank), as the probes report theirs

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_RX_RING = 5
PACKET_VERSION = 10
TPACKET_V3 = 2
TP_STATUS_USER = 1
TP_STATUS_KERNEL = 0
SO_ATTACH_FILTER = 26
PACKET_OUTGOING = 4
BLOCK_BYTES = 1 << 18
BLOCKS = 128   # a block is handed over when full or after RETIRE_MS: 128 of them cover seconds of a stalled reader
FRAME_BYTES = 256
RETIRE_MS = 200
SNAP_BYTES = 96

# Homa's common header (homa-core wire.CommonHeader) and DATA header (wire.DataHeader), big-endian
HOMA_MAGIC = 0x484D
DATA_TYPE = 0x10
DATA_HEADER_BYTES = 40


def udp_headers_filter():
    """Classic BPF: IPv4 (ethertype 0x0800) carrying UDP (protocol 17) -> keep SNAP_BYTES; anything else -> drop."""
    program = [
        (0x28, 0, 0, 12),          # ldh [12]          ethertype
        (0x15, 0, 3, 0x0800),      # jeq #IPv4, next, drop
        (0x30, 0, 0, 23),          # ldb [23]          IP protocol
        (0x15, 0, 1, 17),          # jeq #UDP, next, drop
        (0x06, 0, 0, SNAP_BYTES),  # ret #SNAP_BYTES
        (0x06, 0, 0, 0),           # drop: ret #0
    ]
    raw = b"".join(struct.pack("=HBBI", *insn) for insn in program)
    filters = ctypes.create_string_buffer(raw)
    fprog = struct.pack("HL", len(program), ctypes.addressof(filters))
    return fprog, filters  # the caller keeps `filters` alive while the socket attaches it


def capture(args):
    if args.delay > 0:
        time.sleep(args.delay)  # the socket opens after it: nothing before the window is kept (or dropped)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    fprog, keep_alive = udp_headers_filter()
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    sock.setsockopt(SOL_PACKET, PACKET_VERSION, TPACKET_V3)
    frames = BLOCK_BYTES // FRAME_BYTES * BLOCKS
    sock.setsockopt(SOL_PACKET, PACKET_RX_RING,
                    struct.pack("IIIIIII", BLOCK_BYTES, BLOCKS, FRAME_BYTES, frames, RETIRE_MS, 0, 0))
    ring = mmap.mmap(sock.fileno(), BLOCK_BYTES * BLOCKS, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    del keep_alive
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN | select.POLLERR)
    end = time.monotonic() + args.seconds
    block = 0
    written = 0
    with open(args.out, "wb") as out:
        while time.monotonic() < end:
            base = block * BLOCK_BYTES
            status, = struct.unpack_from("I", ring, base + 8)
            if not status & TP_STATUS_USER:
                poller.poll(RETIRE_MS * 2)
                continue
            used, = struct.unpack_from("I", ring, base + 20)
            out.write(ring[base:base + used])
            written += 1
            struct.pack_into("I", ring, base + 8, TP_STATUS_KERNEL)
            block = (block + 1) % BLOCKS
    stats = sock.getsockopt(SOL_PACKET, 6, 12)  # PACKET_STATISTICS: tp_packets, tp_drops, tp_freeze_q_cnt
    packets, drops, _ = struct.unpack("III", stats)
    print(f"capture={args.out} blocks={written} packets={packets} ring_drops={drops}")
    return 0 if drops == 0 else 1


def homa_packets(path):
    """Yields (seconds, outgoing, level, type, rpc_id, message_length, offset) for each Homa packet in a capture."""
    data = open(path, "rb").read()
    at = 0
    while at + 48 <= len(data):
        num_packets, first, used = struct.unpack_from("III", data, at + 12)
        if used < 48 or at + used > len(data):
            break
        packet = at + first
        for _ in range(num_packets):
            next_offset, sec, nsec, snaplen, _, _, mac = struct.unpack_from("IIIIIIH", data, packet)
            outgoing = data[packet + 48 + 10] == PACKET_OUTGOING
            frame = packet + mac
            ip = frame + 14
            ihl = (data[ip] & 0x0F) * 4
            homa = ip + ihl + 8
            if snaplen >= homa - frame + 24 and data[ip + 9] == 17 and \
                    struct.unpack_from(">H", data, homa)[0] == HOMA_MAGIC:
                ptype = data[homa + 3]
                rpc_id, = struct.unpack_from(">Q", data, homa + 4)
                length, offset = struct.unpack_from(">II", data, homa + 12)
                yield sec + nsec * 1e-9, outgoing, data[ip + 1] >> 5, ptype, rpc_id, length, offset
            if next_offset == 0:
                break
            packet += next_offset
        at += used


def percentiles(values):
    values = sorted(values)
    if not values:
        return "n=0"
    return (f"n={len(values)} " + " ".join(f"p{round(p * 100)}={percentile(values, p):.0f}"
                                           for p in (0.10, 0.50, 0.90, 0.99))
            + f" max={values[-1]:.0f}")


def analyze(args):
    first_seen = {}          # (host, outgoing, rpc_id, offset) -> first timestamp of a DATA packet
    lengths = {}
    for path in args.files:
        match = re.search(r"h(\d+)", path.rsplit("/", 1)[-1])
        if not match:
            print(f"short-waits.py: cannot tell the host of {path} (name it ...-h<i>...)", file=sys.stderr)
            return 2
        host = int(match.group(1))
        for seconds, outgoing, _, ptype, rpc_id, length, offset in homa_packets(path):
            if ptype != DATA_TYPE:
                continue
            key = (host, outgoing, rpc_id, offset)
            if key not in first_seen:
                first_seen[key] = seconds
            lengths[rpc_id] = length
    received_by = defaultdict(list)
    for host, outgoing, rpc_id, offset in first_seen:
        if not outgoing and offset == 0:
            received_by[rpc_id].append(host)
    parts = defaultdict(list)
    one_packet = args.mtu_payload
    for (client, outgoing, request_id, offset), sent in first_seen.items():
        # client ids are even; the server's packets carry id ^ 1
        if not outgoing or offset != 0 or request_id % 2 or lengths[request_id] > args.short:
            continue
        response_id = request_id ^ 1
        if lengths[request_id] > one_packet or lengths.get(response_id, one_packet + 1) > one_packet:
            continue
        servers = [h for h in received_by.get(request_id, []) if h != client]
        if len(servers) != 1:
            continue
        server = servers[0]
        at_server = first_seen[(server, False, request_id, 0)]
        answered = first_seen.get((server, True, response_id, 0))
        back = first_seen.get((client, False, response_id, 0))
        if answered is None or back is None:
            continue
        parts["request_wire"].append((at_server - sent) * 1e6)
        parts["server_host"].append((answered - at_server) * 1e6)
        parts["response_wire"].append((back - answered) * 1e6)
        parts["nic_to_nic"].append((back - sent) * 1e6)
    if not parts:
        print("short-waits.py: no short call was seen whole in these captures", file=sys.stderr)
        return 1
    print(f"short calls (request <= {args.short} B, one packet each way), microseconds:")
    for name in ("request_wire", "server_host", "response_wire", "nic_to_nic"):
        print(f"{name} {percentiles(parts[name])}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    cap = sub.add_parser("capture")
    cap.add_argument("--out", required=True)
    cap.add_argument("--seconds", type=float, required=True)
    cap.add_argument("--delay", type=float, default=0.0)
    ana = sub.add_parser("analyze")
    ana.add_argument("files", nargs="+")
    ana.add_argument("--short", type=int, default=1000, help="longest request counted as short, bytes")
    ana.add_argument("--mtu-payload", type=int, default=1432, help="message bytes one DATA packet carries")
    args = parser.parse_args()
    if args.command == "capture":
        if args.seconds <= 0 or args.delay < 0:
            parser.error("--seconds must be positive and --delay not negative")
        return capture(args)
    return analyze(args)


if __name__ == "__main__":
    sys.exit(main())
