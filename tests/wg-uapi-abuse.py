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

"""Feeds a UAPI socket random and oversized requests, for the fault tests.

  wg-uapi-abuse.py SOCKET [--seed N] [--random N] [--oversized BYTES]
                          [--idle N]

Runs, in order, and prints one line per kind with what happened:

  random     N connections, each sending random bytes (some with "set=1"
             or "get=1" in front, some with NULs and long lines) ended by
             a blank line; every reply must be "errno=-N" (N > 0) and a
             blank line, possibly after get output.
  truncated  requests cut short by closing the write side: any reply or a
             closed connection, but a reply must be well formed.
  oversized  one request of BYTES bytes without a blank line: the reply
             must be errno=-90 (EMSGSIZE), or the connection closed.
  idle       N connections that send nothing, held open for --hold
             seconds (the server refuses those over its limit); then one
             well-formed "get=1" request on a new connection after they
             are closed must get errno=0.

Exits 1, saying why, on the first answer that breaks these rules.
"""

import argparse
import random
import re
import socket
import sys
import time

ERRNO_LINE = re.compile(rb"errno=(-?\d+)\n\n\Z")


def connect(path, timeout=15.0):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    sock.connect(path)
    return sock


def read_all(sock):
    chunks = []
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def fail(msg):
    print("FAIL: %s" % msg, flush=True)
    sys.exit(1)


def random_request(rng):
    body = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
    body = bytes([rng.randrange(32, 127)]) + body.replace(b"\n\n", b"\n")
    prefix = rng.choice([b"", b"set=1\n", b"get=1\n", b"set=1\nset=1\n"])
    if rng.random() < 0.2:
        body = b"public_key=" + b"A" * rng.randrange(5000) + b"\n" + body
    return prefix + body + b"\n\n"


def check_errno(reply, what):
    m = ERRNO_LINE.search(reply)
    if not m:
        fail("%s: reply %r has no errno line" % (what, reply[-64:]))
    return int(m.group(1))


def run_random(path, rng, n):
    for i in range(n):
        req = random_request(rng)
        sock = connect(path)
        sock.sendall(req)
        reply = read_all(sock)
        sock.close()
        if req.startswith(b"get=1\n") and reply.endswith(b"errno=0\n\n"):
            continue            # "get=1" then junk that the get ignores.
        if check_errno(reply, "random request %d" % i) == 0:
            fail("random request %d accepted: %r" % (i, req[:64]))
    print("random: %d requests, each refused with errno" % n)


def run_truncated(path, rng, n):
    for i in range(n):
        req = random_request(rng)[:rng.randrange(1, 200)]
        sock = connect(path)
        sock.sendall(req)
        sock.shutdown(socket.SHUT_WR)
        reply = read_all(sock)
        sock.close()
        if reply and not ERRNO_LINE.search(reply):
            fail("truncated request %d: malformed reply %r" % (i, reply))
    print("truncated: %d requests, every reply well formed" % n)


def run_oversized(path, size):
    sock = connect(path)
    line = b"set=1\n" + b"x" * 1000 + b"\n"
    sent = 0
    try:
        while sent < size:
            sock.sendall(line)
            sent += len(line)
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = read_all(sock)
    sock.close()
    if reply and check_errno(reply, "oversized request") != -90:
        fail("oversized request: %r" % reply)
    print("oversized: %d bytes sent, answered %r"
          % (sent, reply.decode().strip() or "by closing"))


def run_idle(path, n, hold):
    idle = []
    for _ in range(n):
        try:
            idle.append(connect(path))
        except OSError:
            break
    time.sleep(hold)
    for sock in idle:
        sock.close()
    sock = connect(path)
    sock.sendall(b"get=1\n\n")
    reply = read_all(sock)
    sock.close()
    if check_errno(reply, "get after idle clients") != 0:
        fail("get after idle clients: %r" % reply[-64:])
    print("idle: %d connections for %g s, then get=1 answered errno=0"
          % (n, hold))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("socket")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--random", type=int, default=300)
    parser.add_argument("--oversized", type=int, default=70 << 20)
    parser.add_argument("--idle", type=int, default=64)
    parser.add_argument("--hold", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    run_random(args.socket, rng, args.random)
    run_truncated(args.socket, rng, args.random // 3)
    run_oversized(args.socket, args.oversized)
    run_idle(args.socket, args.idle, args.hold)
    return 0


if __name__ == "__main__":
    sys.exit(main())
