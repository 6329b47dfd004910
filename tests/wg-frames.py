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

"""Builds Ethernet frames as hex for netdev-dummy/receive in sandbox tests.

usage: wg-frames.py KIND ARG...
  arp-request SRC_MAC SRC_IP TARGET_IP
  arp-reply SRC_MAC SRC_IP DST_MAC DST_IP
  ns SRC_MAC SRC_IP6 TARGET_IP6
  udp4 SRC_MAC DST_MAC SRC_IP DST_IP PAYLOAD_HEX
  udp4-nodf SRC_MAC DST_MAC SRC_IP DST_IP PAYLOAD_HEX  (DF clear)
  udp4-tos SRC_MAC DST_MAC SRC_IP DST_IP PAYLOAD_HEX TOS  (TOS in hex)
  udp6 SRC_MAC DST_MAC SRC_IP6 DST_IP6 PAYLOAD_HEX
  tcp4-run SRC_MAC DST_MAC SRC_IP DST_IP N LEN [LAST_LEN]
      N consecutive TCP segments of one flow, LEN payload bytes each (the
      last LAST_LEN, if given), ACK only, one frame per line (what a
      sender's segmentation produces)
  tcp4-check                    (reads frames as hex, one per line)
      checks that the TCP/IPv4 frames on stdin have correct IP and TCP
      checksums and consecutive sequence numbers; prints "N segments,
      payload bytes per segment: SIZES, PAYLOAD-DIGEST" or fails
"""

import ipaddress
import struct
import sys


def mac(s):
    return bytes.fromhex(s.replace(":", ""))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def eth(dst, src, ethertype, payload):
    return dst + src + struct.pack("!H", ethertype) + payload


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH", 1, 0x0800, 6, 4, op) + sha + spa + tha + tpa


def ipv4(src, dst, proto, payload, df=True, tos=0, ip_id=1):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, tos, 20 + len(payload), ip_id,
                      0x4000 if df else 0, 64, proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def ipv6(src, dst, nh, payload, hlim=64):
    return (struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim)
            + src + dst + payload)


def udp(src, dst, payload, pseudo):
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", 1234, 5678, length, 0)
    c = csum(pseudo(length) + hdr + payload) or 0xffff
    return hdr[:6] + struct.pack("!H", c) + payload


def tcp4_segment(src, dst, seq, payload):
    hdr = struct.pack("!HHIIBBHHH", 40000, 5001, seq, 1, 5 << 4, 0x10,
                      65535, 0, 0)
    pseudo = src + dst + struct.pack("!BBH", 0, 6, len(hdr) + len(payload))
    c = csum(pseudo + hdr + payload)
    return hdr[:16] + struct.pack("!H", c) + hdr[18:] + payload


def tcp4_run(src_mac, dst_mac, src, dst, n, size, last=None):
    frames = []
    for i in range(n):
        length = last if last is not None and i == n - 1 else size
        payload = bytes((i * size + j) % 251 for j in range(length))
        seg = tcp4_segment(src, dst, 1000 + i * size, payload)
        frames.append(eth(dst_mac, src_mac, 0x0800,
                          ipv4(src, dst, 6, seg, ip_id=100 + i)))
    return frames


def tcp4_check(lines):
    """Checks the TCP/IPv4 frames in 'lines' (hex); returns a summary."""
    import hashlib
    sizes, digest, next_seq = [], hashlib.sha256(), None
    for line in lines:
        f = bytes.fromhex(line.strip())
        ip = f[14:]
        ihl = (ip[0] & 15) * 4
        total = struct.unpack("!H", ip[2:4])[0]
        if struct.unpack("!H", f[12:14])[0] != 0x0800 or ip[9] != 6:
            continue
        if csum(ip[:ihl]):
            raise ValueError("bad IPv4 header checksum")
        tcp = ip[ihl:total]
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(tcp))
        if csum(pseudo + tcp):
            raise ValueError("bad TCP checksum")
        seq = struct.unpack("!I", tcp[4:8])[0]
        payload = tcp[(tcp[12] >> 4) * 4:]
        if next_seq is not None and seq != next_seq:
            raise ValueError("sequence %d, expected %d" % (seq, next_seq))
        next_seq = seq + len(payload)
        sizes.append(len(payload))
        digest.update(payload)
    return "%d segments, payload bytes per segment: %s, %s" % (
        len(sizes), " ".join(sorted(set(map(str, sizes)))),
        digest.hexdigest()[:16])


def ip4(s):
    return ipaddress.IPv4Address(s).packed


def ip6(s):
    return ipaddress.IPv6Address(s).packed


def main(argv):
    kind, args = argv[1], argv[2:]
    bcast = mac("ff:ff:ff:ff:ff:ff")
    if kind == "tcp4-run":
        for f in tcp4_run(mac(args[0]), mac(args[1]), ip4(args[2]),
                          ip4(args[3]), int(args[4]), int(args[5]),
                          *[int(a) for a in args[6:7]]):
            print(f.hex())
        return 0
    if kind == "tcp4-check":
        try:
            print(tcp4_check(sys.stdin))
        except ValueError as e:
            print("tcp4-check: %s" % e)
            return 1
        return 0
    if kind == "arp-request":
        f = eth(bcast, mac(args[0]), 0x0806,
                arp(1, mac(args[0]), ip4(args[1]), bytes(6), ip4(args[2])))
    elif kind == "arp-reply":
        f = eth(mac(args[2]), mac(args[0]), 0x0806,
                arp(2, mac(args[0]), ip4(args[1]), mac(args[2]),
                    ip4(args[3])))
    elif kind == "ns":
        target = ip6(args[2])
        snm = ip6("ff02::1:ff00:0")[:13] + target[13:]
        icmp = (struct.pack("!BBHI", 135, 0, 0, 0) + target
                + struct.pack("!BB", 1, 1) + mac(args[0]))
        src = ip6(args[1])
        pseudo = src + snm + struct.pack("!I", len(icmp)) + bytes(3) + b"\x3a"
        icmp = icmp[:2] + struct.pack("!H", csum(pseudo + icmp)) + icmp[4:]
        f = eth(mac("33:33:ff") + target[13:], mac(args[0]), 0x86dd,
                ipv6(src, snm, 58, icmp, 255))
    elif kind in ("udp4", "udp4-nodf", "udp4-tos"):
        s, d = ip4(args[2]), ip4(args[3])
        payload = bytes.fromhex(args[4])
        tos = int(args[5], 16) if kind == "udp4-tos" else 0
        u = udp(s, d, payload,
                lambda n: s + d + struct.pack("!BBH", 0, 17, n))
        f = eth(mac(args[1]), mac(args[0]), 0x0800,
                ipv4(s, d, 17, u, kind != "udp4-nodf", tos))
    elif kind == "udp6":
        s, d = ip6(args[2]), ip6(args[3])
        payload = bytes.fromhex(args[4])
        u = udp(s, d, payload,
                lambda n: s + d + struct.pack("!I", n) + bytes(3) + b"\x11")
        f = eth(mac(args[1]), mac(args[0]), 0x86dd, ipv6(s, d, 17, u))
    else:
        sys.stderr.write(__doc__)
        return 2
    print(f.hex())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
