#! /usr/bin/env python3
# Copyright (c) 2026 The ovs-wireguard authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""A lossy, reordering UDP relay for the system tests.

The kernel of the test machine has no netem qdisc, so loss and reordering
on the underlay come from this relay instead.  It sits between two UDP
endpoints A and B: each side is told to send to the relay (side A to
--listen-a, side B to --listen-b); datagrams that arrive on --listen-a go
out of the --listen-b socket to --to-b, and the other way round, so each
side sees the relay as its peer.

Each datagram is dropped with probability --loss, sent twice with
probability --duplicate, or, with probability --reorder, held back and sent
after the next datagram of the same direction (or after --hold-ms without
one), which swaps the two.  The random sequence comes from --seed.

Prints "relay ready" once both sockets are bound.  On SIGTERM or SIGINT it
writes one line per direction to --stats ("a2b in=N out=N dropped=N
reordered=N duplicated=N") and exits 0.
"""

import argparse
import random
import select
import signal
import socket
import sys
import time

SOCKBUF_BYTES = 8 * 1024 * 1024
BURST = 256


def parse_addr(text):
    """'1.2.3.4:5' or '[::1]:5' -> (family, (host, port))."""
    host, _, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        return socket.AF_INET6, (host[1:-1], int(port))
    return socket.AF_INET, (host, int(port))


def open_socket(text):
    family, addr = parse_addr(text)
    sock = socket.socket(family, socket.SOCK_DGRAM)
    for force, plain in ((33, socket.SO_RCVBUF), (32, socket.SO_SNDBUF)):
        try:
            sock.setsockopt(socket.SOL_SOCKET, force, SOCKBUF_BYTES)
        except OSError:
            sock.setsockopt(socket.SOL_SOCKET, plain, SOCKBUF_BYTES)
    sock.bind(addr)
    sock.setblocking(False)
    return sock


class Direction:
    """Datagrams read from 'src' and sent out of 'out' to 'dst'."""

    def __init__(self, name, src, out, dst, args, rng):
        self.name = name
        self.src = src
        self.out = out
        self.dst = parse_addr(dst)[1]
        self.loss = args.loss
        self.dup = args.loss + args.duplicate
        self.reorder = self.dup + args.reorder
        self.hold_s = args.hold_ms / 1000.0
        self.rng = rng
        self.held = None
        self.held_at = 0.0
        self.n_in = self.n_out = self.n_dropped = 0
        self.n_reordered = self.n_duplicated = 0

    def send(self, data):
        try:
            self.out.sendto(data, self.dst)
            self.n_out += 1
        except OSError:
            self.n_dropped += 1

    def handle(self, data):
        self.n_in += 1
        draw = self.rng.random()
        if draw < self.loss:
            self.n_dropped += 1
        elif draw < self.dup:
            self.send(data)
            self.send(data)
            self.n_duplicated += 1
        elif self.held is None and draw < self.reorder:
            self.held, self.held_at = data, time.monotonic()
        else:
            self.send(data)
            if self.held is not None:
                self.send(self.held)
                self.held = None
                self.n_reordered += 1

    def drain(self):
        for _ in range(BURST):
            try:
                data = self.src.recv(65535)
            except (BlockingIOError, InterruptedError):
                return
            self.handle(data)

    def flush_stale(self, now):
        if self.held is not None and now - self.held_at >= self.hold_s:
            self.send(self.held)
            self.held = None

    def report(self):
        return ("%s in=%d out=%d dropped=%d reordered=%d duplicated=%d\n"
                % (self.name, self.n_in, self.n_out, self.n_dropped,
                   self.n_reordered, self.n_duplicated))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen-a", required=True)
    parser.add_argument("--to-a", required=True)
    parser.add_argument("--listen-b", required=True)
    parser.add_argument("--to-b", required=True)
    parser.add_argument("--loss", type=float, default=0.01)
    parser.add_argument("--reorder", type=float, default=0.01)
    parser.add_argument("--duplicate", type=float, default=0.0)
    parser.add_argument("--hold-ms", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stats", required=True)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    sock_a = open_socket(args.listen_a)
    sock_b = open_socket(args.listen_b)
    dirs = {sock_a: Direction("a2b", sock_a, sock_b, args.to_b, args, rng),
            sock_b: Direction("b2a", sock_b, sock_a, args.to_a, args, rng)}

    hold_s = args.hold_ms / 1000.0
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print("relay ready", flush=True)

    while not stop:
        try:
            ready, _, _ = select.select(list(dirs), [], [], hold_s)
        except InterruptedError:
            continue
        for sock in ready:
            dirs[sock].drain()
        now = time.monotonic()
        for d in dirs.values():
            d.flush_stale(now)

    with open(args.stats, "w") as f:
        for d in dirs.values():
            f.write(d.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
