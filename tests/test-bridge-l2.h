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


#ifndef TEST_BRIDGE_L2_H
#define TEST_BRIDGE_L2_H 1

/* Helpers shared by the L2 adapter's unit tests (test-bridge-l2*.c).  Test
 * frames are built field by field, never with the code under test. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bridge-l2.h"
#include "packets.h"

/* The port and four guests. */
#define ETH_C ETH_ADDR_C
static const struct eth_addr port_mac OVS_UNUSED
    = ETH_C(02, 00, 00, 00, 00, 01);
static const struct eth_addr mac_a OVS_UNUSED = ETH_C(52, 54, 00, 00, 00, 0a);
static const struct eth_addr mac_b OVS_UNUSED = ETH_C(52, 54, 00, 00, 00, 0b);
static const struct eth_addr mac_c OVS_UNUSED = ETH_C(52, 54, 00, 00, 00, 0c);
static const struct eth_addr mac_d OVS_UNUSED = ETH_C(52, 54, 00, 00, 00, 0d);
static const struct eth_addr mac_bcast OVS_UNUSED
    = ETH_C(ff, ff, ff, ff, ff, ff);

/* A MAC as an expression, and as an initializer for tables. */
#define MAC(A, B, C, D, E, F) ((struct eth_addr) ETH_C(A, B, C, D, E, F))
#define PORT ETH_C(02, 00, 00, 00, 00, 01)
#define BCAST ETH_C(ff, ff, ff, ff, ff, ff)

/* The port's own addresses in most tests. */
#define OWN "10.1.1.254/24,fd00:1:1::fe/64"

/* Frame buffers, 8-byte aligned. */
union l2t_frame {
    uint8_t b[2048];
    uint64_t align;
};

/* Cryptokey routing stand-in: 'all' routes everything. */
struct l2t_routes {
    bool all;
    const char *prefixes[4];
};

static const struct l2t_routes l2t_peers OVS_UNUSED = {
    false, { "10.1.2.0/24", "fd00:1:2::/64", NULL },
};
static const struct l2t_routes l2t_all OVS_UNUSED = { true, { NULL } };

/* Parses an IPv4 or IPv6 address (fails the test if it cannot). */
ovs_be32 l2t_ip4(const char *);
struct in6_addr l2t_ip6(const char *);

/* A bridge_l2_routable_cb over a 'struct l2t_routes'. */
bool l2t_routable(void *aux, int family, const void *addr);

/* A port with MAC 'port_mac' and own addresses 'own'. */
struct bridge_l2 *l2t_new(const char *own, const struct bridge_l2_limits *);

/* Frame construction: each returns the length written at 'p', except
 * l2t_put_eth(), which returns where the payload starts.  l2t_ip4_pkt()
 * and l2t_ip6_pkt() build bare IP packets with a pattern payload, l2t_nd()
 * an NS/NA/RS/RA frame with an optional link-layer option and a correct
 * checksum. */
uint8_t *l2t_put_eth(uint8_t *p, struct eth_addr dst, struct eth_addr src,
                     uint16_t type);
size_t l2t_arp(uint8_t *p, struct eth_addr eth_dst, struct eth_addr sha,
               uint16_t op, const char *spa, const char *tpa);
size_t l2t_ip4_pkt(uint8_t *p, const char *src, const char *dst,
                   size_t tot);
size_t l2t_ip6_pkt(uint8_t *p, const char *src, const char *dst,
                   uint8_t nxt, uint8_t hlim, size_t plen);
size_t l2t_nd(uint8_t *p, struct eth_addr eth_dst, struct eth_addr eth_src,
              const char *src, const char *dst, uint8_t type,
              const char *target, const struct eth_addr *lla, uint8_t hlim);

/* bridge_l2_from_bridge() with 'routes'; a reply is copied to 'reply' (of
 * BRIDGE_L2_ND_FRAME_MAX bytes) and freed. */
enum bridge_l2_eg_action l2t_from_bridge(struct bridge_l2 *, const void *frame,
                                         size_t len, long long now,
                                         const struct l2t_routes *routes,
                                         uint8_t *reply,
                                         struct bridge_l2_egress *);

/* Feeds 'frame' to bridge_l2_from_bridge() and checks the reason. */
void l2t_feed(struct bridge_l2 *, const void *frame, size_t len, long long now,
              enum bridge_l2_reason);

/* bridge_l2_to_bridge() for a dp_packet holding a copy of 'ip' ('len'
 * bytes), marked for TSO (which must survive the pending queue); a
 * solicitation is copied to 'solicit' (of BRIDGE_L2_ND_FRAME_MAX bytes) and
 * freed, and so is the packet unless queued.  l2t_to_bridge() does it for
 * a UDP packet from 'src' to 'dst'; l2t_check_deliver() checks that such a
 * packet is delivered to 'mac' without a solicitation. */
enum bridge_l2_in_action l2t_to_bridge_data(struct bridge_l2 *,
                                            const void *ip, size_t len,
                                            long long now, uint8_t *solicit,
                                            struct bridge_l2_ingress *);
enum bridge_l2_in_action l2t_to_bridge(struct bridge_l2 *, const char *src,
                                       const char *dst, long long now,
                                       uint8_t *solicit,
                                       struct bridge_l2_ingress *);
void l2t_check_deliver(struct bridge_l2 *, const char *dst,
                       struct eth_addr mac, long long now);

#endif /* test-bridge-l2.h */
