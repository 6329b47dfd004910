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

"""Sends again the UDP payloads of a capture, for the fault tests.

  wg-pcap-replay.py PCAP --src ADDRESS --to HOST:PORT

Reads PCAP (tcpdump -w, Ethernet, whole packets), takes the UDP payload
of every IPv4 datagram whose source address is ADDRESS and sends each, in
order, from a fresh socket to HOST:PORT.  Prints how many it sent.  The key
rotation test uses it to offer a port data messages of a session that must
be gone.
"""

import argparse
import ipaddress
import socket
import struct
import sys

ETH_HEADER_LEN = 14
ETH_TYPE_IPV4 = 0x0800
IPPROTO_UDP = 17


def records(data):
    """Yields the frames of pcap file contents 'data'."""
    magic = struct.unpack_from("<I", data)[0]
    order = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    offset = 24
    while offset + 16 <= len(data):
        caplen, wirelen = struct.unpack_from(order + "II", data, offset + 8)
        frame = data[offset + 16:offset + 16 + caplen]
        offset += 16 + caplen
        if caplen == wirelen:
            yield frame


def udp_payload(frame, src):
    """The UDP payload of Ethernet 'frame' if it is IPv4 from 'src'."""
    if len(frame) < ETH_HEADER_LEN + 28:
        return None
    if struct.unpack_from("!H", frame, 12)[0] != ETH_TYPE_IPV4:
        return None
    ip = frame[ETH_HEADER_LEN:]
    ihl = (ip[0] & 0x0f) * 4
    if ip[9] != IPPROTO_UDP or ip[12:16] != src.packed:
        return None
    udp_len = struct.unpack_from("!H", ip, ihl + 4)[0]
    return ip[ihl + 8:ihl + udp_len]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pcap")
    parser.add_argument("--src", required=True, type=ipaddress.IPv4Address)
    parser.add_argument("--to", required=True)
    args = parser.parse_args()
    host, port = args.to.rsplit(":", 1)
    with open(args.pcap, "rb") as f:
        data = f.read()
    payloads = [p for p in (udp_payload(fr, args.src)
                            for fr in records(data)) if p]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for p in payloads:
        sock.sendto(p, (host, int(port)))
    print(len(payloads))
    return 0 if payloads else 1


if __name__ == "__main__":
    sys.exit(main())
