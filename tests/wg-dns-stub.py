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

"""A minimal DNS server for the host-name endpoint tests: answers the A
and AAAA questions of recursive resolvers from a file in /etc/hosts form.

usage: wg-dns-stub.py ADDRESS ZONE_FILE LOG [SECONDS]

Listens on UDP ADDRESS:53 and, for each query, reads ZONE_FILE anew
("ADDRESS NAME..." lines, '#' comments), so that a test moves a name by
rewriting the file.  A name in the file gets its addresses of the asked
family with a TTL of 1 second (NOERROR without answer for the other
family), any other name NXDOMAIN; other questions get NOTIMP.  Appends
"NAME TYPE RCODE" to LOG for each query.  Stops after SECONDS (default
600).
"""

import ipaddress
import socket
import struct
import sys
import time

TYPE_A, TYPE_AAAA = 1, 28
NOERROR, FORMERR, NXDOMAIN, NOTIMP = 0, 1, 3, 4
TTL = 1


def read_zone(path):
    """Returns {name: [ip_address, ...]} from a hosts-form file."""
    zone = {}
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) < 2:
                continue
            addr = ipaddress.ip_address(words[0])
            for name in words[1:]:
                zone.setdefault(name.lower().rstrip("."), []).append(addr)
    return zone


def parse_question(msg):
    """Returns (name, qtype, end offset of the question), or None."""
    if len(msg) < 12 or struct.unpack("!H", msg[4:6])[0] != 1:
        return None
    labels, i = [], 12
    while i < len(msg) and msg[i]:
        n = msg[i]
        if n > 63 or i + 1 + n > len(msg):
            return None
        labels.append(msg[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    if i + 5 > len(msg):
        return None
    qtype = struct.unpack("!H", msg[i + 1:i + 3])[0]
    return ".".join(labels).lower(), qtype, i + 5


def answer(msg, zone):
    """Returns (reply, name, qtype, rcode) for query 'msg'."""
    q = parse_question(msg)
    if q is None:
        return None, "?", 0, FORMERR
    name, qtype, end = q
    family = {TYPE_A: 4, TYPE_AAAA: 6}.get(qtype)
    records = []
    if family is None:
        rcode = NOTIMP
    elif name not in zone:
        rcode = NXDOMAIN
    else:
        rcode = NOERROR
        records = [a.packed for a in zone[name] if a.version == family]
    flags = 0x8000 | (struct.unpack("!H", msg[2:4])[0] & 0x0100) | 0x0080
    header = msg[:2] + struct.pack("!HHHHH", flags | rcode, 1, len(records),
                                   0, 0)
    body = b"".join(struct.pack("!HHHIH", 0xc00c, qtype, 1, TTL, len(r)) + r
                    for r in records)
    return header + msg[12:end] + body, name, qtype, rcode


def main(argv):
    address, zone_file, log = argv[1:4]
    deadline = time.monotonic() + (float(argv[4]) if len(argv) > 4 else 600)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((address, 53))
    print("listening", flush=True)
    while time.monotonic() < deadline:
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            msg, peer = s.recvfrom(4096)
        except socket.timeout:
            break
        reply, name, qtype, rcode = answer(msg, read_zone(zone_file))
        with open(log, "a") as f:
            f.write("%s %d %d\n" % (name, qtype, rcode))
        if reply:
            s.sendto(reply, peer)


if __name__ == "__main__":
    main(sys.argv)
