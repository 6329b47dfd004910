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

"""Writes the raw seed inputs of one libFuzzer target of tests/.

Usage: fuzz-seeds.py TARGET OUTDIR

TARGET is a fuzzer's name (fuzz-wg-device, fuzz-pkt-gro, fuzz-bridge-l2,
fuzz-wg-uapi, fuzz-wg-config); OUTDIR is created and gets one file per
seed, named after what it holds.  Each seed follows the input format
described at the top of tests/TARGET.c.  "make fuzz-corpus" runs this for
every target and keeps what libFuzzer's -merge=1 finds useful in
tests/fuzz-corpus/TARGET/.  Only the standard library is used; keys are
fixed byte patterns (never real secrets)."""

import base64
import importlib.util
import os
import struct
import sys

# csum() and mac() from tests/wg-frames.py.
_spec = importlib.util.spec_from_file_location(
    "wg_frames",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "wg-frames.py"))
wg_frames = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wg_frames)
csum, mac = wg_frames.csum, wg_frames.mac


# Packet builders.

def ip4(src, dst, proto, payload, ttl=64, flags=0x4000, ident=1):
    """An IPv4 packet with a valid header checksum."""
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident,
                      flags, ttl, proto, 0, bytes(src), bytes(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + payload


def ip6(src, dst, nh, payload, hlim=64):
    return struct.pack("!IHBB16s16s", 0x60000000, len(payload), nh, hlim,
                       bytes(src), bytes(dst)) + payload


def pseudo4(src, dst, proto, l4):
    return bytes(src) + bytes(dst) + struct.pack("!BBH", 0, proto, len(l4))


def pseudo6(src, dst, nh, l4):
    return bytes(src) + bytes(dst) + struct.pack("!I3xB", len(l4), nh)


def with_csum(l4, ofs, pseudo):
    c = csum(pseudo + l4)
    return l4[:ofs] + struct.pack("!H", c) + l4[ofs + 2:]


def tcp(sport, dport, seq, payload, flags=0x10, ack=1):
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags,
                       65535, 0, 0) + payload


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp4(src, dst, seq, payload, flags=0x10):
    seg = tcp(40000, 80, seq, payload, flags)
    return ip4(src, dst, 6, with_csum(seg, 16, pseudo4(src, dst, 6, seg)))


def tcp6(src, dst, seq, payload, flags=0x10):
    seg = tcp(40000, 80, seq, payload, flags)
    return ip6(src, dst, 6, with_csum(seg, 16, pseudo6(src, dst, 6, seg)))


def udp4(src, dst, payload, **kw):
    dgram = udp(5000, 53, payload)
    return ip4(src, dst, 17,
               with_csum(dgram, 6, pseudo4(src, dst, 17, dgram)), **kw)


def udp6(src, dst, payload):
    dgram = udp(5000, 53, payload)
    return ip6(src, dst, 17, with_csum(dgram, 6, pseudo6(src, dst, 17,
                                                         dgram)))


def icmp4_echo(src, dst):
    msg = struct.pack("!BBHHH", 8, 0, 0, 1, 1) + b"ping" * 8
    msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
    return ip4(src, dst, 1, msg)


def icmp6(src, dst, body):
    return ip6(src, dst, 58, with_csum(body, 2, pseudo6(src, dst, 58, body)),
               hlim=255)


def a4(s):
    return bytes(int(x) for x in s.split("."))


def a6(s):
    import ipaddress
    return ipaddress.IPv6Address(s).packed


def eth(dst, src, ethertype, payload, vlan=None):
    tag = b"" if vlan is None else struct.pack("!HH", 0x8100, vlan)
    return mac(dst) + mac(src) + tag + struct.pack("!H", ethertype) + payload


def payload(n, seed=1):
    return bytes((seed + i * 7) & 0xff for i in range(n))


# fuzz-wg-device: a control byte, then a datagram (see its header).

def seeds_wg_device():
    a4_, b4_ = a4("10.0.0.1"), a4("10.0.0.2")
    a6_, b6_ = a6("fd00::1"), a6("fd00::2")
    s = {}
    for choice, what in enumerate(["initiation", "response", "cookie",
                                   "keepalive"]):
        s["genuine-" + what] = bytes([0x80, choice])
    s["genuine-initiation-under-load"] = bytes([0x84, 0])
    s["genuine-initiation-other-ipv4"] = bytes([0x81, 0])
    s["genuine-initiation-from-ipv6"] = bytes([0x82, 0])
    s["genuine-keepalive-roaming"] = bytes([0x83, 3])
    s["genuine-response-after-10s"] = bytes([0x88, 10, 1])
    s["genuine-initiation-flipped-mac1"] = (bytes([0x80, 0]) + bytes(116)
                                            + b"\x01")
    s["genuine-response-truncated"] = bytes([0x80, 5]) + bytes(60)
    s["genuine-keepalive-bad-counter"] = (bytes([0x80, 3]) + bytes(8)
                                          + b"\x01")
    s["inner-udp4"] = b"\x10" + udp4(a4_, b4_, payload(64))
    s["inner-tcp4"] = b"\x10" + tcp4(a4_, b4_, 1000, payload(200))
    s["inner-icmp4"] = b"\x10" + icmp4_echo(a4_, b4_)
    s["inner-udp6"] = b"\x10" + udp6(a6_, b6_, payload(48))
    s["inner-tcp6"] = b"\x10" + tcp6(a6_, b6_, 1, payload(100))
    s["inner-not-allowed-source"] = b"\x10" + udp4(a4("192.0.2.1"), b4_,
                                                   payload(16))
    s["inner-bad-length"] = b"\x10" + udp4(a4_, b4_, payload(16))[:30]
    s["inner-after-200s"] = b"\x18\xc8" + udp4(a4_, b4_, payload(8))
    s["raw-data-current-index"] = (b"\x20" + struct.pack("<II", 4, 0)
                                   + struct.pack("<Q", 7) + payload(48))
    s["raw-initiation-mac1"] = (b"\x40" + struct.pack("<I", 1)
                                + payload(144))
    s["raw-response-mac1"] = b"\x40" + struct.pack("<I", 2) + payload(88)
    s["raw-cookie-reply"] = b"\x00" + struct.pack("<I", 3) + payload(60)
    s["raw-initiation-under-load"] = (b"\x44" + struct.pack("<I", 1)
                                      + payload(144))
    s["raw-short"] = b"\x00\x04\x00"
    s["raw-bad-type"] = b"\x00" + struct.pack("<I", 9) + payload(28)
    return s


# fuzz-pkt-gro: records, either synthesized segments (a byte < 0x80, then
# six bytes: flow/family/flags, length (2), sequence gap, header variants,
# padding/seed) or raw packets (0x80 | flags, length (2), bytes).

def gro_synth(flow=0, v6=False, flag=0, length=1448, gap=0, hdr=0, pad=0):
    r0 = flow | (4 if v6 else 0) | (flag << 3)
    return bytes([0x00, r0, length >> 8, length & 0xff, gap & 0xff, hdr,
                  pad])


def gro_raw(pkt, extra_room=False):
    n = len(pkt)
    return bytes([0x80, (n >> 8) | (0x40 if extra_room else 0),
                  n & 0xff]) + pkt


def seeds_pkt_gro():
    c4, s4 = a4("192.168.1.2"), a4("192.168.1.1")
    c6, s6 = a6("2001:db8::2"), a6("2001:db8::1")
    s = {}
    s["synth-4-in-order"] = gro_synth() * 4
    s["synth-4-psh-last"] = gro_synth() * 3 + gro_synth(flag=3)
    s["synth-v6-in-order"] = gro_synth(v6=True) * 4
    s["synth-two-flows"] = (gro_synth(0) + gro_synth(1)) * 3
    s["synth-gap"] = gro_synth() * 2 + gro_synth(gap=0x90) + gro_synth()
    s["synth-short-last"] = gro_synth() * 3 + gro_synth(length=100)
    s["synth-options-differ"] = gro_synth() + gro_synth(hdr=1) + gro_synth()
    s["synth-ip-options"] = gro_synth(hdr=0x20) * 3
    s["synth-fin-syn-urg"] = (gro_synth() + gro_synth(flag=4)
                              + gro_synth(flag=6) + gro_synth(flag=5))
    s["synth-tos-ttl"] = gro_synth() + gro_synth(hdr=4) + gro_synth(hdr=16)
    s["synth-no-room"] = b"\x40" + gro_synth(pad=0x80)[1:] + gro_synth() * 3
    s["synth-big"] = gro_synth(length=4095) * 20
    seq = 1000
    raw4 = b""
    for _ in range(4):
        raw4 += gro_raw(tcp4(c4, s4, seq, payload(1000, seq)))
        seq += 1000
    s["raw-tcp4-in-order"] = raw4
    seq = 7
    raw6 = b""
    for _ in range(3):
        raw6 += gro_raw(tcp6(c6, s6, seq, payload(1200, seq)))
        seq += 1200
    s["raw-tcp6-in-order"] = raw6
    s["raw-udp-between"] = (gro_raw(tcp4(c4, s4, 1, payload(500)))
                            + gro_raw(udp4(c4, s4, payload(50)))
                            + gro_raw(tcp4(c4, s4, 501, payload(500))))
    s["raw-truncated"] = gro_raw(tcp4(c4, s4, 1, payload(500))[:30])
    s["raw-pure-ack"] = gro_raw(tcp4(c4, s4, 1, b"")) * 2
    s["raw-fragment"] = gro_raw(ip4(c4, s4, 6, payload(300), flags=0x2000))
    return s


# fuzz-bridge-l2: five control bytes (clock x8 ms (2), flags, MTU byte,
# buffer byte), then an Ethernet frame.  The adapter's MAC is
# 02:00:00:00:00:01 with 10.1.1.254/24 and fd00:1:1::fe/64; 10.1.2.0/24 and
# fd00:1:2::/48 are routable.

GUEST = "52:54:00:00:00:02"
PORT = "02:00:00:00:00:01"
BCAST = "ff:ff:ff:ff:ff:ff"


def l2(frame, flags=0, mtu_byte=225, buf=255, clock=1):
    return struct.pack("<H", clock) + bytes([flags, mtu_byte, buf]) + frame


def arp(op, sha, spa, tha, tpa):
    return struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, mac(sha),
                       a4(spa), mac(tha), a4(tpa))


def ns(src, target, sll):
    body = (struct.pack("!BBHI", 135, 0, 0, 0) + a6(target)
            + b"\x01\x01" + mac(sll))
    return body


def seeds_bridge_l2():
    g4, g6 = a4("10.1.1.5"), a6("fd00:1:1::5")
    s = {}
    s["arp-request-gateway"] = l2(eth(BCAST, GUEST, 0x0806,
                                      arp(1, GUEST, "10.1.1.5",
                                          "00:00:00:00:00:00",
                                          "10.1.1.254")))
    s["arp-reply"] = l2(eth(PORT, GUEST, 0x0806,
                            arp(2, GUEST, "10.1.1.5", PORT, "10.1.1.254")))
    s["arp-request-other"] = l2(eth(BCAST, GUEST, 0x0806,
                                    arp(1, GUEST, "10.1.1.5",
                                        "00:00:00:00:00:00", "10.1.1.9")))
    snm = a6("ff02::1:ff00:fe")
    s["nd-solicit-gateway"] = l2(eth("33:33:ff:00:00:fe", GUEST, 0x86dd,
                                     icmp6(g6, snm, ns(g6, "fd00:1:1::fe",
                                                       GUEST))))
    na = (struct.pack("!BBHI", 136, 0, 0, 0x60000000) + a6("fd00:1:1::5")
          + b"\x02\x01" + mac(GUEST))
    s["nd-advert"] = l2(eth(PORT, GUEST, 0x86dd,
                            icmp6(g6, a6("fd00:1:1::fe"), na)))
    s["ipv4-udp-routable"] = l2(eth(PORT, GUEST, 0x0800,
                                    udp4(g4, a4("10.1.2.7"), payload(32))))
    s["ipv4-udp-not-routable"] = l2(eth(PORT, GUEST, 0x0800,
                                        udp4(g4, a4("8.8.8.8"),
                                             payload(32))))
    s["ipv4-route-all"] = l2(eth(PORT, GUEST, 0x0800,
                                 udp4(g4, a4("8.8.8.8"), payload(32))),
                             flags=1)
    s["ipv4-echo-gateway"] = l2(eth(PORT, GUEST, 0x0800,
                                    icmp4_echo(g4, a4("10.1.1.254"))))
    s["ipv6-udp-routable"] = l2(eth(PORT, GUEST, 0x86dd,
                                    udp6(g6, a6("fd00:1:2::7"),
                                         payload(40))))
    big = udp4(g4, a4("10.1.2.7"), payload(1400))
    s["ipv4-big-df-small-mtu"] = l2(eth(PORT, GUEST, 0x0800, big),
                                    mtu_byte=100)
    s["ipv4-big-fragmentable"] = l2(eth(PORT, GUEST, 0x0800,
                                        udp4(g4, a4("10.1.2.7"),
                                             payload(1400), flags=0)),
                                    mtu_byte=100, buf=120)
    s["ipv6-big-small-mtu"] = l2(eth(PORT, GUEST, 0x86dd,
                                     udp6(g6, a6("fd00:1:2::7"),
                                          payload(1400))), mtu_byte=100)
    s["ipv4-fragment"] = l2(eth(PORT, GUEST, 0x0800,
                                ip4(g4, a4("10.1.2.7"), 17, payload(64),
                                    flags=0x2000)))
    s["vlan-tagged"] = l2(eth(PORT, GUEST, 0x0800,
                              udp4(g4, a4("10.1.2.7"), payload(16)),
                              vlan=10))
    s["ipv4-broadcast"] = l2(eth(BCAST, GUEST, 0x0800,
                                 udp4(g4, a4("255.255.255.255"),
                                      payload(16))))
    s["ipv6-multicast"] = l2(eth("33:33:00:00:00:01", GUEST, 0x86dd,
                                 udp6(g6, a6("ff02::1"), payload(16))))
    s["other-addresses-late"] = l2(eth(PORT, GUEST, 0x0800,
                                       udp4(g4, a4("10.1.1.2"),
                                            payload(16))),
                                   flags=2, mtu_byte=2, clock=40000)
    s["runt"] = l2(mac(PORT) + mac(GUEST))
    return s


# fuzz-wg-uapi: bodies of "set=1" requests (hex keys, blank line last).

def hexkey(seed):
    return bytes((seed * 37 + i * 11 + 1) & 0xff for i in range(32)).hex()


def seeds_wg_uapi():
    priv, p1, p2, psk = hexkey(1), hexkey(2), hexkey(3), hexkey(4)
    s = {}
    s["full"] = ("private_key=%s\nlisten_port=51820\nfwmark=0\n"
                 "public_key=%s\npreshared_key=%s\nendpoint=192.0.2.1:51820\n"
                 "persistent_keepalive_interval=25\n"
                 "allowed_ip=10.0.0.2/32\nallowed_ip=fd00::2/128\n\n"
                 % (priv, p1, psk))
    s["two-peers-replace"] = ("replace_peers=true\npublic_key=%s\n"
                              "allowed_ip=10.0.0.0/24\npublic_key=%s\n"
                              "endpoint=[2001:db8::1]:443\n"
                              "replace_allowed_ips=true\n"
                              "allowed_ip=0.0.0.0/0\n\n" % (p1, p2))
    s["remove-peer"] = "public_key=%s\nremove=true\n\n" % p1
    s["update-only"] = ("public_key=%s\nupdate_only=true\n"
                        "persistent_keepalive_interval=0\n\n" % p2)
    s["scoped-endpoint"] = ("public_key=%s\nendpoint=[fe80::1%%1]:5\n"
                            "protocol_version=1\n\n" % p1)
    s["listen-port-only"] = "listen_port=0\n\n"
    s["empty"] = "\n"
    s["bad-key"] = "public_key=%s\n\n" % p1[:40]
    s["bad-port"] = "listen_port=65536\n\n"
    s["no-blank-line"] = "listen_port=7"
    return {k: v.encode() for k, v in s.items()}


# fuzz-wg-config: OVSDB interface options, one "key=value" a line.  The
# *_file values name fixtures of the target (key, key-open, key-bad, psk,
# link, dir, ...).

def b64key(seed):
    return base64.b64encode(bytes((seed * 53 + i * 13 + 7) & 0xff
                                  for i in range(32))).decode()


def seeds_wg_config():
    priv, p1, p2, psk = b64key(1), b64key(2), b64key(3), b64key(4)
    s = {}
    s["full"] = ("private_key_file=key\nlisten_port=51820\n"
                 "address=10.1.1.254/24,fd00:1:1::fe/64\n"
                 "peer.b.public_key=%s\npeer.b.endpoint=127.0.0.1:51821\n"
                 "peer.b.allowed_ips=10.0.0.2/32, fd00::2/128\n"
                 "peer.b.persistent_keepalive=25\n"
                 "peer.b.preshared_key_file=psk\n" % p1)
    s["inline-keys-two-peers"] = ("private_key=%s\n"
                                  "peer.one.public_key=%s\n"
                                  "peer.one.allowed_ips=0.0.0.0/0,::/0\n"
                                  "peer.two-2.public_key=%s\n"
                                  "peer.two-2.preshared_key=%s\n"
                                  "peer.two-2.endpoint=[2001:db8::1]:443\n"
                                  % (priv, p1, p2, psk))
    s["offloads"] = ("udp_gso=false\nudp_gro=true\ntcp_gro=false\n"
                     "uapi_dir=/var/run/wireguard\n")
    s["duplicate-public-key"] = ("peer.x.public_key=%s\n"
                                 "peer.y.public_key=%s\n" % (p1, p1))
    # The public key of the fixture "key".
    s["own-public-key"] = ("private_key_file=key\npeer.self.public_key="
                           "kvoNsH3kEZN0mUPmdoFDhdKhJoe/5q5URh6XxTf9nio=\n")
    s["bad-base64"] = "private_key=not/base64!\npeer.p.public_key=AAAA\n"
    s["bad-cidr"] = ("peer.p.public_key=%s\n"
                     "peer.p.allowed_ips=10.0.0.0/33,fd00::/129\n" % p1)
    s["bad-endpoints"] = ("peer.p.public_key=%s\npeer.p.endpoint=[::1]:0\n"
                          "peer.q.public_key=%s\n"
                          "peer.q.endpoint=1.2.3.4:99999\n" % (p1, p2))
    s["scoped-endpoint"] = ("peer.p.public_key=%s\n"
                            "peer.p.endpoint=[fe80::1%%lo]:51820\n" % p1)
    s["huge-numbers"] = ("listen_port=99999999999999999999\n"
                         "peer.p.public_key=%s\n"
                         "peer.p.persistent_keepalive=4294967296\n" % p1)
    s["key-files"] = ("private_key_file=key-open\n"
                      "peer.a.public_key=%s\npeer.a.preshared_key_file=link\n"
                      "peer.b.public_key=%s\npeer.b.preshared_key_file=dir\n"
                      % (p1, p2))
    s["key-file-bad"] = "private_key_file=key-bad\n"
    s["key-file-missing"] = "private_key_file=nowhere\n"
    s["key-file-space"] = "private_key_file=key-space\n"
    s["both-key-forms"] = "private_key=%s\nprivate_key_file=key\n" % priv
    s["bad-peer-names"] = ("peer..public_key=%s\npeer.a b.endpoint=x\n"
                           % p1)
    s["unknown-options"] = ("colour=blue\npeer.p.public_key=%s\n"
                            "peer.p.mtu=1420\n" % p1)
    s["bad-address"] = "address=10.1.1.300/24,224.0.0.1/4,::/0\n"
    s["duplicate-keys"] = "listen_port=1\nlisten_port=2\naddress=\n"
    s["missing-public-key"] = "peer.p.allowed_ips=10.0.0.0/8\n"
    return {k: v.encode() for k, v in s.items()}


TARGETS = {
    "fuzz-wg-device": seeds_wg_device,
    "fuzz-pkt-gro": seeds_pkt_gro,
    "fuzz-bridge-l2": seeds_bridge_l2,
    "fuzz-wg-uapi": seeds_wg_uapi,
    "fuzz-wg-config": seeds_wg_config,
}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in TARGETS:
        sys.stderr.write("usage: %s {%s} OUTDIR\n"
                         % (sys.argv[0], ",".join(TARGETS)))
        sys.exit(2)
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    for name, data in sorted(TARGETS[sys.argv[1]]().items()):
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
