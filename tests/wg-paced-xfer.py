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

"""A checked TCP transfer, paced or not, for the system tests and the soak.

The data-integrity tests send random data as fast as TCP goes and compare
the sha256 of both ends.  The fault tests break something (a daemon, an
address, a key) while data flows, so their transfer must last longer than
the fault and must say how long the data stopped: they send at a fixed
rate.

  recv HOST PORT [--timeout S]
      Listens on HOST:PORT, prints "listening", takes one connection and
      reads it to the end.  Then prints "BYTES SHA256" and a line
      "stall SECONDS ended EPOCH": the longest time without data after
      the first byte, and the wall-clock time it ended.

  send HOST PORT BYTES --rate MBYTES_PER_S [--seconds S] [--timeout S]
      Connects and sends BYTES random bytes at about the rate given (or,
      with --seconds, whatever it can send in S seconds at that rate; with
      --rate 0, as fast as it can), then waits for the receiver to close;
      prints "BYTES SHA256".

Either side gives up (exit 1, saying why) when no progress is made for
--timeout seconds (default 60).
"""

import argparse
import hashlib
import os
import socket
import sys
import time

CHUNK = 1 << 16


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def recv(args):
    lsock = socket.socket(family(args.host), socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((args.host, args.port))
    lsock.listen(1)
    lsock.settimeout(args.timeout)
    print("listening", flush=True)
    conn, _ = lsock.accept()
    conn.settimeout(args.timeout)
    digest, total = hashlib.sha256(), 0
    last = stall = stall_end = None
    while True:
        data = conn.recv(CHUNK)
        if not data:
            break
        now = time.time()
        if last is not None and (stall is None or now - last > stall):
            stall, stall_end = now - last, now
        last = now
        digest.update(data)
        total += len(data)
    conn.close()
    print("%d %s" % (total, digest.hexdigest()))
    print("stall %.3f ended %.3f" % (stall or 0.0, stall_end or 0.0),
          flush=True)


def send(args):
    sock = socket.create_connection((args.host, args.port),
                                     timeout=args.timeout)
    digest, sent = hashlib.sha256(), 0
    start = time.monotonic()
    while sent < args.bytes or args.seconds:
        if args.seconds and time.monotonic() - start >= args.seconds:
            break
        data = os.urandom(CHUNK if args.seconds
                          else min(CHUNK, args.bytes - sent))
        digest.update(data)
        sock.sendall(data)
        sent += len(data)
        if args.rate:
            ahead = sent / (args.rate * 1e6) - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
    sock.shutdown(socket.SHUT_WR)
    sock.recv(1)                # Until the receiver closes.
    sock.close()
    print("%d %s" % (sent, digest.hexdigest()), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["send", "recv"])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("bytes", type=int, nargs="?", default=0)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    try:
        recv(args) if args.mode == "recv" else send(args)
    except OSError as e:
        print("%s: %s" % (args.mode, e), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
