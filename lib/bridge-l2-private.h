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

#ifndef BRIDGE_L2_PRIVATE_H
#define BRIDGE_L2_PRIVATE_H 1

/* Internals shared by bridge-l2.c and bridge-l2-egress.c. */

#include <netinet/icmp6.h>
#include <netinet/ip6.h>
#include "bridge-l2.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "ovs-rcu.h"

#define BRIDGE_L2_ARP_FRAME_LEN (ETH_HEADER_LEN + ARP_ETH_HEADER_LEN)
#define BRIDGE_L2_ND_FRAME_LEN (ETH_HEADER_LEN + IPV6_HEADER_LEN \
                                + ND_MSG_LEN + ND_LLA_OPT_LEN)
BUILD_ASSERT_DECL(BRIDGE_L2_ND_FRAME_LEN == BRIDGE_L2_ND_FRAME_MAX);

/* Addresses of both families are kept as struct in6_addr, IPv4 ones
 * IPv4-mapped (::ffff:a.b.c.d); IPv6 packets carrying mapped addresses are
 * refused, so the two never mix. */
struct bridge_l2_own {
    struct in6_addr addr;
    unsigned int plen;          /* As configured (IPv4: 0..32). */
    unsigned int plen6;         /* Over the in6_addr (IPv4: +96). */
};

/* A neighbor seen on the bridge (IP -> MAC). */
struct bridge_l2_neigh {
    struct hmap_node hmap_node; /* In 'neighbors', by address. */
    struct ovs_list lru_node;   /* In 'lru', least recently seen first. */
    struct in6_addr addr;
    struct eth_addr mac;
    long long int seen;         /* Last confirmed by a bridge frame. */
    long long int probed;       /* Last refresh probe sent. */
};

/* A packet in the pending queue: an Ethernet frame whose destination MAC
 * is filled in when its neighbor becomes known. */
struct bridge_l2_pkt {
    struct ovs_list list_node;  /* In a wait's 'pkts' or in 'ready'. */
    struct dp_packet *pkt;
};

/* Packets waiting for one unresolved destination. */
struct bridge_l2_wait {
    struct hmap_node hmap_node; /* In 'waits', by address. */
    struct in6_addr addr;
    long long int created;      /* First packet queued. */
    long long int solicited;    /* Last ARP request / NS sent. */
    struct ovs_list pkts;       /* struct bridge_l2_pkt. */
    size_t n;
};

/* What classifying a frame from the bridge reads of the configuration.
 * The adapter's own copy is changed under the caller's lock; a copy of it
 * is published for senders without that lock (RCU, 'published'). */
struct bridge_l2_conf {
    struct eth_addr mac;
    struct bridge_l2_own addrs[BRIDGE_L2_MAX_ADDRS];
    size_t n_addrs;
};

struct bridge_l2 {
    struct bridge_l2_conf conf;
    OVSRCU_TYPE(struct bridge_l2_conf *) published;
    struct in6_addr lla;        /* fe80:: link-local derived from the MAC. */
    struct bridge_l2_limits limits;

    struct hmap neighbors;
    struct ovs_list lru;

    struct hmap waits;
    struct ovs_list ready;      /* Resolved, waiting for pending_pop(). */
    size_t n_held;              /* Packets in 'waits' and 'ready'. */
    size_t bytes_held;

    uint64_t counts[BRIDGE_L2_N_REASONS];
    struct bridge_l2_stats stats;
};

/* Address helpers. */

static inline struct in6_addr
bridge_l2_addr_from(int family, const void *p)
{
    struct in6_addr a;

    if (family == AF_INET) {
        ovs_be32 ip4;

        memcpy(&ip4, p, 4);
        a = in6_addr_mapped_ipv4(ip4);
    } else {
        memcpy(&a, p, sizeof a);
    }
    return a;
}

static inline bool
bridge_l2_is_v4(const struct in6_addr *a)
{
    return IN6_IS_ADDR_V4MAPPED(a);
}

static inline int
bridge_l2_af(const struct in6_addr *a)
{
    return bridge_l2_is_v4(a) ? AF_INET : AF_INET6;
}

/* The address bytes of 'a' for its family (4 or 16). */
static inline const void *
bridge_l2_bytes(const struct in6_addr *a)
{
    return bridge_l2_is_v4(a) ? &a->s6_addr[12] : a->s6_addr;
}

/* True for an address a host may have as a unicast source. */
static inline bool
bridge_l2_is_unicast(const struct in6_addr *a)
{
    if (bridge_l2_is_v4(a)) {
        ovs_be32 ip4 = in6_addr_get_mapped_ipv4(a);

        return ip4 && ip4 != htonl(INADDR_BROADCAST) && !ip_is_multicast(ip4);
    }
    return ipv6_addr_is_set(a) && !ipv6_addr_is_multicast(a);
}

static inline bool
bridge_l2_is_ll6(const struct in6_addr *a)
{
    return a->s6_addr[0] == 0xfe && (a->s6_addr[1] & 0xc0) == 0x80;
}

/* Shared internals, all defined in bridge-l2.c: bridge-l2-egress.c calls them,
 * bridge-l2.c never calls bridge-l2-egress.c. */

/* Counts a drop for 'reason' (per port and as a coverage counter). */
void bridge_l2_count(struct bridge_l2 *, enum bridge_l2_reason);

/* Own addresses: is 'a' one of them; an own address of the family of 'a'
 * whose prefix holds 'a' (or NULL); the same, falling back to any own
 * address of that family; is 'a' the broadcast address of an own IPv4
 * prefix. */
bool bridge_l2_is_own(const struct bridge_l2 *, const struct in6_addr *a);
const struct in6_addr *bridge_l2_own_in_prefix(const struct bridge_l2 *,
                                               const struct in6_addr *a);
const struct in6_addr *bridge_l2_own_for(const struct bridge_l2 *,
                                         const struct in6_addr *a);
bool bridge_l2_is_bcast(const struct bridge_l2 *,
                               const struct in6_addr *a);

/* The same two questions for a copy of the configuration. */
bool bridge_l2_conf_is_own(const struct bridge_l2_conf *,
                           const struct in6_addr *a);
bool bridge_l2_conf_is_bcast(const struct bridge_l2_conf *,
                             const struct in6_addr *a);

/* True if 'a' was seen as a source on the bridge recently enough that the
 * port must not answer for it. */
bool bridge_l2_is_local(const struct bridge_l2 *, const struct in6_addr *a,
                        long long int now);

/* Forgets neighbors not seen for BRIDGE_L2_LOCAL_EXPIRE_MS. */
void bridge_l2_neigh_expire(struct bridge_l2 *, long long int now);

/* Learns that 'a' has MAC 'mac', seen on the bridge at 'now'.  Returns true
 * if packets waiting for 'a' became ready. */
bool bridge_l2_neigh_learn(struct bridge_l2 *, const struct in6_addr *a,
                           struct eth_addr mac, long long int now);

/* Frame builders.  bridge_l2_put_eth() writes an Ethernet header at 'out'.
 * The others return a new dp_packet from the port's MAC, built by OVS's
 * compose_*(): an ARP packet of operation 'op' with target hardware
 * address 'tha', broadcast or sent to 'tha'; a Neighbor Advertisement for
 * 'target' (also its source) to 'dst' with flags 'rso_flags' (ND_RSO_*) and
 * the target link-layer option; a Neighbor Solicitation for 'target' from
 * 'src', to the target's solicited-node group or, when 'unicast' is
 * nonnull, to 'target' at that MAC, with the source link-layer option. */
void bridge_l2_put_eth(uint8_t *out, struct eth_addr dst, struct eth_addr src,
                       uint16_t type);
struct dp_packet *bridge_l2_compose_arp(const struct bridge_l2 *, uint16_t op,
                                        ovs_be32 spa, struct eth_addr tha,
                                        bool broadcast, ovs_be32 tpa);
struct dp_packet *bridge_l2_compose_na(const struct bridge_l2 *,
                                       struct eth_addr eth_dst,
                                       const struct in6_addr *target,
                                       const struct in6_addr *dst,
                                       uint32_t rso_flags);
struct dp_packet *bridge_l2_compose_ns(const struct bridge_l2 *,
                                       const struct in6_addr *src,
                                       const struct in6_addr *target,
                                       const struct eth_addr *unicast);

#endif /* bridge-l2-private.h */
