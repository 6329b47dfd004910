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

"""A UDP relay between two wireguard ports that shows and rewrites the
outer ECN field, for the ECN sandbox test.

usage: wg-ecn-relay.py PORT_FILE TARGET_PORT LOG MODE_FILE [ADDRESS]

Listens on two ephemeral UDP ports, A of ADDRESS (default 127.0.0.1) and B
of 127.0.0.1, and writes them, "A B", to PORT_FILE: what arrives on A (from the port that sends to it) goes out of
B to 127.0.0.1:TARGET_PORT, and what comes back on B goes out of A to the
last sender seen on A.  For each WireGuard data message (type 4) coming in
on A it appends "data tos=0xNN" (the outer TOS it arrived with) to LOG.
Datagrams leave with the TOS they arrived with, except that data messages
from A leave with CE (0x03) while MODE_FILE holds "ce".  Runs until
killed.
"""

import os
import select
import socket
import sys

IP_RECVTOS = getattr(socket, "IP_RECVTOS", 13)


def open_sock(address="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((address, 0))
    s.setsockopt(socket.IPPROTO_IP, IP_RECVTOS, 1)
    return s


def recv(s):
    data, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(4))
    tos = 0
    for level, typ, val in anc:
        if level == socket.IPPROTO_IP and typ == socket.IP_TOS:
            tos = val[0]
    return data, tos, addr


def send(s, data, tos, addr):
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, tos)
    s.sendto(data, addr)


def main(argv):
    port_file, target, log, mode_file = argv[1:5]
    a, b = open_sock(*argv[5:6]), open_sock()
    with open(port_file + ".tmp", "w") as f:
        f.write("%d %d\n" % (a.getsockname()[1], b.getsockname()[1]))
    os.rename(port_file + ".tmp", port_file)
    peer = None
    while True:
        ready, _, _ = select.select([a, b], [], [])
        for s in ready:
            data, tos, addr = recv(s)
            if s is a:
                peer = addr
                if data[:1] == b"\x04":
                    with open(log, "a") as f:
                        f.write("data tos=0x%02x\n" % tos)
                    with open(mode_file) as f:
                        if f.read().strip() == "ce":
                            tos = (tos & ~3) | 3
                send(b, data, tos, ("127.0.0.1", int(target)))
            elif peer:
                send(a, data, tos, peer)


if __name__ == "__main__":
    main(sys.argv)
