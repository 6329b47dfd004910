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
#include "test-bridge-l2.h"

#include <arpa/inet.h>
#include <limits.h>
#include <netinet/icmp6.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "dp-packet.h"
#include "ovs-compat.h"
#include "pkt-ip.h"
#include "util.h"
#include "wgtest.h"

/* Unit tests of the L2 adapter's bridge-to-peer side: proxy ARP and ND and
 * the classification of other frames; and the helpers of test-bridge-l2.h. */

ovs_be32
l2t_ip4(const char *s)
{
    ovs_be32 a;

    WGTEST_CHECK(inet_pton(AF_INET, s, &a) == 1);
    return a;
}

struct in6_addr
l2t_ip6(const char *s)
{
    struct in6_addr a;

    WGTEST_CHECK(inet_pton(AF_INET6, s, &a) == 1);
    return a;
}

static bool
prefix_match(const uint8_t *a, const uint8_t *p, unsigned int plen)
{
    for (unsigned int i = 0; i < plen; i++) {
        int bit = 7 - i % 8;

        if (((a[i / 8] >> bit) & 1) != ((p[i / 8] >> bit) & 1)) {
            return false;
        }
    }
    return true;
}

bool
l2t_routable(void *aux, int family, const void *addr)
{
    const struct l2t_routes *r = aux;

    for (size_t i = 0; !r->all && r->prefixes[i]; i++) {
        bool v6 = strchr(r->prefixes[i], ':') != NULL;
        struct in6_addr p6;
        unsigned int plen;
        ovs_be32 p4;
        char *err = (v6 ? ipv6_parse_cidr(r->prefixes[i], &p6, &plen)
                     : ip_parse_cidr(r->prefixes[i], &p4, &plen));

        WGTEST_CHECK(!err);
        if ((family == AF_INET6) == v6
            && prefix_match(addr, v6 ? (void *) &p6 : (void *) &p4, plen)) {
            return true;
        }
    }
    return r->all;
}

struct bridge_l2 *
l2t_new(const char *own, const struct bridge_l2_limits *limits)
{
    struct bridge_l2 *l2 = bridge_l2_create(port_mac, limits);
    char *err = bridge_l2_set_addresses(l2, own);

    WGTEST_CHECK(!err);
    return l2;
}

/* Frame construction. */

uint8_t *
l2t_put_eth(uint8_t *p, struct eth_addr dst, struct eth_addr src,
            uint16_t type)
{
    struct eth_header *eth = (struct eth_header *) p;

    eth->eth_dst = dst;
    eth->eth_src = src;
    eth->eth_type = htons(type);
    return p + ETH_HEADER_LEN;
}

size_t
l2t_arp(uint8_t *p, struct eth_addr eth_dst, struct eth_addr sha,
        uint16_t op, const char *spa, const char *tpa)
{
    struct arp_eth_header *arp = (void *) l2t_put_eth(p, eth_dst, sha,
                                                      ETH_TYPE_ARP);

    arp->ar_hrd = htons(1);
    arp->ar_pro = htons(0x0800);
    arp->ar_hln = 6;
    arp->ar_pln = 4;
    arp->ar_op = htons(op);
    arp->ar_sha = sha;
    put_16aligned_be32(&arp->ar_spa, l2t_ip4(spa));
    arp->ar_tha = eth_addr_zero;
    put_16aligned_be32(&arp->ar_tpa, l2t_ip4(tpa));
    return ETH_HEADER_LEN + ARP_ETH_HEADER_LEN;
}

/* An IPv4 packet of 'tot' bytes (UDP, pattern payload) at 'p'. */
size_t
l2t_ip4_pkt(uint8_t *p, const char *src, const char *dst, size_t tot)
{
    struct ip_header *ip = (void *) p;

    memset(p, 0, IP_HEADER_LEN);
    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tot_len = htons(tot);
    ip->ip_id = htons(0x1234);
    ip->ip_ttl = 64;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, l2t_ip4(src));
    put_16aligned_be32(&ip->ip_dst, l2t_ip4(dst));
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    for (size_t i = IP_HEADER_LEN; i < tot; i++) {
        p[i] = i * 7;
    }
    return tot;
}

/* An IPv6 packet with 'plen' bytes of payload after the header. */
size_t
l2t_ip6_pkt(uint8_t *p, const char *src, const char *dst, uint8_t nxt,
            uint8_t hlim, size_t plen)
{
    struct ovs_16aligned_ip6_hdr *ip = (void *) p;
    struct in6_addr s = l2t_ip6(src), d = l2t_ip6(dst);

    put_16aligned_be32(&ip->ip6_flow, htonl(0x60000000));
    ip->ip6_plen = htons(plen);
    ip->ip6_nxt = nxt;
    ip->ip6_hlim = hlim;
    memcpy(&ip->ip6_src, &s, sizeof s);
    memcpy(&ip->ip6_dst, &d, sizeof d);
    for (size_t i = 0; i < plen; i++) {
        p[IPV6_HEADER_LEN + i] = i * 3;
    }
    return IPV6_HEADER_LEN + plen;
}

/* An NS/NA/RS/RA frame with an optional link-layer option ('lla' not
 * NULL), correct ICMPv6 checksum. */
size_t
l2t_nd(uint8_t *p, struct eth_addr eth_dst, struct eth_addr eth_src,
       const char *src, const char *dst, uint8_t type, const char *target,
       const struct eth_addr *lla, uint8_t hlim)
{
    uint8_t *l3 = l2t_put_eth(p, eth_dst, eth_src, ETH_TYPE_IPV6);
    size_t plen = ND_MSG_LEN + (lla ? ND_LLA_OPT_LEN : 0);
    struct ovs_16aligned_ip6_hdr *ip = (void *) l3;
    struct ovs_nd_msg *nd = (void *) (ip + 1);
    struct in6_addr t = l2t_ip6(target ? target : "::");

    l2t_ip6_pkt(l3, src, dst, IPPROTO_ICMPV6, hlim, plen);
    memset(nd, 0, plen);
    nd->icmph.icmp6_type = type;
    memcpy(&nd->target, &t, sizeof t);
    if (lla) {
        nd->options[0].type = (type == ND_NEIGHBOR_ADVERT
                               ? ND_OPT_TARGET_LINKADDR
                               : ND_OPT_SOURCE_LINKADDR);
        nd->options[0].len = 1;
        nd->options[0].mac = *lla;
    }
    nd->icmph.icmp6_cksum = packet_csum_upperlayer6(ip, nd, IPPROTO_ICMPV6,
                                                    plen);
    return ETH_HEADER_LEN + IPV6_HEADER_LEN + plen;
}

/* Copies the frame '*pkt' (if any) of 'len' bytes to 'buf' and frees
 * it. */
static void
l2t_take(struct dp_packet **pkt, size_t len, uint8_t *buf)
{
    if (*pkt) {
        WGTEST_CHECK(dp_packet_size(*pkt) == len
                     && len <= BRIDGE_L2_ND_FRAME_MAX);
        memcpy(buf, dp_packet_data(*pkt), len);
        dp_packet_delete(*pkt);
        *pkt = NULL;
    }
}

/* Every frame is also judged the unlocked way, which must say "to a
 * peer" for exactly the frames the locked way sends to one, with the
 * same result. */
enum bridge_l2_eg_action
l2t_from_bridge(struct bridge_l2 *l2, const void *frame, size_t len,
                long long now, const struct l2t_routes *routes, uint8_t *reply,
                struct bridge_l2_egress *out)
{
    struct bridge_l2_egress fast;
    enum bridge_l2_eg_action action;
    unsigned long long int parses;
    struct pkt_ip_frame ip;
    struct in6_addr src;
    bool to_peer;

    /* The unlocked way takes the frame's one parse and parses nothing
     * more; the locked way, given none, parses it itself. */
    pkt_ip_frame_parse(&ip, frame, len, ETH_HEADER_LEN);
    parses = pkt_ip_parses_for_test();
    to_peer = bridge_l2_from_bridge_unlocked(l2, frame, len, &ip, &fast,
                                             &src);
    WGTEST_CHECK(pkt_ip_parses_for_test() == parses);
    action = bridge_l2_from_bridge(l2, frame, len, NULL, now, l2t_routable,
                                   CONST_CAST(struct l2t_routes *, routes),
                                   out);
    WGTEST_CHECK(to_peer == (action == BRIDGE_L2_EG_TO_PEER));
    WGTEST_CHECK(!to_peer
                 || (fast.l3_ofs == out->l3_ofs && fast.l3_len == out->l3_len
                     && fast.family == out->family
                     && !memcmp(fast.dst, out->dst, sizeof fast.dst)
                     && ipv6_addr_equals(&fast.src, &out->src)
                     && ipv6_addr_equals(&src, &out->src)));
    l2t_take(&out->reply, out->reply_len, reply);
    return action;
}

enum bridge_l2_in_action
l2t_to_bridge_data(struct bridge_l2 *l2, const void *ip, size_t len,
                   long long now, uint8_t *solicit,
                   struct bridge_l2_ingress *out)
{
    struct dp_packet *pkt = dp_packet_clone_data(ip, len);
    enum bridge_l2_in_action action;

    ovs_compat_pkt_set_tso(pkt, false, 1000);
    action = bridge_l2_to_bridge(l2, pkt, now, out);
    if (action != BRIDGE_L2_IN_QUEUED) {
        dp_packet_delete(pkt);
    }
    l2t_take(&out->solicit, out->solicit_len, solicit);
    return action;
}

enum bridge_l2_in_action
l2t_to_bridge(struct bridge_l2 *l2, const char *src, const char *dst,
              long long now, uint8_t *solicit, struct bridge_l2_ingress *out)
{
    union l2t_frame pkt;
    size_t len = (strchr(dst, ':')
                  ? l2t_ip6_pkt(pkt.b, src, dst, IPPROTO_UDP, 64, 60)
                  : l2t_ip4_pkt(pkt.b, src, dst, 100));

    return l2t_to_bridge_data(l2, pkt.b, len, now, solicit, out);
}

void
l2t_check_deliver(struct bridge_l2 *l2, const char *dst, struct eth_addr mac,
                  long long now)
{
    const char *src = strchr(dst, ':') ? "fd00:1:2::9" : "10.1.2.9";
    struct bridge_l2_ingress out;
    union l2t_frame sol;

    fprintf(stderr, "deliver to %s\n", dst);
    WGTEST_CHECK(l2t_to_bridge(l2, src, dst, now, sol.b, &out)
                 == BRIDGE_L2_IN_DELIVER);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_OK && out.solicit_len == 0);
    WGTEST_CHECK(eth_addr_equals(out.eth.eth_dst, mac));
    WGTEST_CHECK(eth_addr_equals(out.eth.eth_src, port_mac));
    WGTEST_CHECK(out.eth.eth_type == htons(strchr(dst, ':') ? ETH_TYPE_IPV6
                                           : ETH_TYPE_IP));
}

void
l2t_feed(struct bridge_l2 *l2, const void *frame, size_t len, long long now,
         enum bridge_l2_reason reason)
{
    struct bridge_l2_egress out;
    union l2t_frame reply;

    l2t_from_bridge(l2, frame, len, now, &l2t_peers, reply.b, &out);
    WGTEST_CHECK(out.reason == reason);
}

/* Proxy ARP. */

struct arp_case {
    const char *name;
    struct eth_addr eth_dst;
    uint16_t op;
    const char *spa, *tpa;
    bool route_all;
    enum bridge_l2_eg_action action;
    enum bridge_l2_reason reason;
};

static const struct arp_case arp_cases[] = {
    { "routable target", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "10.1.2.9", false, BRIDGE_L2_EG_REPLY, BRIDGE_L2_R_OK },
    { "own address", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "10.1.1.254", false, BRIDGE_L2_EG_REPLY, BRIDGE_L2_R_OK },
    { "unicast refresh", ETH_ADDR_C(02, 00, 00, 00, 00, 01), 1,
      "10.1.1.5", "10.1.2.9", false, BRIDGE_L2_EG_REPLY, BRIDGE_L2_R_OK },
    { "gratuitous", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.2.9", "10.1.2.9", false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ARP_GRATUITOUS },
    { "DAD probe", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "0.0.0.0", "10.1.2.9", false, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ARP_PROBE },
    { "seen locally", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "10.1.2.7", false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ARP_LOCAL },
    { "seen locally, 0/0", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "10.1.2.7", true, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ARP_LOCAL },
    { "not routable", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "10.1.1.6", false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ARP_UNROUTABLE },
    { "multicast target", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 1,
      "10.1.1.5", "224.0.0.1", true, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ARP_UNROUTABLE },
    { "reply", ETH_ADDR_C(02, 00, 00, 00, 00, 01), 2,
      "10.1.1.5", "10.1.1.254", false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ARP_REPLY },
    { "rarp op", ETH_ADDR_C(ff, ff, ff, ff, ff, ff), 3,
      "10.1.1.5", "10.1.2.9", false, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ARP_OP },
    { "to another host", ETH_ADDR_C(52, 54, 00, 00, 00, 0b), 1,
      "10.1.1.5", "10.1.2.9", false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_NOT_FOR_US },
};

static void
check_arp_reply(const uint8_t *r, size_t len, const struct arp_case *c)
{
    const struct eth_header *eth = (const void *) r;
    const struct arp_eth_header *arp = (const void *) (eth + 1);

    WGTEST_CHECK(len == 42);
    WGTEST_CHECK(eth_addr_equals(eth->eth_dst, mac_a));
    WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
    WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_ARP));
    WGTEST_CHECK(arp->ar_hrd == htons(1) && arp->ar_pro == htons(0x0800));
    WGTEST_CHECK(arp->ar_hln == 6 && arp->ar_pln == 4);
    WGTEST_CHECK(arp->ar_op == htons(ARP_OP_REPLY));
    WGTEST_CHECK(eth_addr_equals(arp->ar_sha, port_mac));
    WGTEST_CHECK(get_16aligned_be32(&arp->ar_spa) == l2t_ip4(c->tpa));
    WGTEST_CHECK(eth_addr_equals(arp->ar_tha, mac_a));
    WGTEST_CHECK(get_16aligned_be32(&arp->ar_tpa) == l2t_ip4(c->spa));
}

static void
test_l2_arp(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(arp_cases); i++) {
        const struct arp_case *c = &arp_cases[i];
        struct bridge_l2 *l2 = l2t_new(OWN, NULL);
        union l2t_frame f, reply;
        struct bridge_l2_egress out;
        size_t len;

        /* Guest C announces 10.1.2.7, inside a peer's allowed IPs. */
        len = l2t_arp(f.b, mac_bcast, mac_c, 1, "10.1.2.7", "10.1.2.7");
        WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 0, &l2t_peers, reply.b,
                                     &out) == BRIDGE_L2_EG_DROP);
        WGTEST_CHECK(out.reason == BRIDGE_L2_R_ARP_GRATUITOUS);

        len = l2t_arp(f.b, c->eth_dst, mac_a, c->op, c->spa, c->tpa);
        memset(reply.b, 0xa5, sizeof reply.b);
        fprintf(stderr, "arp: %s\n", c->name);
        WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 1000,
                                     c->route_all ? &l2t_all : &l2t_peers,
                                     reply.b, &out) == c->action);
        WGTEST_CHECK(out.reason == c->reason);
        if (c->action == BRIDGE_L2_EG_REPLY) {
            check_arp_reply(reply.b, out.reply_len, c);
        } else {
            WGTEST_CHECK(out.reply_len == 0 && reply.b[0] == 0xa5);
            WGTEST_CHECK(bridge_l2_reason_count_for_test(l2, c->reason) == 1
                         + (c->reason == BRIDGE_L2_R_ARP_GRATUITOUS));
        }
        bridge_l2_destroy(l2);
    }

    /* Malformed: truncated, wrong hardware length. */
    struct bridge_l2 *l2 = l2t_new(OWN, NULL);
    struct bridge_l2_egress out;
    union l2t_frame f, reply;
    size_t len = l2t_arp(f.b, mac_bcast, mac_a, 1, "10.1.1.5", "10.1.2.9");

    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len - 1, 0, &l2t_peers, reply.b,
                                 &out) == BRIDGE_L2_EG_DROP);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_ARP_BAD);
    f.b[ETH_HEADER_LEN + 4] = 8;
    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 0, &l2t_peers, reply.b,
                                 &out) == BRIDGE_L2_EG_DROP);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_ARP_BAD);
    WGTEST_CHECK(bridge_l2_reason_count_for_test(l2, BRIDGE_L2_R_ARP_BAD)
                 == 2);
    WGTEST_CHECK(!strcmp(bridge_l2_reason_name(BRIDGE_L2_R_ARP_BAD),
                         "wg_l2_arp_malformed"));
    bridge_l2_destroy(l2);
}
WGTEST_REGISTER("l2-arp", test_l2_arp);

/* Proxy ND. */

enum nd_variant {
    NS_PLAIN,           /* As described by the case. */
    NS_BAD_CSUM,
    NS_OPT_LEN0,        /* Option with length 0. */
    NS_NO_SLLA,         /* Unicast NS without source link-layer option. */
};

struct nd_case {
    const char *name;
    uint8_t type;
    const char *src, *dst, *target;
    uint8_t hlim;
    enum nd_variant variant;
    bool route_all;
    enum bridge_l2_eg_action action;
    enum bridge_l2_reason reason;
    uint32_t flags;                     /* Of the expected NA. */
};

#define SNM9 "ff02::1:ff00:9"
static const struct nd_case nd_cases[] = {
    { "routable", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", SNM9, "fd00:1:2::9",
      255, NS_PLAIN, false, BRIDGE_L2_EG_REPLY, BRIDGE_L2_R_OK, 0x40000000 },
    { "own", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", "ff02::1:ff00:fe",
      "fd00:1:1::fe", 255, NS_PLAIN, false, BRIDGE_L2_EG_REPLY, BRIDGE_L2_R_OK,
      0xe0000000 },
    { "port link-local", ND_NEIGHBOR_SOLICIT, "fe80::5", "ff02::1:ff00:1",
      "fe80::ff:fe00:1", 255, NS_PLAIN, false, BRIDGE_L2_EG_REPLY,
      BRIDGE_L2_R_OK,
      0xe0000000 },
    { "unicast, no SLLA", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", "fd00:1:2::9",
      "fd00:1:2::9", 255, NS_NO_SLLA, false, BRIDGE_L2_EG_REPLY,
      BRIDGE_L2_R_OK,
      0x40000000 },
    { "DAD", ND_NEIGHBOR_SOLICIT, "::", SNM9, "fd00:1:2::9", 255,
      NS_NO_SLLA, false, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ND_DAD, 0 },
    { "seen locally", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5",
      "ff02::1:ff00:7", "fd00:1:2::7", 255, NS_PLAIN, true, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_LOCAL, 0 },
    { "not routable", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", "ff02::1:ff00:6",
      "fd00:1:1::6", 255, NS_PLAIN, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_UNROUTABLE, 0 },
    { "link-local, ::/0", ND_NEIGHBOR_SOLICIT, "fe80::5", SNM9, "fe80::9",
      255, NS_PLAIN, true, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ND_UNROUTABLE, 0 },
    { "hop limit 64", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", SNM9,
      "fd00:1:2::9", 64, NS_PLAIN, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_BAD, 0 },
    { "bad checksum", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", SNM9,
      "fd00:1:2::9", 255, NS_BAD_CSUM, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_BAD, 0 },
    { "zero option length", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", SNM9,
      "fd00:1:2::9", 255, NS_OPT_LEN0, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_BAD, 0 },
    { "wrong group", ND_NEIGHBOR_SOLICIT, "fd00:1:1::5", "ff02::1",
      "fd00:1:2::9", 255, NS_PLAIN, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_BAD,
      0 },
    { "router solicitation", ND_ROUTER_SOLICIT, "fd00:1:1::5", "ff02::2",
      NULL, 255, NS_PLAIN, false, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ND_RS, 0 },
    { "router advertisement", ND_ROUTER_ADVERT, "fe80::5", "ff02::1",
      NULL, 255, NS_PLAIN, false, BRIDGE_L2_EG_DROP, BRIDGE_L2_R_ND_OTHER, 0 },
    { "advertisement", ND_NEIGHBOR_ADVERT, "fd00:1:1::5", "ff02::1",
      "fd00:1:1::5", 255, NS_PLAIN, false, BRIDGE_L2_EG_DROP,
      BRIDGE_L2_R_ND_NA, 0 },
};

static void
check_na(const uint8_t *r, size_t len, const struct nd_case *c,
         struct eth_addr eth_dst)
{
    const struct eth_header *eth = (const void *) r;
    const struct ovs_16aligned_ip6_hdr *ip = (const void *) (eth + 1);
    const struct ovs_nd_msg *na = (const void *) (ip + 1);
    struct in6_addr src = l2t_ip6(c->src), target = l2t_ip6(c->target);
    uint8_t copy[ND_MSG_LEN + ND_LLA_OPT_LEN];
    struct ovs_nd_msg *na2 = (void *) copy;

    WGTEST_CHECK(len == 86);
    WGTEST_CHECK(eth_addr_equals(eth->eth_dst, eth_dst));
    WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
    WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_IPV6));
    WGTEST_CHECK(get_16aligned_be32(&ip->ip6_flow) == htonl(0x60000000));
    WGTEST_CHECK(ip->ip6_plen == htons(32) && ip->ip6_nxt == 58);
    WGTEST_CHECK(ip->ip6_hlim == 255);
    WGTEST_CHECK(!memcmp(&ip->ip6_src, &target, 16));
    WGTEST_CHECK(!memcmp(&ip->ip6_dst, &src, 16));
    WGTEST_CHECK(na->icmph.icmp6_type == ND_NEIGHBOR_ADVERT);
    WGTEST_CHECK(na->icmph.icmp6_code == 0);
    WGTEST_CHECK(get_16aligned_be32(&na->rso_flags) == htonl(c->flags));
    WGTEST_CHECK(!memcmp(&na->target, &target, 16));
    WGTEST_CHECK(na->options[0].type == ND_OPT_TARGET_LINKADDR);
    WGTEST_CHECK(na->options[0].len == 1);
    WGTEST_CHECK(eth_addr_equals(na->options[0].mac, port_mac));
    WGTEST_CHECK(!packet_csum_upperlayer6(ip, na, 58, 32));
    memcpy(copy, na, sizeof copy);
    na2->icmph.icmp6_cksum = 0;
    WGTEST_CHECK(packet_csum_upperlayer6(ip, na2, 58, 32)
                 == na->icmph.icmp6_cksum);
}

static void
test_l2_nd(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(nd_cases); i++) {
        const struct nd_case *c = &nd_cases[i];
        struct bridge_l2 *l2 = l2t_new(OWN, NULL);
        bool slla = c->variant != NS_NO_SLLA;
        struct eth_addr eth_dst;
        struct bridge_l2_egress out;
        union l2t_frame f, reply;
        size_t len;

        /* Guest C uses fd00:1:2::7, inside a peer's allowed IPs. */
        len = l2t_nd(f.b, MAC(33, 33, 00, 00, 00, 01), mac_c,
                     "fd00:1:2::7", "ff02::1", ND_NEIGHBOR_ADVERT,
                     "fd00:1:2::7", &mac_c, 255);
        l2t_from_bridge(l2, f.b, len, 0, &l2t_peers, reply.b, &out);
        WGTEST_CHECK(out.reason == BRIDGE_L2_R_ND_NA);

        if (!strncmp(c->dst, "ff", 2)) {
            struct in6_addr d = l2t_ip6(c->dst);

            ipv6_multicast_to_ethernet(&eth_dst, &d);
        } else {
            eth_dst = port_mac;
        }
        len = l2t_nd(f.b, eth_dst, mac_a, c->src, c->dst, c->type, c->target,
                     slla ? &mac_d : NULL, c->hlim);
        if (c->variant == NS_BAD_CSUM) {
            f.b[ETH_HEADER_LEN + IPV6_HEADER_LEN + 2] ^= 1;
        } else if (c->variant == NS_OPT_LEN0) {
            struct ovs_16aligned_ip6_hdr *ip = (void *) (f.b + 14);
            uint8_t *opt = f.b + ETH_HEADER_LEN + IPV6_HEADER_LEN + 24;
            struct icmp6_header *icmp = (void *) (ip + 1);

            opt[1] = 0;
            icmp->icmp6_cksum = 0;
            icmp->icmp6_cksum = packet_csum_upperlayer6(ip, icmp, 58, 32);
        }
        fprintf(stderr, "nd: %s\n", c->name);
        memset(reply.b, 0xa5, sizeof reply.b);
        WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 1000,
                                     c->route_all ? &l2t_all : &l2t_peers,
                                     reply.b, &out) == c->action);
        WGTEST_CHECK(out.reason == c->reason);
        if (c->action == BRIDGE_L2_EG_REPLY) {
            check_na(reply.b, out.reply_len, c, slla ? mac_d : mac_a);
        } else {
            WGTEST_CHECK(out.reply_len == 0 && reply.b[0] == 0xa5);
            WGTEST_CHECK(bridge_l2_reason_count_for_test(l2, c->reason)
                         == 1 + (c->reason == BRIDGE_L2_R_ND_NA));
        }
        bridge_l2_destroy(l2);
    }
}
WGTEST_REGISTER("l2-nd", test_l2_nd);

/* Classification of other frames. */

enum tweak {
    T_NONE,
    T_PAD,              /* IPv4 of 28 bytes in a 60-byte frame. */
    T_IHL4,             /* IPv4 header length 16. */
    T_LEN_BIG,          /* IP length beyond the frame. */
    T_CUT,              /* Frame ends 1 byte into the IP header. */
    T_VER4,             /* Version 4 in an IPv6 ethertype. */
    T_SRC_MCAST,        /* Multicast source MAC. */
    T_SRC_PORT,         /* The port's own MAC as source. */
    T_SHORT,            /* 13 bytes. */
};

struct cls_case {
    const char *name;
    struct eth_addr eth_dst;
    uint16_t type;
    const char *src, *dst;
    enum tweak tweak;
    enum bridge_l2_eg_action action;
    enum bridge_l2_reason reason;
};

#define DROP BRIDGE_L2_EG_DROP
static const struct cls_case cls_cases[] = {
    { "ipv4", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_NONE,
      BRIDGE_L2_EG_TO_PEER, BRIDGE_L2_R_OK },
    { "ipv4 padded", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_PAD,
      BRIDGE_L2_EG_TO_PEER, BRIDGE_L2_R_OK },
    { "ipv4 other host", ETH_ADDR_C(52, 54, 00, 00, 00, 0b), ETH_TYPE_IP,
      "10.1.1.5", "10.1.1.6", T_NONE, DROP, BRIDGE_L2_R_NOT_FOR_US },
    { "ipv4 broadcast MAC", BCAST, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9",
      T_NONE, DROP, BRIDGE_L2_R_IP_MULTICAST },
    { "ipv4 multicast", PORT, ETH_TYPE_IP, "10.1.1.5", "224.0.0.251",
      T_NONE, DROP, BRIDGE_L2_R_IP_MULTICAST },
    { "ipv4 subnet broadcast", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.1.255",
      T_NONE, DROP, BRIDGE_L2_R_IP_MULTICAST },
    { "ipv4 broadcast", PORT, ETH_TYPE_IP, "10.1.1.5", "255.255.255.255",
      T_NONE, DROP, BRIDGE_L2_R_IP_MULTICAST },
    { "ipv4 to own", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.1.254", T_NONE,
      DROP, BRIDGE_L2_R_IP_TO_SELF },
    { "ipv4 ihl", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_IHL4, DROP,
      BRIDGE_L2_R_IP_BAD },
    { "ipv4 length", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_LEN_BIG,
      DROP, BRIDGE_L2_R_IP_BAD },
    { "ipv4 truncated", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_CUT,
      DROP, BRIDGE_L2_R_IP_BAD },
    { "ipv6", PORT, ETH_TYPE_IPV6, "fd00:1:1::5", "fd00:1:2::9", T_NONE,
      BRIDGE_L2_EG_TO_PEER, BRIDGE_L2_R_OK },
    { "ipv6 multicast", ETH_ADDR_C(33, 33, 00, 00, 00, 16), ETH_TYPE_IPV6,
      "fd00:1:1::5", "ff02::16", T_NONE, DROP, BRIDGE_L2_R_IP6_MULTICAST },
    { "ipv6 multicast, port MAC", PORT, ETH_TYPE_IPV6, "fd00:1:1::5",
      "ff0e::1", T_NONE, DROP, BRIDGE_L2_R_IP6_MULTICAST },
    { "ipv6 link-local dst", PORT, ETH_TYPE_IPV6, "fe80::5", "fe80::9",
      T_NONE, DROP, BRIDGE_L2_R_IP6_LINK_LOCAL },
    { "ipv6 link-local src", PORT, ETH_TYPE_IPV6, "fe80::5", "fd00:1:2::9",
      T_NONE, DROP, BRIDGE_L2_R_IP6_LINK_LOCAL },
    { "ipv6 to own", PORT, ETH_TYPE_IPV6, "fd00:1:1::5", "fd00:1:1::fe",
      T_NONE, DROP, BRIDGE_L2_R_IP_TO_SELF },
    { "ipv6 length", PORT, ETH_TYPE_IPV6, "fd00:1:1::5", "fd00:1:2::9",
      T_LEN_BIG, DROP, BRIDGE_L2_R_IP6_BAD },
    { "ipv6 truncated", PORT, ETH_TYPE_IPV6, "fd00:1:1::5", "fd00:1:2::9",
      T_CUT, DROP, BRIDGE_L2_R_IP6_BAD },
    { "ipv6 version", PORT, ETH_TYPE_IPV6, "fd00:1:1::5", "fd00:1:2::9",
      T_VER4, DROP, BRIDGE_L2_R_IP6_BAD },
    { "ipv6 v4-mapped", PORT, ETH_TYPE_IPV6, "fd00:1:1::5",
      "::ffff:10.1.2.9", T_NONE, DROP, BRIDGE_L2_R_IP6_BAD },
    { "802.1Q", PORT, ETH_TYPE_VLAN_8021Q, NULL, NULL, T_NONE, DROP,
      BRIDGE_L2_R_VLAN },
    { "802.1ad", PORT, ETH_TYPE_VLAN_8021AD, NULL, NULL, T_NONE, DROP,
      BRIDGE_L2_R_VLAN },
    { "LLDP", ETH_ADDR_C(01, 80, c2, 00, 00, 0e), 0x88cc, NULL, NULL,
      T_NONE, DROP, BRIDGE_L2_R_LLDP },
    { "STP (LLC)", ETH_ADDR_C(01, 80, c2, 00, 00, 00), 0x0026, NULL, NULL,
      T_NONE, DROP, BRIDGE_L2_R_LLC },
    { "other ethertype", PORT, 0x88b5, NULL, NULL, T_NONE, DROP,
      BRIDGE_L2_R_ETHERTYPE },
    { "multicast source", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9",
      T_SRC_MCAST, DROP, BRIDGE_L2_R_SRC_MAC },
    { "own source", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_SRC_PORT,
      DROP, BRIDGE_L2_R_SRC_MAC },
    { "short", PORT, ETH_TYPE_IP, "10.1.1.5", "10.1.2.9", T_SHORT, DROP,
      BRIDGE_L2_R_ETH_SHORT },
};

static size_t
mk_cls_frame(uint8_t *p, const struct cls_case *c)
{
    uint8_t *l3 = l2t_put_eth(p, c->eth_dst, mac_a, c->type);
    struct ip_header *ip = (void *) l3;
    struct ovs_16aligned_ip6_hdr *l2t_ip6 = (void *) l3;
    bool v4 = c->type == ETH_TYPE_IP;
    size_t len = ETH_HEADER_LEN + 46;

    memset(l3, 0, 46);
    if (v4) {
        len = ETH_HEADER_LEN + l2t_ip4_pkt(l3, c->src, c->dst, 60);
    } else if (c->type == ETH_TYPE_IPV6) {
        len = ETH_HEADER_LEN + l2t_ip6_pkt(l3, c->src, c->dst, IPPROTO_UDP,
                                           64, 20);
    }
    switch (c->tweak) {
    case T_PAD:
        l2t_ip4_pkt(l3, c->src, c->dst, 28);
        return ETH_HEADER_LEN + 46;
    case T_IHL4:
        ip->ip_ihl_ver = IP_IHL_VER(4, 4);
        break;
    case T_LEN_BIG:
        if (v4) {
            ip->ip_tot_len = htons(61);
        } else {
            l2t_ip6->ip6_plen = htons(21);
        }
        break;
    case T_CUT:
        return ETH_HEADER_LEN + (v4 ? IP_HEADER_LEN : IPV6_HEADER_LEN) - 1;
    case T_VER4:
        l3[0] = 0x45;
        break;
    case T_SRC_MCAST:
        p[6] |= 1;
        break;
    case T_SRC_PORT:
        memcpy(p + 6, &port_mac, 6);
        break;
    case T_SHORT:
        return 13;
    case T_NONE:
    default:
        break;
    }
    return len;
}

static void
check_to_peer(const struct bridge_l2_egress *out, const struct cls_case *c)
{
    bool v4 = c->type == ETH_TYPE_IP;

    WGTEST_CHECK(out->l3_ofs == ETH_HEADER_LEN);
    WGTEST_CHECK(out->l3_len == (c->tweak == T_PAD ? 28 : v4 ? 60 : 60));
    WGTEST_CHECK(out->family == (v4 ? AF_INET : AF_INET6));
    if (v4) {
        ovs_be32 d = l2t_ip4(c->dst);

        WGTEST_CHECK(!memcmp(out->dst, &d, 4));
    } else {
        struct in6_addr d = l2t_ip6(c->dst);

        WGTEST_CHECK(!memcmp(out->dst, &d, 16));
    }
}

static void
test_l2_classify(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2 *l2 = l2t_new(OWN, NULL);

    for (size_t i = 0; i < ARRAY_SIZE(cls_cases); i++) {
        const struct cls_case *c = &cls_cases[i];
        uint64_t before = bridge_l2_reason_count_for_test(l2, c->reason);
        struct bridge_l2_egress out;
        union l2t_frame f, reply;
        size_t len = mk_cls_frame(f.b, c);

        fprintf(stderr, "classify: %s\n", c->name);
        WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 0, &l2t_all, reply.b,
                                     &out) == c->action);
        WGTEST_CHECK(out.reason == c->reason);
        if (c->action == BRIDGE_L2_EG_TO_PEER) {
            check_to_peer(&out, c);
        } else {
            WGTEST_CHECK(bridge_l2_reason_count_for_test(l2, c->reason)
                         == before + 1);
        }
    }
    bridge_l2_destroy(l2);
}
WGTEST_REGISTER("l2-classify", test_l2_classify);
