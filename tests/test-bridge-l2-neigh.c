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
#include "util.h"
#include "wgtest.h"

/* Unit tests of the L2 adapter's peer-to-bridge side: neighbor learning,
 * solicitation of unknown destinations, the pending queue and its bounds,
 * aging, and the own-address list. */

static void
test_l2_learn(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2 *l2 = l2t_new(OWN, NULL);
    struct bridge_l2_ingress out;
    union l2t_frame f, sol;
    struct eth_addr mac;
    uint8_t *l3;
    ovs_be32 a4;
    size_t len;

    /* ARP request, NS (SLLA), IPv4 frame, NA (TLLA), IPv6 frame. */
    len = l2t_arp(f.b, mac_bcast, mac_a, 1, "10.1.1.5", "10.1.2.9");
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_OK);
    len = l2t_nd(f.b, port_mac, mac_c, "fd00:1:1::6", "fd00:1:2::9",
                 ND_NEIGHBOR_SOLICIT, "fd00:1:2::9", &mac_b, 255);
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_OK);
    l3 = l2t_put_eth(f.b, port_mac, mac_c, ETH_TYPE_IP);
    len = ETH_HEADER_LEN + l2t_ip4_pkt(l3, "10.1.1.7", "10.1.2.9", 60);
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_OK);
    len = l2t_nd(f.b, port_mac, mac_a, "fd00:1:1::8", "fd00:1:1::fe",
                 ND_NEIGHBOR_ADVERT, "fd00:1:1::8", &mac_d, 255);
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_ND_NA);
    l3 = l2t_put_eth(f.b, port_mac, mac_a, ETH_TYPE_IPV6);
    len = ETH_HEADER_LEN + l2t_ip6_pkt(l3, "fd00:1:1::5", "fd00:1:2::9",
                                       IPPROTO_UDP, 64, 8);
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_OK);

    l2t_check_deliver(l2, "10.1.1.5", mac_a, 1);
    l2t_check_deliver(l2, "fd00:1:1::6", mac_b, 1);
    l2t_check_deliver(l2, "10.1.1.7", mac_c, 1);
    l2t_check_deliver(l2, "fd00:1:1::8", mac_d, 1);
    l2t_check_deliver(l2, "fd00:1:1::5", mac_a, 1);
    WGTEST_CHECK(bridge_l2_neigh_count_for_test(l2) == 5);
    a4 = l2t_ip4("10.1.1.7");
    WGTEST_CHECK(bridge_l2_neigh_lookup_for_test(l2, AF_INET, &a4, 1, &mac));
    WGTEST_CHECK(eth_addr_equals(mac, mac_c));

    /* Not learned: ARP probe, DAD NS, a guest claiming an own address. */
    len = l2t_arp(f.b, mac_bcast, mac_b, 1, "0.0.0.0", "10.1.1.9");
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_ARP_PROBE);
    len = l2t_nd(f.b, MAC(33, 33, ff, 00, 00, 09), mac_b, "::",
                 "ff02::1:ff00:9", ND_NEIGHBOR_SOLICIT, "fd00:1:1::9", NULL,
                 255);
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_ND_DAD);
    len = l2t_arp(f.b, mac_bcast, mac_b, 1, "10.1.1.254", "10.1.1.254");
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_ARP_GRATUITOUS);
    WGTEST_CHECK(bridge_l2_neigh_count_for_test(l2) == 5);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.254", 1, sol.b, &out)
                 == BRIDGE_L2_IN_DROP);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_IN_TO_SELF);

    /* A guest that moves to another MAC is followed. */
    len = l2t_arp(f.b, mac_bcast, mac_d, 1, "10.1.1.5", "10.1.1.5");
    l2t_feed(l2, f.b, len, 2, BRIDGE_L2_R_ARP_GRATUITOUS);
    l2t_check_deliver(l2, "10.1.1.5", mac_d, 3);

    /* Group destinations need no neighbor. */
    l2t_check_deliver(l2, "224.1.2.3", MAC(01, 00, 5e, 01, 02, 03), 3);
    l2t_check_deliver(l2, "239.129.2.3", MAC(01, 00, 5e, 01, 02, 03), 3);
    l2t_check_deliver(l2, "255.255.255.255", mac_bcast, 3);
    l2t_check_deliver(l2, "10.1.1.255", mac_bcast, 3);
    l2t_check_deliver(l2, "ff02::1:ff00:5", MAC(33, 33, ff, 00, 00, 05),
                      3);

    /* Malformed inner packets. */
    memset(f.b, 0, 64);
    f.b[0] = 0x45;
    WGTEST_CHECK(l2t_to_bridge_data(l2, f.b, 19, 3, sol.b, &out)
                 == BRIDGE_L2_IN_DROP);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_IN_BAD);
    f.b[0] = 0x60;
    WGTEST_CHECK(l2t_to_bridge_data(l2, f.b, 40, 3, sol.b, &out)
                 == BRIDGE_L2_IN_DROP);
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_IN_BAD);     /* dst :: */
    WGTEST_CHECK(bridge_l2_reason_count_for_test(l2, BRIDGE_L2_R_IN_BAD) == 2);
    bridge_l2_destroy(l2);
}
WGTEST_REGISTER("l2-learn", test_l2_learn);

/* Unknown destinations: solicitation and the pending queue. */

static void
check_arp_request(const uint8_t *r, size_t len, struct eth_addr dst,
                  const char *spa, const char *tpa)
{
    const struct eth_header *eth = (const void *) r;
    const struct arp_eth_header *arp = (const void *) (eth + 1);
    bool unicast = !eth_addr_is_broadcast(dst);

    WGTEST_CHECK(len == 42);
    WGTEST_CHECK(eth_addr_equals(eth->eth_dst, dst));
    WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
    WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_ARP));
    WGTEST_CHECK(arp->ar_hrd == htons(1) && arp->ar_pro == htons(0x0800));
    WGTEST_CHECK(arp->ar_hln == 6 && arp->ar_pln == 4);
    WGTEST_CHECK(arp->ar_op == htons(ARP_OP_REQUEST));
    WGTEST_CHECK(eth_addr_equals(arp->ar_sha, port_mac));
    WGTEST_CHECK(get_16aligned_be32(&arp->ar_spa) == l2t_ip4(spa));
    WGTEST_CHECK(eth_addr_equals(arp->ar_tha, unicast ? dst : eth_addr_zero));
    WGTEST_CHECK(get_16aligned_be32(&arp->ar_tpa) == l2t_ip4(tpa));
}

static void
check_ns(const uint8_t *r, size_t len, struct eth_addr eth_dst,
         const char *src, const char *dst, const char *target)
{
    const struct eth_header *eth = (const void *) r;
    const struct ovs_16aligned_ip6_hdr *ip = (const void *) (eth + 1);
    const struct ovs_nd_msg *ns = (const void *) (ip + 1);
    struct in6_addr s = l2t_ip6(src), d = l2t_ip6(dst), t = l2t_ip6(target);

    WGTEST_CHECK(len == 86);
    WGTEST_CHECK(eth_addr_equals(eth->eth_dst, eth_dst));
    WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
    WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_IPV6));
    WGTEST_CHECK(get_16aligned_be32(&ip->ip6_flow) == htonl(0x60000000));
    WGTEST_CHECK(ip->ip6_plen == htons(32) && ip->ip6_nxt == 58);
    WGTEST_CHECK(ip->ip6_hlim == 255);
    WGTEST_CHECK(!memcmp(&ip->ip6_src, &s, 16));
    WGTEST_CHECK(!memcmp(&ip->ip6_dst, &d, 16));
    WGTEST_CHECK(ns->icmph.icmp6_type == ND_NEIGHBOR_SOLICIT);
    WGTEST_CHECK(ns->icmph.icmp6_code == 0);
    WGTEST_CHECK(get_16aligned_be32(&ns->rso_flags) == 0);
    WGTEST_CHECK(!memcmp(&ns->target, &t, 16));
    WGTEST_CHECK(ns->options[0].type == ND_OPT_SOURCE_LINKADDR);
    WGTEST_CHECK(ns->options[0].len == 1);
    WGTEST_CHECK(eth_addr_equals(ns->options[0].mac, port_mac));
    WGTEST_CHECK(!packet_csum_upperlayer6(ip, ns, 58, 32));
}

/* Pops one resolved packet and checks it against a fresh copy of what
 * l2t_to_bridge() sent. */
static void
check_pop(struct bridge_l2 *l2, const char *src, const char *dst,
          struct eth_addr mac)
{
    struct dp_packet *pkt = bridge_l2_pending_pop(l2);
    const struct eth_header *eth;
    union l2t_frame orig;
    size_t len = (strchr(dst, ':')
                  ? l2t_ip6_pkt(orig.b, src, dst, IPPROTO_UDP, 64, 60)
                  : l2t_ip4_pkt(orig.b, src, dst, 100));

    WGTEST_CHECK(pkt);
    eth = dp_packet_data(pkt);
    WGTEST_CHECK(ovs_compat_pkt_is_tso(pkt));   /* The caller's marks. */
    WGTEST_CHECK(dp_packet_size(pkt) == ETH_HEADER_LEN + len);
    WGTEST_CHECK(eth_addr_equals(eth->eth_dst, mac));
    WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
    WGTEST_CHECK(eth->eth_type == htons(strchr(dst, ':') ? ETH_TYPE_IPV6
                                        : ETH_TYPE_IP));
    WGTEST_CHECK_MEM((const uint8_t *) eth + ETH_HEADER_LEN, orig.b, len);
    dp_packet_delete(pkt);
}

static void
test_l2_resolve(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2 *l2 = l2t_new(OWN, NULL);
    struct bridge_l2_egress eg;
    struct bridge_l2_ingress out;
    struct bridge_l2_stats stats;
    union l2t_frame f, sol, reply;
    size_t len;

    /* IPv4: broadcast ARP request from the own address of the subnet, at
     * most one per second; the ARP reply releases the queue in order. */
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.8", 0, sol.b, &out)
                 == BRIDGE_L2_IN_QUEUED);
    check_arp_request(sol.b, out.solicit_len, mac_bcast, "10.1.1.254",
                      "10.1.1.8");
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.8", 999, sol.b, &out)
                 == BRIDGE_L2_IN_QUEUED && out.solicit_len == 0);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.8", 1000, sol.b, &out)
                 == BRIDGE_L2_IN_QUEUED && out.solicit_len == 42);
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 3
                 && !bridge_l2_pending_pop(l2));
    len = l2t_arp(f.b, port_mac, mac_c, 2, "10.1.1.8", "10.1.1.254");
    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 1500, &l2t_peers, reply.b,
                                 &eg) == BRIDGE_L2_EG_DROP);
    WGTEST_CHECK(eg.reason == BRIDGE_L2_R_ARP_REPLY && eg.resolved);
    for (int i = 0; i < 3; i++) {
        check_pop(l2, "10.1.2.9", "10.1.1.8", mac_c);
    }
    WGTEST_CHECK(!bridge_l2_pending_pop(l2)
                 && !bridge_l2_pending_count_for_test(l2));
    l2t_check_deliver(l2, "10.1.1.8", mac_c, 1600);

    /* IPv6: NS to the solicited-node group; an NA releases it. */
    WGTEST_CHECK(l2t_to_bridge(l2, "fd00:1:2::9", "fd00:1:1::9", 2000, sol.b,
                               &out) == BRIDGE_L2_IN_QUEUED);
    check_ns(sol.b, out.solicit_len, MAC(33, 33, ff, 00, 00, 09),
             "fd00:1:1::fe", "ff02::1:ff00:9", "fd00:1:1::9");
    len = l2t_nd(f.b, port_mac, mac_d, "fd00:1:1::9", "fd00:1:1::fe",
                 ND_NEIGHBOR_ADVERT, "fd00:1:1::9", &mac_d, 255);
    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, 2100, &l2t_peers, reply.b,
                                 &eg) == BRIDGE_L2_EG_DROP && eg.resolved);
    check_pop(l2, "fd00:1:2::9", "fd00:1:1::9", mac_d);
    WGTEST_CHECK(!bridge_l2_pending_pop(l2));

    bridge_l2_get_stats_for_test(l2, &stats);
    WGTEST_CHECK(stats.queued == 4 && stats.flushed == 4);
    WGTEST_CHECK(stats.solicits == 3 && stats.learned == 2);
    bridge_l2_destroy(l2);

    /* Without an own IPv6 address, the NS comes from the port's EUI-64
     * link-local address. */
    l2 = l2t_new("10.1.1.254/24", NULL);
    WGTEST_CHECK(l2t_to_bridge(l2, "fd00:1:2::9", "fd00:1:1::9", 0, sol.b,
                               &out) == BRIDGE_L2_IN_QUEUED);
    check_ns(sol.b, out.solicit_len, MAC(33, 33, ff, 00, 00, 09),
             "fe80::ff:fe00:1", "ff02::1:ff00:9", "fd00:1:1::9");
    bridge_l2_destroy(l2);
}
WGTEST_REGISTER("l2-resolve", test_l2_resolve);

/* The sender IP of ARP requests. */
static const struct {
    const char *own, *inner_src, *spa;
} arp_sender_cases[] = {
    { OWN, "10.1.2.9", "10.1.1.254" },          /* Own, in the subnet. */
    { "10.9.9.1/24", "10.1.2.9", "10.1.2.9" },  /* Inner source. */
    { "10.9.9.1/24", "0.0.0.0", "10.9.9.1" },   /* Any own address. */
    { "", "0.0.0.0", "0.0.0.0" },               /* Nothing else. */
    { "", "10.1.2.9", "10.1.2.9" },
};

static void
test_l2_arp_sender(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(arp_sender_cases); i++) {
        struct bridge_l2 *l2 = l2t_new(arp_sender_cases[i].own, NULL);
        struct bridge_l2_ingress out;
        union l2t_frame sol;

        WGTEST_CHECK(l2t_to_bridge(l2, arp_sender_cases[i].inner_src,
                                   "10.1.1.8", 0, sol.b, &out)
                     == BRIDGE_L2_IN_QUEUED);
        check_arp_request(sol.b, out.solicit_len, mac_bcast,
                          arp_sender_cases[i].spa, "10.1.1.8");
        bridge_l2_destroy(l2);
    }
}
WGTEST_REGISTER("l2-arp-sender", test_l2_arp_sender);

static void
test_l2_pending_limits(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2_limits lim = { .pending_per_dst = 3, .pending_total = 5 };
    struct bridge_l2 *l2 = l2t_new(OWN, &lim);
    static const char *const dsts[] = {
        "10.1.1.20", "10.1.1.21", "10.1.1.22", "10.1.1.23",
    };
    struct bridge_l2_ingress out;
    union l2t_frame sol;

    /* 4 packets to one destination: 3 queued.  Then 3 more: 2 queued. */
    for (int i = 0; i < 4; i++) {
        WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", dsts[0], 10, sol.b, &out)
                     == (i < 3 ? BRIDGE_L2_IN_QUEUED : BRIDGE_L2_IN_DROP));
    }
    WGTEST_CHECK(out.reason == BRIDGE_L2_R_PENDING_FULL);
    for (int i = 1; i < 4; i++) {
        WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", dsts[i], 20, sol.b, &out)
                     == (i < 3 ? BRIDGE_L2_IN_QUEUED : BRIDGE_L2_IN_DROP));
        WGTEST_CHECK(out.solicit_len == 42);    /* Solicited even so. */
    }
    WGTEST_CHECK(bridge_l2_reason_count_for_test(l2,
                                                 BRIDGE_L2_R_PENDING_FULL)
                 == 2);
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 5);

    /* Unresolved packets time out 3 s after the first one. */
    WGTEST_CHECK(bridge_l2_next_deadline(l2)
                 == 10 + BRIDGE_L2_PENDING_TIMEOUT_MS);
    bridge_l2_run(l2, 10 + BRIDGE_L2_PENDING_TIMEOUT_MS - 1);
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 5);
    bridge_l2_run(l2, 10 + BRIDGE_L2_PENDING_TIMEOUT_MS);
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 2);
    WGTEST_CHECK(bridge_l2_reason_count_for_test(
                     l2, BRIDGE_L2_R_PENDING_TIMEOUT) == 3);
    bridge_l2_run(l2, 20 + BRIDGE_L2_PENDING_TIMEOUT_MS);
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 0);
    WGTEST_CHECK(bridge_l2_reason_count_for_test(
                     l2, BRIDGE_L2_R_PENDING_TIMEOUT) == 5);
    WGTEST_CHECK(bridge_l2_next_deadline(l2) == LLONG_MAX);
    bridge_l2_destroy(l2);

    /* The byte bound: 2 packets of 114 bytes fit in 300, not 3. */
    lim = (struct bridge_l2_limits) { .pending_bytes = 300 };
    l2 = l2t_new(OWN, &lim);
    for (int i = 0; i < 3; i++) {
        WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", dsts[i], 0, sol.b, &out)
                     == (i < 2 ? BRIDGE_L2_IN_QUEUED : BRIDGE_L2_IN_DROP));
    }
    WGTEST_CHECK(bridge_l2_pending_count_for_test(l2) == 2);
    bridge_l2_destroy(l2);          /* Frees what is still queued. */
}
WGTEST_REGISTER("l2-pending-limits", test_l2_pending_limits);

static void
test_l2_aging(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2_limits lim = { .max_neighbors = 2 };
    struct bridge_l2 *l2 = l2t_new(OWN, &lim);
    struct bridge_l2_ingress out;
    struct bridge_l2_stats stats;
    struct bridge_l2_egress eg;
    union l2t_frame f, sol, reply;
    struct eth_addr mac;
    size_t len;

    /* Learned at 0: plain delivery while fresh, then a unicast ARP probe
     * at most once per second, then re-resolution after 120 s. */
    len = l2t_arp(f.b, mac_bcast, mac_a, 1, "10.1.1.5", "10.1.1.254");
    l2t_feed(l2, f.b, len, 0, BRIDGE_L2_R_OK);
    l2t_check_deliver(l2, "10.1.1.5", mac_a, BRIDGE_L2_NEIGH_STALE_MS - 1);
    /* The same header holds, with nothing else to do, until it is stale;
     * a group address's always; nothing while a probe may be due. */
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.5", 1000, sol.b, &out)
                 == BRIDGE_L2_IN_DELIVER
                 && out.same_until == BRIDGE_L2_NEIGH_STALE_MS);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "224.0.0.251", 1000, sol.b,
                               &out) == BRIDGE_L2_IN_DELIVER
                 && out.same_until == LLONG_MAX);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.5",
                               BRIDGE_L2_NEIGH_STALE_MS, sol.b, &out)
                 == BRIDGE_L2_IN_DELIVER && out.same_until == LLONG_MIN);
    check_arp_request(sol.b, out.solicit_len, mac_a, "10.1.1.254",
                      "10.1.1.5");
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.5",
                               BRIDGE_L2_NEIGH_STALE_MS + 999, sol.b, &out)
                 == BRIDGE_L2_IN_DELIVER && !out.solicit_len
                 && out.same_until == LLONG_MIN);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.5",
                               BRIDGE_L2_NEIGH_STALE_MS + 1000, sol.b, &out)
                 == BRIDGE_L2_IN_DELIVER && out.solicit_len == 42);
    WGTEST_CHECK(l2t_to_bridge(l2, "10.1.2.9", "10.1.1.5",
                               BRIDGE_L2_NEIGH_EXPIRE_MS, sol.b, &out)
                 == BRIDGE_L2_IN_QUEUED && out.same_until == LLONG_MIN);
    check_arp_request(sol.b, out.solicit_len, mac_bcast, "10.1.1.254",
                      "10.1.1.5");

    /* Still "seen locally" until BRIDGE_L2_LOCAL_EXPIRE_MS, even for 0/0. */
    len = l2t_arp(f.b, mac_bcast, mac_b, 1, "10.1.1.6", "10.1.1.5");
    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, BRIDGE_L2_LOCAL_EXPIRE_MS - 1,
                                 &l2t_all, reply.b, &eg) == BRIDGE_L2_EG_DROP);
    WGTEST_CHECK(eg.reason == BRIDGE_L2_R_ARP_LOCAL);
    WGTEST_CHECK(l2t_from_bridge(l2, f.b, len, BRIDGE_L2_LOCAL_EXPIRE_MS,
                                 &l2t_all, reply.b, &eg)
                 == BRIDGE_L2_EG_REPLY);
    /* 10.1.1.6 only. */
    WGTEST_CHECK(bridge_l2_neigh_count_for_test(l2) == 1);

    /* The table holds 2 entries: the least recently seen goes. */
    len = l2t_arp(f.b, mac_bcast, mac_c, 1, "10.1.1.7", "10.1.1.254");
    l2t_feed(l2, f.b, len, BRIDGE_L2_LOCAL_EXPIRE_MS + 1, BRIDGE_L2_R_OK);
    len = l2t_arp(f.b, mac_bcast, mac_d, 1, "10.1.1.8", "10.1.1.254");
    l2t_feed(l2, f.b, len, BRIDGE_L2_LOCAL_EXPIRE_MS + 2, BRIDGE_L2_R_OK);
    WGTEST_CHECK(bridge_l2_neigh_count_for_test(l2) == 2);
    WGTEST_CHECK(!bridge_l2_neigh_lookup_for_test(l2, AF_INET, &(ovs_be32) {
                                         l2t_ip4("10.1.1.6") },
                                         BRIDGE_L2_LOCAL_EXPIRE_MS + 2, &mac));
    bridge_l2_get_stats_for_test(l2, &stats);
    WGTEST_CHECK(stats.evicted == 1);
    bridge_l2_destroy(l2);
}
WGTEST_REGISTER("l2-aging", test_l2_aging);

static void
test_l2_addresses(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bridge_l2 *l2 = l2t_new("10.1.1.254/24, fd00:1:1::fe/64 10.2.0.1",
                                   NULL);
    struct in6_addr a6 = l2t_ip6("fd00:1:1::fe");
    ovs_be32 a4 = l2t_ip4("10.2.0.1");
    unsigned int plen;
    uint8_t addr[16];
    char *err;
    int family;

    WGTEST_CHECK(bridge_l2_n_addresses(l2) == 3);
    bridge_l2_get_address(l2, 1, &family, addr, &plen);
    WGTEST_CHECK(family == AF_INET6 && plen == 64);
    WGTEST_CHECK(!memcmp(addr, &a6, 16));
    bridge_l2_get_address(l2, 2, &family, addr, &plen);
    WGTEST_CHECK(family == AF_INET && plen == 32);
    WGTEST_CHECK(!memcmp(addr, &a4, 4));

    /* Errors leave the list alone. */
    static const char *const bad[] = {
        "10.1.1.300/24", "10.1.1.1/33", "224.0.0.1/4", "0.0.0.0/0",
        "ff02::1/64", "::ffff:10.1.1.1/128", "fd00::1/129", "bogus",
        "1.1.1.1,2.2.2.2,3.3.3.3,4.4.4.4,5.5.5.5,6.6.6.6,7.7.7.7,"
        "8.8.8.8,9.9.9.9,10.0.0.1,10.0.0.2,10.0.0.3,10.0.0.4,10.0.0.5,"
        "10.0.0.6,10.0.0.7,10.0.0.8",
    };
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        err = bridge_l2_set_addresses(l2, bad[i]);
        WGTEST_CHECK(err);
        free(err);
        WGTEST_CHECK(bridge_l2_n_addresses(l2) == 3);
    }
    WGTEST_CHECK(!bridge_l2_set_addresses(l2, NULL));
    WGTEST_CHECK(bridge_l2_n_addresses(l2) == 0);
    bridge_l2_set_mac(l2, mac_b);
    WGTEST_CHECK(eth_addr_equals(bridge_l2_get_mac_for_test(l2), mac_b));
    bridge_l2_destroy(l2);
    bridge_l2_destroy(NULL);
}
WGTEST_REGISTER("l2-addresses", test_l2_addresses);
