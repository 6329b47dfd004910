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

"""A UDP relay that forges one WireGuard data message, for sandbox tests.

It sits between two WireGuard ports A and B like tests/system-relay.py:
A sends to --listen-a, B to --listen-b; what arrives on one socket goes out
of the other to --to-b or --to-a, so each side sees the relay as its peer.
Both listening sockets default to ephemeral ports on 127.0.0.1.

Everything is forwarded unchanged, except the first data message (type 4
with a payload, longer than 32 bytes) from A to B: the relay holds it and
sends B instead a copy with the lowest bit of encrypted byte --flip-byte
flipped (same receiver index and counter).  On SIGUSR1 it sends the held
original; on SIGUSR2, once that is done, the original again (a replay).

It appends one line per event to --log, flushed at once:
  ready a=HOST:PORT b=HOST:PORT   both sockets bound
  forged counter=N len=N          the forged copy went to B
  released counter=N len=N        the original went to B
  replayed counter=N len=N        the original went to B again
On SIGTERM or SIGINT it exits 0.
"""

import argparse
import importlib.util
import os
import select
import signal
import socket
import struct
import sys

# parse_addr() and open_socket() from tests/system-relay.py.
_spec = importlib.util.spec_from_file_location(
    "system_relay",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "system-relay.py"))
system_relay = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(system_relay)

MSG_DATA = 4
DATA_HEADER_LEN = 16            # type, reserved, receiver index, counter
TAG_LEN = 16


def is_data_with_payload(data):
    return (len(data) > DATA_HEADER_LEN + TAG_LEN
            and struct.unpack_from("<I", data)[0] == MSG_DATA)


def counter_of(data):
    return struct.unpack_from("<Q", data, 8)[0]


def format_addr(sock):
    host, port = sock.getsockname()[:2]
    return ("[%s]:%d" if ":" in host else "%s:%d") % (host, port)


class Relay:
    def __init__(self, args):
        self.sock_a = system_relay.open_socket(args.listen_a)
        self.sock_b = system_relay.open_socket(args.listen_b)
        self.to_a = system_relay.parse_addr(args.to_a)[1]
        self.to_b = system_relay.parse_addr(args.to_b)[1]
        self.flip_byte = args.flip_byte
        self.log = open(args.log, "a")
        self.held = None
        self.released = None
        self.forged = False

    def note(self, line):
        self.log.write(line + "\n")
        self.log.flush()

    def a_to_b(self, data):
        if self.forged or not is_data_with_payload(data):
            self.sock_b.sendto(data, self.to_b)
            return
        self.forged = True
        if len(data) <= DATA_HEADER_LEN + self.flip_byte + TAG_LEN:
            self.note("error: %d-byte data message, no byte %d to flip"
                      % (len(data), self.flip_byte))
            sys.exit(1)
        self.held = data
        forged = bytearray(data)
        forged[DATA_HEADER_LEN + self.flip_byte] ^= 0x01
        self.sock_b.sendto(bytes(forged), self.to_b)
        self.note("forged counter=%d len=%d" % (counter_of(data), len(data)))

    def b_to_a(self, data):
        self.sock_a.sendto(data, self.to_a)

    def release(self):
        if self.held is not None:
            self.sock_b.sendto(self.held, self.to_b)
            self.note("released counter=%d len=%d"
                      % (counter_of(self.held), len(self.held)))
            self.released, self.held = self.held, None

    def replay(self):
        if self.released is not None:
            self.sock_b.sendto(self.released, self.to_b)
            self.note("replayed counter=%d len=%d"
                      % (counter_of(self.released), len(self.released)))

    @staticmethod
    def drain(sock, handler):
        while True:
            try:
                data = sock.recv(65535)
            except (BlockingIOError, InterruptedError):
                return
            handler(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen-a", default="127.0.0.1:0")
    parser.add_argument("--to-a", required=True)
    parser.add_argument("--listen-b", default="127.0.0.1:0")
    parser.add_argument("--to-b", required=True)
    parser.add_argument("--flip-byte", type=int, default=0,
                        help="offset of the flipped byte after the header")
    parser.add_argument("--log", required=True)
    args = parser.parse_args()

    relay = Relay(args)

    # Signals only set flags; the wakeup socket ends the select() at once.
    wake_r, wake_w = socket.socketpair()
    wake_r.setblocking(False)
    wake_w.setblocking(False)
    signal.set_wakeup_fd(wake_w.fileno())
    pending = []
    signal.signal(signal.SIGUSR1, lambda *_: pending.append("release"))
    signal.signal(signal.SIGUSR2, lambda *_: pending.append("replay"))
    signal.signal(signal.SIGTERM, lambda *_: pending.append("stop"))
    signal.signal(signal.SIGINT, lambda *_: pending.append("stop"))

    relay.note("ready a=%s b=%s" % (format_addr(relay.sock_a),
                                    format_addr(relay.sock_b)))

    handlers = {relay.sock_a: relay.a_to_b, relay.sock_b: relay.b_to_a}
    while True:
        ready, _, _ = select.select([wake_r] + list(handlers), [], [])
        for sock in ready:
            if sock is wake_r:
                try:
                    wake_r.recv(4096)
                except BlockingIOError:
                    pass
            else:
                relay.drain(sock, handlers[sock])
        while pending:
            event = pending.pop(0)
            if event == "stop":
                return 0
            elif event == "release":
                relay.release()
            else:
                relay.replay()


if __name__ == "__main__":
    sys.exit(main())
