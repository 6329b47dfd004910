/*
 * Copyright (c) 2026 The ovs-wireguard authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at:
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

#include <config.h>
#include "ul-frame.h"

#include <netinet/icmp6.h>
#include <netinet/ip6.h>
#include <sys/mman.h>
#include <unistd.h>
#include "csum.h"
#include "dp-packet.h"
#include "ovs-compat.h"
#include "pkt-csum.h"
#include "test-ul.h"
#include "util.h"
#include "wgtest.h"

/* The underlay's frames (lib/ul-frame.h): headers against known bytes and
 * OVS's checksum functions, ARP and ND frames against OVS's compose_*(),
 * compose -> classify round trips, every drop reason from a table of
 * one-byte changes to valid frames, and random frames at the end of a
 * mapped page (a read past the frame faults). */

/* Frame buffers, 8-byte aligned, room for a jumbo frame. */
union ult_frame {
    uint8_t b[9200];
    uint64_t align;
};

#define US_MAC ETH_ADDR_C(02, 00, 00, 00, 00, 01)
#define PEER_MAC ETH_ADDR_C(52, 54, 00, 00, 00, 0a)

/* This host, and the peer as a host of its own (to classify what we
 * send). */
static struct ul_frame_host
host_us(void)
{
    struct ul_frame_host h = { .mac = US_MAC, .port = 51820, .mtu = 1500 };
    struct in6_addr a4 = ult_addr("192.0.2.1");

    h.ip4 = in6_addr_get_mapped_ipv4(&a4);
    h.ip6 = ult_addr("2001:db8::1");
    return h;
}

static struct ul_frame_host
host_peer(void)
{
    struct ul_frame_host h = { .mac = PEER_MAC, .port = 40000, .mtu = 1500 };
    struct in6_addr a4 = ult_addr("192.0.2.9");

    h.ip4 = in6_addr_get_mapped_ipv4(&a4);
    h.ip6 = ult_addr("2001:db8::9");
    return h;
}

/* The address of 'h' of the family of 'ipv6', in an in6_addr. */
static struct in6_addr
host_addr(const struct ul_frame_host *h, bool ipv6)
{
    return ipv6 ? h->ip6 : in6_addr_mapped_ipv4(h->ip4);
}

/* Puts a WireGuard-like message of 'len' bytes of 'type' at 'p'. */
static void
put_msg(uint8_t *p, uint8_t type, size_t len)
{
    memset(p, 0, 4);
    p[0] = type;
    for (size_t i = 4; i < len; i++) {
        p[i] = i;
    }
}

static struct ul_frame_tx
tx_to_peer(bool ipv6)
{
    struct ul_frame_host peer = host_peer();
    struct ul_frame_tx tx = {
        .dst_mac = PEER_MAC, .dst_port = 40000, .tos = 0xba, .ttl = 64,
        .ip_id = 0x1234,
    };

    tx.dst = host_addr(&peer, ipv6);
    return tx;
}

/* Egress: known bytes (computed apart, see the commit), OVS's checksums. */
static void
test_ul_frame_known(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_frame_host us = host_us();
    struct ul_frame_tx tx = tx_to_peer(false);
    union ult_frame f;
    const uint8_t *udp;

    put_msg(f.b + UL_FRAME_HEADROOM4, 4, 32);
    WGTEST_CHECK(ul_frame_encap(f.b, 32, &us, &tx) == 42 + 32);
    WGTEST_CHECK_HEX(f.b, UL_FRAME_HEADROOM4,
                     "52540000000a020000000001080045ba003c123400004011e3b8"
                     "c0000201c0000209ca6c9c40002821e9");
    udp = f.b + ETH_HEADER_LEN + IP_HEADER_LEN;
    WGTEST_CHECK(csum(f.b + ETH_HEADER_LEN, IP_HEADER_LEN) == 0);
    WGTEST_CHECK(csum_finish(csum_continue(
        packet_csum_pseudoheader((void *) (f.b + ETH_HEADER_LEN)),
        udp, 40)) == 0);

    tx = tx_to_peer(true);
    put_msg(f.b + UL_FRAME_HEADROOM6, 4, 32);
    WGTEST_CHECK(ul_frame_encap(f.b, 32, &us, &tx) == 62 + 32);
    WGTEST_CHECK_HEX(f.b, UL_FRAME_HEADROOM6,
                     "52540000000a02000000000186dd6ba000000028114020010db8"
                     "00000000000000000000000120010db800000000000000000000"
                     "0009ca6c9c4000284a78");
    udp = f.b + ETH_HEADER_LEN + IPV6_HEADER_LEN;
    WGTEST_CHECK(packet_csum_upperlayer6((void *) (f.b + ETH_HEADER_LEN),
                                         udp, IPPROTO_UDP, 40) == 0);
}
WGTEST_REGISTER("ul-frame-known", test_ul_frame_known);

/* Egress then ingress: the peer gets our message, addresses and TOS. */
struct rt_case {
    bool ipv6;
    uint8_t type;
    size_t len;
    unsigned int mtu;
    bool offload;
};

static void
check_round_trip(const struct rt_case *c)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct ul_frame_tx tx = tx_to_peer(c->ipv6);
    struct in6_addr src = host_addr(&us, c->ipv6);
    size_t room = ul_frame_headroom(c->ipv6);
    static union ult_frame f, msg;
    struct ul_frame_rx rx;
    size_t n;

    us.mtu = peer.mtu = c->mtu;
    tx.csum_offload = c->offload;
    put_msg(msg.b, c->type, c->len);
    memcpy(f.b + room, msg.b, c->len);
    n = ul_frame_encap(f.b, c->len, &us, &tx);
    WGTEST_CHECK(n == room + c->len);
    if (ul_frame_classify(&peer, f.b, n, c->offload, &rx) != UL_FRAME_WG) {
        fprintf(stderr, "%s message of %"PRIuSIZE" bytes: %s\n",
                c->ipv6 ? "IPv6" : "IPv4", c->len,
                ul_frame_reason_name(rx.reason));
        WGTEST_CHECK(false);
    }
    WGTEST_CHECK(rx.ipv6 == c->ipv6);
    WGTEST_CHECK(ipv6_addr_equals(&rx.addr, &src));
    WGTEST_CHECK(eth_addr_equals(rx.mac, us.mac));
    WGTEST_CHECK(rx.src_port == us.port && rx.tos == tx.tos);
    WGTEST_CHECK(rx.payload_ofs == room && rx.payload_len == c->len);
    WGTEST_CHECK_MEM(f.b + rx.payload_ofs, msg.b, c->len);
}

static void
test_ul_frame_round_trip(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct rt_case cases[] = {
        { false, 1, 148, 1500, false }, { true, 1, 148, 1500, false },
        { false, 2, 92, 1500, false }, { true, 2, 92, 1500, false },
        { false, 3, 64, 1500, false }, { true, 3, 64, 1500, false },
        { false, 4, 32, 1500, false }, { true, 4, 32, 1500, false },
        { false, 4, 1471, 1500, false }, { true, 4, 1451, 1500, false },
        { false, 4, 1472, 1500, false }, { true, 4, 1452, 1500, false },
        { false, 4, 8972, 9000, false }, { true, 4, 8952, 9000, false },
        { false, 4, 1440, 1500, true }, { true, 4, 1440, 1500, true },
        { false, 4, 40, 68, false }, { true, 4, 1232, 1280, false },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_round_trip(&cases[i]);
    }
}
WGTEST_REGISTER("ul-frame-round-trip", test_ul_frame_round_trip);

/* Egress limits and the offloaded checksum. */
static void
test_ul_frame_encap_limits(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct ul_frame_tx tx4 = tx_to_peer(false), tx6 = tx_to_peer(true);
    union ult_frame f;
    struct ul_frame_rx rx;
    size_t n;

    memset(f.b, 0xa5, sizeof f.b);
    WGTEST_CHECK(!ul_frame_encap(f.b, 1473, &us, &tx4));   /* > MTU. */
    WGTEST_CHECK(!ul_frame_encap(f.b, 1453, &us, &tx6));
    us.mtu = 65535;
    WGTEST_CHECK(!ul_frame_encap(f.b, 65535 - 27, &us, &tx4));
    us = host_us();
    us.ip6 = in6addr_any;                                   /* No IPv6. */
    WGTEST_CHECK(!ul_frame_encap(f.b, 32, &us, &tx6));
    us.ip4 = 0;
    WGTEST_CHECK(!ul_frame_encap(f.b, 32, &us, &tx4));
    WGTEST_CHECK(f.b[0] == 0xa5 && f.b[UL_FRAME_HEADROOM6 - 1] == 0xa5);

    /* Offloaded: the field holds the pseudo-header sum, which the peer
     * refuses unless its NIC checked the datagram. */
    us = host_us();
    tx4.csum_offload = true;
    put_msg(f.b + UL_FRAME_HEADROOM4, 4, 32);
    n = ul_frame_encap(f.b, 32, &us, &tx4);
    WGTEST_CHECK(get_unaligned_be16((ovs_be16 *) (f.b + 40))
                 == pkt_csum_fold(packet_csum_pseudoheader(
                                      (void *) (f.b + ETH_HEADER_LEN))));
    WGTEST_CHECK(ul_frame_classify(&peer, f.b, n, false, &rx)
                 == UL_FRAME_DROP && rx.reason == UL_FRAME_R_UDP_CSUM);
    WGTEST_CHECK(ul_frame_classify(&peer, f.b, n, true, &rx) == UL_FRAME_WG);
}
WGTEST_REGISTER("ul-frame-encap-limits", test_ul_frame_encap_limits);

/* ARP and ND frames: the bytes of OVS's compose_arp(), compose_nd_ns() and
 * compose_nd_na() for the same fields, and what the peer makes of them. */
static void
check_same(const void *ours, size_t n, struct dp_packet *ovs)
{
    WGTEST_CHECK(n == dp_packet_size(ovs));
    WGTEST_CHECK_MEM(ours, dp_packet_data(ovs), n);
    dp_packet_delete(ovs);
}

static void
check_peer_sees(const void *frame, size_t n, enum ul_frame_kind kind,
                bool ipv6)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct in6_addr src = host_addr(&us, ipv6);
    struct ul_frame_rx rx;

    WGTEST_CHECK(ul_frame_classify(&peer, frame, n, false, &rx) == kind);
    WGTEST_CHECK(ipv6_addr_equals(&rx.addr, &src));
    WGTEST_CHECK(eth_addr_equals(rx.mac, us.mac));
}

static void
test_ul_frame_ctrl(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct dp_packet *b = dp_packet_new(128);
    union ult_frame f;
    size_t n;

    n = ul_frame_arp(f.b, &us, ARP_OP_REQUEST, eth_addr_broadcast,
                     eth_addr_zero, peer.ip4);
    compose_arp(b, ARP_OP_REQUEST, us.mac, eth_addr_zero, true, us.ip4,
                peer.ip4);
    check_same(f.b, n, b);
    check_peer_sees(f.b, n, UL_FRAME_ARP_REQUEST, false);

    n = ul_frame_arp(f.b, &us, ARP_OP_REPLY, peer.mac, peer.mac, peer.ip4);
    b = dp_packet_new(128);
    compose_arp(b, ARP_OP_REPLY, us.mac, peer.mac, false, us.ip4, peer.ip4);
    check_same(f.b, n, b);
    check_peer_sees(f.b, n, UL_FRAME_ARP_REPLY, false);

    n = ul_frame_ns(f.b, &us, &peer.ip6, NULL);
    b = dp_packet_new(128);
    ovs_compat_compose_nd_ns(b, us.mac, &us.ip6, &peer.ip6);
    check_same(f.b, n, b);
    check_peer_sees(f.b, n, UL_FRAME_NS, true);
    n = ul_frame_ns(f.b, &us, &peer.ip6, &peer.mac);       /* Probe. */
    WGTEST_CHECK(eth_addr_equals(((struct eth_header *) f.b)->eth_dst,
                                 peer.mac));
    check_peer_sees(f.b, n, UL_FRAME_NS, true);

    n = ul_frame_na(f.b, &us, peer.mac, &peer.ip6);
    b = dp_packet_new(128);
    compose_nd_na(b, us.mac, peer.mac, &us.ip6, &peer.ip6,
                  htonl(ND_RSO_SOLICITED | ND_RSO_OVERRIDE));
    check_same(f.b, n, b);
    check_peer_sees(f.b, n, UL_FRAME_NA, true);
}
WGTEST_REGISTER("ul-frame-ctrl", test_ul_frame_ctrl);

/* Ingress: a table of changes to valid frames from the peer. */

enum base { WG4, WG6, ARP, NS, NA, N_BASES };

/* Builds the base frame, field by field for WireGuard (the ARP and ND
 * ones by the peer's ul_frame_*(), checked against OVS above). */
static void refix(uint8_t *p, size_t len);

/* Writes the IPv6 (or IPv4) header of a datagram of 'udp_len' bytes from
 * 's' to 'd' at 'p'. */
static void
mk_ip(uint8_t *p, bool v6, const struct in6_addr *s, const struct in6_addr *d,
      size_t udp_len)
{
    if (v6) {
        p[0] = 0x60;
        p[5] = udp_len;                     /* Payload length. */
        p[6] = IPPROTO_UDP;
        p[7] = 64;
        memcpy(p + 8, s, 16);
        memcpy(p + 24, d, 16);
    } else {
        p[0] = 0x45;
        p[3] = IP_HEADER_LEN + udp_len;     /* Total length. */
        p[8] = 64;
        p[9] = IPPROTO_UDP;
        memcpy(p + 12, &s->s6_addr[12], 4);
        memcpy(p + 16, &d->s6_addr[12], 4);
    }
}

/* A WireGuard keepalive-sized message from the peer to us. */
static size_t
mk_wg(uint8_t *p, bool v6)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct in6_addr s = host_addr(&peer, v6), d = host_addr(&us, v6);
    size_t l4 = ul_frame_headroom(v6) - UDP_HEADER_LEN, n = l4 + 8 + 32;

    memset(p, 0, n);
    memcpy(p, &us.mac, 6);
    memcpy(p + 6, &peer.mac, 6);
    p[12] = v6 ? 0x86 : 0x08;
    p[13] = v6 ? 0xdd : 0x00;
    mk_ip(p + ETH_HEADER_LEN, v6, &s, &d, 40);
    p[l4] = 40000 >> 8;
    p[l4 + 1] = 40000 & 0xff;
    p[l4 + 2] = 51820 >> 8;
    p[l4 + 3] = 51820 & 0xff;
    p[l4 + 5] = 40;                         /* UDP length. */
    put_msg(p + l4 + 8, 4, 32);
    refix(p, n);
    return n;
}

static size_t
mk_base(uint8_t *p, enum base base)
{
    struct ul_frame_host us = host_us(), peer = host_peer();

    switch (base) {
    case ARP:
        return ul_frame_arp(p, &peer, ARP_OP_REQUEST, eth_addr_broadcast,
                            eth_addr_zero, us.ip4);
    case NS:
        return ul_frame_ns(p, &peer, &us.ip6, NULL);
    case NA:
        return ul_frame_na(p, &peer, us.mac, &us.ip6);
    case WG4:
    case WG6:
    case N_BASES:
    default:
        return mk_wg(p, base == WG6);
    }
}

/* Recomputes the IPv4 header checksum and the UDP or ICMPv6 checksum of
 * 'p' with OVS's functions, where the headers allow. */
static void
refix4(uint8_t *p, size_t len)
{
    struct ip_header *ip = (void *) (p + ETH_HEADER_LEN);
    size_t ihl = IP_IHL(ip->ip_ihl_ver) * 4, tot = ntohs(ip->ip_tot_len);
    struct udp_header *udp = (void *) ((uint8_t *) ip + ihl);
    ovs_be16 c;

    if (ihl < IP_HEADER_LEN || ETH_HEADER_LEN + ihl > len) {
        return;
    }
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, ihl);
    if (ip->ip_proto == IPPROTO_UDP && tot >= ihl + 8
        && ETH_HEADER_LEN + tot <= len) {
        udp->udp_csum = 0;
        c = csum_finish(csum_continue(packet_csum_pseudoheader(ip), udp,
                                      tot - ihl));
        udp->udp_csum = c ? c : htons(0xffff);
    }
}

static void
refix6(uint8_t *p, size_t len)
{
    struct ovs_16aligned_ip6_hdr *ip6 = (void *) (p + ETH_HEADER_LEN);
    size_t plen = ntohs(ip6->ip6_plen);
    uint8_t *l4 = p + ETH_HEADER_LEN + IPV6_HEADER_LEN;
    size_t ofs = ip6->ip6_nxt == IPPROTO_UDP ? 6 : 2;
    ovs_be16 c;

    if (ETH_HEADER_LEN + IPV6_HEADER_LEN + plen > len || plen < 8
        || (ip6->ip6_nxt != IPPROTO_UDP && ip6->ip6_nxt != IPPROTO_ICMPV6)) {
        return;
    }
    memset(l4 + ofs, 0, 2);
    c = packet_csum_upperlayer6(ip6, l4, ip6->ip6_nxt, plen);
    if (!c && ip6->ip6_nxt == IPPROTO_UDP) {
        c = htons(0xffff);
    }
    memcpy(l4 + ofs, &c, 2);
}

static void
refix(uint8_t *p, size_t len)
{
    if (len >= 34 && p[12] == 0x08 && p[13] == 0x00) {
        refix4(p, len);
    } else if (len >= 54 && p[12] == 0x86 && p[13] == 0xdd) {
        refix6(p, len);
    }
}

enum special {
    NONE,
    UDP_CSUM_0,             /* No UDP checksum. */
    CSUM_GOOD,              /* The NIC checked the UDP checksum. */
    SRC_OURS,               /* Ethernet source is our MAC. */
    FROM_ANY,               /* IPv6 source :: (then refixed). */
    NO_IP4,                 /* The host has no IPv4 address. */
    NO_IP6,                 /* The host has no IPv6 address. */
};

struct drop_case {
    const char *what;
    enum base base;
    int ofs;                /* Byte to change (-1: none)... */
    uint8_t xor;            /* ...by xor-ing this in. */
    size_t len;             /* 0: the base's length. */
    bool refix;             /* Checksums recomputed after the change. */
    enum special special;
    enum ul_frame_kind kind;
    enum ul_frame_reason reason;
};

#define OK_(KIND) UL_FRAME_##KIND, UL_FRAME_R_OK
#define DROP_(R) UL_FRAME_DROP, UL_FRAME_R_##R

static const struct drop_case drop_cases[] = {
    { "v4", WG4, -1, 0, 0, false, NONE, OK_(WG) },
    { "v4 padded", WG4, -1, 0, 80, false, NONE, OK_(WG) },
    { "v4 DF", WG4, 20, 0x40, 0, true, NONE, OK_(WG) },
    { "v4 no UDP csum", WG4, -1, 0, 0, false, UDP_CSUM_0, OK_(WG) },
    { "v4 NIC csum", WG4, 41, 1, 0, false, CSUM_GOOD, OK_(WG) },
    { "short", WG4, -1, 0, 10, false, NONE, DROP_(ETH_SHORT) },
    { "oversized", WG4, -1, 0, 1515, false, NONE, DROP_(OVERSIZED) },
    { "src group", WG4, 6, 1, 0, false, NONE, DROP_(SRC_MAC) },
    { "src ours", WG4, -1, 0, 0, false, SRC_OURS, DROP_(SRC_MAC) },
    { "dst other", WG4, 5, 0x10, 0, false, NONE, DROP_(NOT_OUR_MAC) },
    { "dst group", WG4, 0, 1, 0, false, NONE, DROP_(NOT_OUR_MAC) },
    { "vlan", WG4, 12, 0x89, 0, false, NONE, DROP_(VLAN) },
    { "ethertype", WG4, 12, 0x80, 0, false, NONE, DROP_(ETHERTYPE) },
    { "ip short", WG4, -1, 0, 30, false, NONE, DROP_(TRUNCATED) },
    { "ip cut", WG4, -1, 0, 40, false, NONE, DROP_(TRUNCATED) },
    { "ihl 4", WG4, 14, 0x01, 0, false, NONE, DROP_(IP_HDR) },
    { "version", WG4, 14, 0x20, 0, false, NONE, DROP_(IP_HDR) },
    { "tot < ihl", WG4, 17, 0x30, 0, false, NONE, DROP_(IP_HDR) },
    { "tot > frame", WG4, 16, 0x10, 0, false, NONE, DROP_(TRUNCATED) },
    { "ip csum", WG4, 25, 1, 0, false, NONE, DROP_(IP_CSUM) },
    { "MF", WG4, 20, 0x20, 0, true, NONE, DROP_(FRAGMENT) },
    { "offset", WG4, 21, 1, 0, true, NONE, DROP_(FRAGMENT) },
    { "dst ip", WG4, 33, 1, 0, true, NONE, DROP_(NOT_OUR_IP) },
    { "no IPv4", WG4, -1, 0, 0, false, NO_IP4, DROP_(NOT_OUR_IP) },
    { "tcp", WG4, 23, 17 ^ 6, 0, true, NONE, DROP_(NOT_UDP) },
    { "udp cut", WG4, 17, 0x24, 0, true, NONE, DROP_(TRUNCATED) },
    { "udp len", WG4, 39, 1, 0, true, NONE, DROP_(UDP_LEN) },
    { "port", WG4, 37, 1, 0, true, NONE, DROP_(NOT_OUR_PORT) },
    { "udp csum", WG4, 41, 1, 0, false, NONE, DROP_(UDP_CSUM) },
    { "wg type", WG4, 42, 1, 0, true, NONE, DROP_(NOT_WG) },
    { "wg reserved", WG4, 43, 1, 0, true, NONE, DROP_(NOT_WG) },
    { "wg init len", WG4, 42, 5, 0, true, NONE, DROP_(NOT_WG) },

    { "v6", WG6, -1, 0, 0, false, NONE, OK_(WG) },
    { "v6 version", WG6, 14, 0x20, 0, false, NONE, DROP_(IP_HDR) },
    { "v6 short", WG6, -1, 0, 50, false, NONE, DROP_(TRUNCATED) },
    { "v6 plen", WG6, 18, 0x10, 0, false, NONE, DROP_(TRUNCATED) },
    { "v6 fragment", WG6, 20, 17 ^ 44, 0, true, NONE, DROP_(FRAGMENT) },
    { "v6 tcp", WG6, 20, 17 ^ 6, 0, true, NONE, DROP_(NOT_UDP) },
    { "v6 dst", WG6, 53, 1, 0, true, NONE, DROP_(NOT_OUR_IP) },
    { "no IPv6", WG6, -1, 0, 0, false, NO_IP6, DROP_(NOT_OUR_IP) },
    { "v6 port", WG6, 57, 1, 0, true, NONE, DROP_(NOT_OUR_PORT) },
    { "v6 udp len", WG6, 59, 1, 0, true, NONE, DROP_(UDP_LEN) },
    { "v6 udp csum", WG6, 61, 1, 0, false, NONE, DROP_(UDP_CSUM) },
    { "v6 no csum", WG6, -1, 0, 0, false, UDP_CSUM_0, DROP_(UDP_CSUM) },

    { "arp", ARP, -1, 0, 0, false, NONE, OK_(ARP_REQUEST) },
    { "arp padded", ARP, -1, 0, 60, false, NONE, OK_(ARP_REQUEST) },
    { "arp reply", ARP, 21, 3, 0, false, NONE, OK_(ARP_REPLY) },
    { "arp op", ARP, 21, 2, 0, false, NONE, DROP_(ARP_OP) },
    { "arp hln", ARP, 18, 1, 0, false, NONE, DROP_(ARP_BAD) },
    { "arp sha", ARP, 22, 1, 0, false, NONE, DROP_(ARP_BAD) },
    { "arp short", ARP, -1, 0, 30, false, NONE, DROP_(TRUNCATED) },
    { "arp other", ARP, 41, 1, 0, false, NONE, DROP_(ARP_NOT_FOR_US) },
    { "arp no IPv4", ARP, -1, 0, 0, false, NO_IP4, DROP_(ARP_NOT_FOR_US) },

    { "ns", NS, -1, 0, 0, false, NONE, OK_(NS) },
    { "ns hlim", NS, 21, 1, 0, false, NONE, DROP_(ND_BAD) },
    { "ns code", NS, 55, 1, 0, false, NONE, DROP_(ND_BAD) },
    { "ns csum", NS, 57, 1, 0, false, NONE, DROP_(ND_BAD) },
    { "ns option", NS, 79, 1, 0, true, NONE, DROP_(ND_BAD) },
    { "ns target", NS, 77, 1, 0, true, NONE, DROP_(ND_NOT_FOR_US) },
    { "ns dad", NS, -1, 0, 0, true, FROM_ANY, DROP_(ND_DAD) },
    { "ns short", NS, 19, 0x34, 0, false, NONE, DROP_(TRUNCATED) },
    { "icmp6 short", NS, 19, 0x22, 0, false, NONE, DROP_(TRUNCATED) },
    { "echo", NS, 54, 135 ^ 128, 0, true, NONE, DROP_(ICMP6_OTHER) },
    { "ns group", NS, 53, 1, 0, true, NONE, DROP_(NOT_OUR_IP) },
    { "na", NA, -1, 0, 0, false, NONE, OK_(NA) },
    { "na group", NA, 62, 0x20 ^ 0xff, 0, true, NONE, DROP_(ND_BAD) },
};

/* Applies the change of 'c' to the frame 'p' of base length 'n' and to the
 * host 'us'. */
static void
apply(const struct drop_case *c, uint8_t *p, size_t n,
      struct ul_frame_host *us)
{
    size_t csum_ofs = c->base == WG6 ? 60 : 40;

    if (c->ofs >= 0) {
        p[c->ofs] ^= c->xor;
    }
    if (c->special == UDP_CSUM_0) {
        memset(p + csum_ofs, 0, 2);
    } else if (c->special == SRC_OURS) {
        memcpy(p + 6, &us->mac, ETH_ADDR_LEN);
    } else if (c->special == FROM_ANY) {
        memset(p + 22, 0, 16);
    } else if (c->special == NO_IP4) {
        us->ip4 = 0;
    } else if (c->special == NO_IP6) {
        us->ip6 = in6addr_any;
    }
    if (c->refix) {
        refix(p, n);
    }
}

static void
test_ul_frame_drops(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_frame_counts counts;

    memset(&counts, 0, sizeof counts);
    for (size_t i = 0; i < ARRAY_SIZE(drop_cases); i++) {
        const struct drop_case *c = &drop_cases[i];
        struct ul_frame_host us = host_us();
        union ult_frame f;
        struct ul_frame_rx rx;
        enum ul_frame_kind kind;
        size_t n;

        memset(f.b, 0, sizeof f.b);
        n = mk_base(f.b, c->base);
        apply(c, f.b, n, &us);
        kind = ul_frame_classify(&us, f.b, c->len ? c->len : n,
                                 c->special == CSUM_GOOD, &rx);
        ul_frame_count(&counts, rx.reason);
        if (kind != c->kind || rx.reason != c->reason) {
            fprintf(stderr, "%s: kind %d reason %s, want %d %s\n", c->what,
                    kind, ul_frame_reason_name(rx.reason), c->kind,
                    ul_frame_reason_name(c->reason));
            WGTEST_CHECK(false);
        }
    }
    /* Every reason was hit. */
    for (int r = 0; r < UL_FRAME_N_REASONS; r++) {
        if (!counts.reasons[r]) {
            fprintf(stderr, "never hit: %s\n", ul_frame_reason_name(r));
            WGTEST_CHECK(false);
        }
    }
}
WGTEST_REGISTER("ul-frame-drops", test_ul_frame_drops);

/* What classifying a WireGuard frame tells about its sender. */
static void
test_ul_frame_sender(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_frame_host us = host_us(), peer = host_peer();
    struct in6_addr src6 = peer.ip6;
    union ult_frame f;
    struct ul_frame_rx rx;
    size_t n;

    for (enum base b = WG4; b <= WG6; b++) {
        struct in6_addr src = host_addr(&peer, b == WG6);

        n = mk_base(f.b, b);
        WGTEST_CHECK(ul_frame_classify(&us, f.b, n, false, &rx)
                     == UL_FRAME_WG);
        WGTEST_CHECK(ipv6_addr_equals(&rx.addr, &src));
        WGTEST_CHECK(rx.src_port == 40000 && rx.payload_len == 32);
        WGTEST_CHECK(eth_addr_equals(rx.mac, peer.mac));
    }
    n = mk_base(f.b, NA);
    WGTEST_CHECK(ul_frame_classify(&us, f.b, n, false, &rx) == UL_FRAME_NA);
    WGTEST_CHECK(ipv6_addr_equals(&rx.addr, &src6));
    WGTEST_CHECK(eth_addr_equals(rx.mac, peer.mac));
    WGTEST_CHECK(!strcmp(ul_frame_reason_name(UL_FRAME_R_NOT_OUR_PORT),
                         "ul_not_our_port"));
}
WGTEST_REGISTER("ul-frame-sender", test_ul_frame_sender);

/* Random frames, each ending at the end of a readable page followed by an
 * unreadable one: classify never reads past the frame (or the test dies
 * of SIGSEGV), its verdict and reason agree, and a WireGuard verdict's
 * payload lies in the frame. */
static void
check_fuzz_verdict(enum ul_frame_kind kind, const struct ul_frame_rx *rx,
                   size_t len)
{
    WGTEST_CHECK(rx->reason < UL_FRAME_N_REASONS);
    WGTEST_CHECK((kind == UL_FRAME_DROP) == (rx->reason != UL_FRAME_R_OK));
    if (kind == UL_FRAME_WG) {
        WGTEST_CHECK(rx->payload_ofs >= UL_FRAME_HEADROOM4);
        WGTEST_CHECK(rx->payload_ofs + rx->payload_len <= len);
        WGTEST_CHECK(rx->payload_len >= 32);
    }
}

/* A random frame in 'p' built from one of 'bases' (or random bytes);
 * returns its length. */
static size_t
fuzz_frame(uint8_t *p, uint8_t bases[N_BASES][128], const size_t *lens)
{
    uint64_t r = wgtest_random();
    size_t n;

    if (r % 8 == 0) {
        n = wgtest_random() % 128;
        wgtest_random_fill(p, n);
        return n;
    }
    n = lens[r % N_BASES];
    memcpy(p, bases[r % N_BASES], n);
    for (int flips = (r >> 8) % 4; flips > 0; flips--) {
        p[wgtest_random() % n] ^= 1 << (wgtest_random() % 8);
    }
    return r & (1 << 16) ? wgtest_random() % (n + 1) : n;
}

static void
test_ul_frame_fuzz(int argc, char *argv[])
{
    long int page = sysconf(_SC_PAGESIZE);
    int iterations = argc > 1 ? atoi(argv[1]) : 200000;
    struct ul_frame_host us = host_us();
    uint8_t bases[N_BASES][128], *area, buf[128];
    size_t lens[N_BASES], seen[UL_FRAME_DROP + 1] = { 0 };

    area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    WGTEST_CHECK(area != MAP_FAILED);
    WGTEST_CHECK(!mprotect(area + page, page, PROT_NONE));
    for (enum base b = 0; b < N_BASES; b++) {
        lens[b] = mk_base(bases[b], b);
    }
    wgtest_random_seed(39);
    for (int i = 0; i < iterations; i++) {
        size_t n = fuzz_frame(buf, bases, lens);
        uint8_t *p = area + page - n - (n & 1);     /* 16-bit aligned. */
        struct ul_frame_rx rx;
        enum ul_frame_kind kind;

        memcpy(p, buf, n);
        kind = ul_frame_classify(&us, p, n, i & 1, &rx);
        check_fuzz_verdict(kind, &rx, n);
        seen[kind]++;
    }
    /* The bases' verdicts all came out (a reply needs two flips). */
    for (int k = 0; k <= UL_FRAME_DROP && iterations >= 10000; k++) {
        printf("%d: %"PRIuSIZE"\n", k, seen[k]);
        WGTEST_CHECK(seen[k] > 0 || k == UL_FRAME_ARP_REPLY);
    }
    WGTEST_CHECK(!munmap(area, 2 * page));
}
WGTEST_REGISTER("ul-frame-fuzz", test_ul_frame_fuzz);
