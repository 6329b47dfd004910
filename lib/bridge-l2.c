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
#include "bridge-l2.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "coverage.h"
#include "csum.h"
#include "hash.h"
#include "pkt-ip.h"
#include "util.h"
#include "bridge-l2-private.h"

/* Core of the L2 adapter: drop reasons, own addresses, the neighbor table,
 * the frame builders, and the peer-to-bridge side with its pending queue.
 * The bridge-to-peer side (and the ICMP "too big" frame) is in
 * bridge-l2-egress.c, which calls into this file, never the other way. */

#define BRIDGE_L2_REASON(ENUM, NAME) COVERAGE_DEFINE(wg_l2_##NAME);
BRIDGE_L2_REASONS
#undef BRIDGE_L2_REASON

const char *
bridge_l2_reason_name(enum bridge_l2_reason reason)
{
    static const char *const names[] = {
#define BRIDGE_L2_REASON(ENUM, NAME) "wg_l2_" #NAME,
        BRIDGE_L2_REASONS
#undef BRIDGE_L2_REASON
    };

    return reason < ARRAY_SIZE(names) ? names[reason] : "wg_l2_unknown";
}

void
bridge_l2_count(struct bridge_l2 *l2, enum bridge_l2_reason reason)
{
    l2->counts[reason]++;
    switch (reason) {
#define BRIDGE_L2_REASON(ENUM, NAME)            \
    case BRIDGE_L2_R_##ENUM:                    \
        COVERAGE_INC(wg_l2_##NAME);             \
        break;
        BRIDGE_L2_REASONS
#undef BRIDGE_L2_REASON
    case BRIDGE_L2_N_REASONS:
    default:
        OVS_NOT_REACHED();
    }
}

/* Addresses. */

static bool
prefix_contains(const struct bridge_l2_own *own, const struct in6_addr *a)
{
    struct in6_addr mask = ipv6_create_mask(own->plen6);
    struct in6_addr x = ipv6_addr_bitand(&own->addr, &mask);
    struct in6_addr y = ipv6_addr_bitand(a, &mask);

    return ipv6_addr_equals(&x, &y);
}

bool
bridge_l2_is_own(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    for (size_t i = 0; i < l2->n_addrs; i++) {
        if (ipv6_addr_equals(&l2->addrs[i].addr, a)) {
            return true;
        }
    }
    return false;
}

const struct in6_addr *
bridge_l2_own_for(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    const struct in6_addr *any = NULL;

    for (size_t i = 0; i < l2->n_addrs; i++) {
        const struct bridge_l2_own *own = &l2->addrs[i];

        if (bridge_l2_is_v4(&own->addr) != bridge_l2_is_v4(a)) {
            continue;
        }
        if (prefix_contains(own, a)) {
            return &own->addr;
        }
        any = any ? any : &own->addr;
    }
    return any;
}

bool
bridge_l2_is_bcast(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    for (size_t i = 0; i < l2->n_addrs; i++) {
        const struct bridge_l2_own *own = &l2->addrs[i];

        if (bridge_l2_is_v4(&own->addr) && own->plen <= 30
            && prefix_contains(own, a)) {
            ovs_be32 host = ~be32_prefix_mask(own->plen);

            if ((in6_addr_get_mapped_ipv4(a) & host) == host) {
                return true;
            }
        }
    }
    return false;
}

static char *
parse_one_address(const char *s, struct bridge_l2_own *own)
{
    bool v6 = strchr(s, ':') != NULL;
    ovs_be32 ip4;
    char *error;

    error = (v6 ? ipv6_parse_cidr(s, &own->addr, &own->plen)
             : ip_parse_cidr(s, &ip4, &own->plen));
    if (error) {
        return error;
    }
    if (!v6) {
        /* ip_parse_cidr() takes "1.2.3.300" as "1.2.3.44". */
        char *addr = xmemdup0(s, strcspn(s, "/"));
        bool ok = inet_pton(AF_INET, addr, &ip4) == 1;

        free(addr);
        if (!ok) {
            return xasprintf("%s: invalid IP address", s);
        }
    }
    if (!v6) {
        own->addr = in6_addr_mapped_ipv4(ip4);
    }
    own->plen6 = v6 ? own->plen : own->plen + 96;
    if (!bridge_l2_is_unicast(&own->addr)
        || v6 == bridge_l2_is_v4(&own->addr)) {
        return xasprintf("%s: not a unicast address", s);
    }
    return NULL;
}

char *
bridge_l2_set_addresses(struct bridge_l2 *l2, const char *list)
{
    struct bridge_l2_own addrs[BRIDGE_L2_MAX_ADDRS];
    char *copy = xstrdup(list ? list : "");
    char *save_ptr = NULL;
    char *error = NULL;
    size_t n = 0;

    for (char *tok = strtok_r(copy, ", \t", &save_ptr); tok && !error;
         tok = strtok_r(NULL, ", \t", &save_ptr)) {
        if (n >= BRIDGE_L2_MAX_ADDRS) {
            error = xasprintf("more than %d addresses", BRIDGE_L2_MAX_ADDRS);
        } else {
            error = parse_one_address(tok, &addrs[n++]);
        }
    }
    free(copy);
    if (!error) {
        memcpy(l2->addrs, addrs, n * sizeof addrs[0]);
        l2->n_addrs = n;
    }
    return error;
}

size_t
bridge_l2_n_addresses(const struct bridge_l2 *l2)
{
    return l2->n_addrs;
}

void
bridge_l2_get_address(const struct bridge_l2 *l2, size_t i, int *family,
                      uint8_t addr[16], unsigned int *plen)
{
    const struct bridge_l2_own *own = &l2->addrs[i];

    ovs_assert(i < l2->n_addrs);
    *family = bridge_l2_af(&own->addr);
    memcpy(addr, bridge_l2_bytes(&own->addr), *family == AF_INET ? 4 : 16);
    *plen = own->plen;
}

/* Lifecycle. */

struct bridge_l2 *
bridge_l2_create(struct eth_addr mac, const struct bridge_l2_limits *limits)
{
    struct bridge_l2 *l2 = xzalloc(sizeof *l2);
    struct bridge_l2_limits *lim = &l2->limits;

    if (limits) {
        *lim = *limits;
    }
    lim->max_neighbors = lim->max_neighbors ? lim->max_neighbors : 4096;
    lim->pending_per_dst = lim->pending_per_dst ? lim->pending_per_dst : 16;
    lim->pending_total = lim->pending_total ? lim->pending_total : 256;
    lim->pending_bytes = lim->pending_bytes ? lim->pending_bytes : 1 << 20;
    hmap_init(&l2->neighbors);
    ovs_list_init(&l2->lru);
    hmap_init(&l2->waits);
    ovs_list_init(&l2->ready);
    bridge_l2_set_mac(l2, mac);
    return l2;
}

static void
wait_free(struct bridge_l2 *l2, struct bridge_l2_wait *w, bool count_drops)
{
    struct bridge_l2_pkt *pkt;

    LIST_FOR_EACH_POP (pkt, list_node, &w->pkts) {
        if (count_drops) {
            bridge_l2_count(l2, BRIDGE_L2_R_PENDING_TIMEOUT);
        }
        l2->n_held--;
        l2->bytes_held -= pkt->len;
        free(pkt);
    }
    hmap_remove(&l2->waits, &w->hmap_node);
    free(w);
}

void
bridge_l2_destroy(struct bridge_l2 *l2)
{
    struct bridge_l2_neigh *n;
    struct bridge_l2_wait *w;
    struct bridge_l2_pkt *pkt;

    if (!l2) {
        return;
    }
    HMAP_FOR_EACH_SAFE (w, hmap_node, &l2->waits) {
        wait_free(l2, w, false);
    }
    LIST_FOR_EACH_POP (pkt, list_node, &l2->ready) {
        free(pkt);
    }
    HMAP_FOR_EACH_POP (n, hmap_node, &l2->neighbors) {
        free(n);
    }
    hmap_destroy(&l2->neighbors);
    hmap_destroy(&l2->waits);
    free(l2);
}

void
bridge_l2_set_mac(struct bridge_l2 *l2, struct eth_addr mac)
{
    l2->mac = mac;
    in6_generate_lla(mac, &l2->lla);
}

struct eth_addr
bridge_l2_get_mac(const struct bridge_l2 *l2)
{
    return l2->mac;
}

/* Neighbor table. */

static uint32_t
addr_hash(const struct in6_addr *a)
{
    return hash_bytes(a, sizeof *a, 0);
}

static struct bridge_l2_neigh *
neigh_find(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    struct bridge_l2_neigh *n;

    HMAP_FOR_EACH_WITH_HASH (n, hmap_node, addr_hash(a), &l2->neighbors) {
        if (ipv6_addr_equals(&n->addr, a)) {
            return n;
        }
    }
    return NULL;
}

static void
neigh_remove(struct bridge_l2 *l2, struct bridge_l2_neigh *n)
{
    hmap_remove(&l2->neighbors, &n->hmap_node);
    ovs_list_remove(&n->lru_node);
    free(n);
}

void
bridge_l2_neigh_expire(struct bridge_l2 *l2, long long int now)
{
    while (!ovs_list_is_empty(&l2->lru)) {
        struct bridge_l2_neigh *n = CONTAINER_OF(ovs_list_front(&l2->lru),
                                                 struct bridge_l2_neigh,
                                                 lru_node);
        if (now - n->seen < BRIDGE_L2_LOCAL_EXPIRE_MS) {
            break;
        }
        neigh_remove(l2, n);
    }
}

bool
bridge_l2_is_local(const struct bridge_l2 *l2, const struct in6_addr *a,
                   long long int now)
{
    const struct bridge_l2_neigh *n = neigh_find(l2, a);

    return n && now - n->seen < BRIDGE_L2_LOCAL_EXPIRE_MS;
}

/* Moves the packets waiting for 'a' to the ready list with 'mac' as their
 * destination.  Returns true if there were any. */
static bool
wait_resolve(struct bridge_l2 *l2, const struct in6_addr *a,
             struct eth_addr mac)
{
    struct bridge_l2_wait *w;
    struct bridge_l2_pkt *pkt;

    HMAP_FOR_EACH_WITH_HASH (w, hmap_node, addr_hash(a), &l2->waits) {
        if (ipv6_addr_equals(&w->addr, a)) {
            LIST_FOR_EACH_POP (pkt, list_node, &w->pkts) {
                struct eth_header *eth = (struct eth_header *) pkt->frame;

                eth->eth_dst = mac;
                ovs_list_push_back(&l2->ready, &pkt->list_node);
            }
            hmap_remove(&l2->waits, &w->hmap_node);
            free(w);
            return true;
        }
    }
    return false;
}

bool
bridge_l2_neigh_learn(struct bridge_l2 *l2, const struct in6_addr *a,
                      struct eth_addr mac, long long int now)
{
    struct bridge_l2_neigh *n;

    if (!bridge_l2_is_unicast(a) || bridge_l2_is_own(l2, a)
        || ipv6_addr_equals(a, &l2->lla) || eth_addr_is_multicast(mac)
        || eth_addr_is_zero(mac) || eth_addr_equals(mac, l2->mac)) {
        return false;
    }
    n = neigh_find(l2, a);
    if (n) {
        ovs_list_remove(&n->lru_node);
    } else {
        if (hmap_count(&l2->neighbors) >= l2->limits.max_neighbors) {
            neigh_remove(l2, CONTAINER_OF(ovs_list_front(&l2->lru),
                                          struct bridge_l2_neigh, lru_node));
            l2->stats.evicted++;
        }
        n = xzalloc(sizeof *n);
        n->addr = *a;
        n->probed = LLONG_MIN;
        hmap_insert(&l2->neighbors, &n->hmap_node, addr_hash(a));
        l2->stats.learned++;
    }
    n->mac = mac;
    n->seen = now;
    ovs_list_push_back(&l2->lru, &n->lru_node);
    return wait_resolve(l2, a, mac);
}

bool
bridge_l2_neigh_lookup(const struct bridge_l2 *l2, int family,
                       const void *addr, long long int now,
                       struct eth_addr *mac)
{
    struct in6_addr a = bridge_l2_addr_from(family, addr);
    const struct bridge_l2_neigh *n = neigh_find(l2, &a);

    if (n && now - n->seen < BRIDGE_L2_NEIGH_EXPIRE_MS) {
        *mac = n->mac;
        return true;
    }
    return false;
}

size_t
bridge_l2_neigh_count(const struct bridge_l2 *l2)
{
    return hmap_count(&l2->neighbors);
}

/* Frame builders. */

void
bridge_l2_put_eth(uint8_t *out, struct eth_addr dst, struct eth_addr src,
                  uint16_t type)
{
    struct eth_header *eth = (struct eth_header *) out;

    eth->eth_dst = dst;
    eth->eth_src = src;
    eth->eth_type = htons(type);
}

size_t
bridge_l2_build_arp(const struct bridge_l2 *l2, uint8_t *out,
                    struct eth_addr eth_dst, uint16_t op, ovs_be32 spa,
                    struct eth_addr tha, ovs_be32 tpa)
{
    struct arp_eth_header *arp = (void *) (out + ETH_HEADER_LEN);

    bridge_l2_put_eth(out, eth_dst, l2->mac, ETH_TYPE_ARP);
    arp->ar_hrd = htons(ARP_HRD_ETHERNET);
    arp->ar_pro = htons(ARP_PRO_IP);
    arp->ar_hln = ETH_ADDR_LEN;
    arp->ar_pln = 4;
    arp->ar_op = htons(op);
    arp->ar_sha = l2->mac;
    put_16aligned_be32(&arp->ar_spa, spa);
    arp->ar_tha = tha;
    put_16aligned_be32(&arp->ar_tpa, tpa);
    return BRIDGE_L2_ARP_FRAME_LEN;
}

size_t
bridge_l2_build_nd(const struct bridge_l2 *l2, uint8_t *out,
                   struct eth_addr eth_dst, const struct in6_addr *src,
                   const struct in6_addr *dst, uint8_t type,
                   uint32_t rso_flags, const struct in6_addr *target)
{
    struct ovs_16aligned_ip6_hdr *ip6 = (void *) (out + ETH_HEADER_LEN);
    struct ovs_nd_msg *nd = (void *) (ip6 + 1);
    uint32_t partial;

    bridge_l2_put_eth(out, eth_dst, l2->mac, ETH_TYPE_IPV6);
    put_16aligned_be32(&ip6->ip6_flow, htonl(6 << 28));
    ip6->ip6_plen = htons(ND_MSG_LEN + ND_LLA_OPT_LEN);
    ip6->ip6_nxt = IPPROTO_ICMPV6;
    ip6->ip6_hlim = 255;
    memcpy(&ip6->ip6_src, src, sizeof *src);
    memcpy(&ip6->ip6_dst, dst, sizeof *dst);
    nd->icmph.icmp6_type = type;
    nd->icmph.icmp6_code = 0;
    nd->icmph.icmp6_cksum = htons(0);
    put_16aligned_be32(&nd->rso_flags, htonl(rso_flags));
    memcpy(&nd->target, target, sizeof *target);
    nd->options[0].type = (type == ND_NEIGHBOR_SOLICIT
                           ? ND_OPT_SOURCE_LINKADDR : ND_OPT_TARGET_LINKADDR);
    nd->options[0].len = 1;
    nd->options[0].mac = l2->mac;
    partial = packet_csum_pseudoheader6(ip6);
    partial = csum_continue(partial, nd, ND_MSG_LEN + ND_LLA_OPT_LEN);
    nd->icmph.icmp6_cksum = csum_finish(partial);
    return BRIDGE_L2_ND_FRAME_LEN;
}

/* Peer to bridge. */

const struct in6_addr *
bridge_l2_own_in_prefix(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    for (size_t i = 0; i < l2->n_addrs; i++) {
        if (bridge_l2_is_v4(&l2->addrs[i].addr) == bridge_l2_is_v4(a)
            && prefix_contains(&l2->addrs[i], a)) {
            return &l2->addrs[i].addr;
        }
    }
    return NULL;
}

/* The sender IP of an ARP request for 'target' on behalf of a packet from
 * 'inner_src': an own address in the target's prefix; else the inner
 * source, a remote address that the guest can reach through this port
 * anyway (Linux answers requests from any sender and caches it); else any
 * own IPv4 address; else 0.0.0.0, which Linux also answers but which a
 * guest that is probing for 'target' (RFC 5227) would take as a
 * conflict. */
static ovs_be32
arp_sender(const struct bridge_l2 *l2, const struct in6_addr *target,
           const struct in6_addr *inner_src)
{
    const struct in6_addr *own = bridge_l2_own_in_prefix(l2, target);

    if (!own && bridge_l2_is_v4(inner_src)
        && bridge_l2_is_unicast(inner_src)) {
        own = inner_src;
    }
    own = own ? own : bridge_l2_own_for(l2, target);
    return own ? in6_addr_get_mapped_ipv4(own) : htonl(0);
}

/* Writes an ARP request or NS for 'dst' to 'out': broadcast / to the
 * solicited-node group, or to 'unicast' when refreshing a known entry.
 * An NS comes from an own address in the target's prefix, else from the
 * port's link-local address. */
static size_t
in_solicit(struct bridge_l2 *l2, const struct in6_addr *dst,
           const struct in6_addr *src, const struct eth_addr *unicast,
           uint8_t *out)
{
    l2->stats.solicits++;
    if (bridge_l2_is_v4(dst)) {
        return bridge_l2_build_arp(l2, out,
                                   unicast ? *unicast : eth_addr_broadcast,
                                   ARP_OP_REQUEST, arp_sender(l2, dst, src),
                                   unicast ? *unicast : eth_addr_zero,
                                   in6_addr_get_mapped_ipv4(dst));
    } else {
        const struct in6_addr *from = bridge_l2_own_in_prefix(l2, dst);
        struct in6_addr snm;
        struct eth_addr mac;

        in6_addr_solicited_node(&snm, dst);
        ipv6_multicast_to_ethernet(&mac, &snm);
        return bridge_l2_build_nd(l2, out, unicast ? *unicast : mac,
                                  from ? from : &l2->lla, unicast ? dst : &snm,
                                  ND_NEIGHBOR_SOLICIT, 0, dst);
    }
}

/* Reads the addresses of the inner packet 'p' ('len' bytes).  Returns
 * false if it has no IP header or no usable destination. */
static bool
in_parse(const uint8_t *p, size_t len, struct in6_addr *src,
         struct in6_addr *dst)
{
    int family = pkt_ip_family(p, len);

    if (family == AF_UNSPEC) {
        return false;
    }
    pkt_ip_get_addrs(p, family == AF_INET6, src, dst);
    if (family == AF_INET) {
        return in6_addr_get_mapped_ipv4(dst) != htonl(0);
    }
    return (ipv6_addr_is_set(dst) && !bridge_l2_is_v4(dst)
            && !bridge_l2_is_v4(src));
}

/* The group MAC for a multicast or broadcast 'dst'; false if unicast. */
static bool
in_group_mac(const struct bridge_l2 *l2, const struct in6_addr *dst,
             struct eth_addr *mac)
{
    if (bridge_l2_is_v4(dst)) {
        const uint8_t *b = &dst->s6_addr[12];

        if (ip_is_multicast(in6_addr_get_mapped_ipv4(dst))) {
            *mac = (struct eth_addr) { { { 0x01, 0x00, 0x5e, b[1] & 0x7f,
                                           b[2], b[3] } } };
            return true;
        } else if (!bridge_l2_is_unicast(dst) || bridge_l2_is_bcast(l2, dst)) {
            *mac = eth_addr_broadcast;
            return true;
        }
    } else if (ipv6_addr_is_multicast(dst)) {
        ipv6_multicast_to_ethernet(mac, dst);
        return true;
    }
    return false;
}

static struct bridge_l2_wait *
wait_find(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    struct bridge_l2_wait *w;

    HMAP_FOR_EACH_WITH_HASH (w, hmap_node, addr_hash(a), &l2->waits) {
        if (ipv6_addr_equals(&w->addr, a)) {
            return w;
        }
    }
    return NULL;
}

static enum bridge_l2_in_action
in_drop(struct bridge_l2 *l2, struct bridge_l2_ingress *out,
        enum bridge_l2_reason r)
{
    out->reason = r;
    bridge_l2_count(l2, r);
    return BRIDGE_L2_IN_DROP;
}

/* Queues a copy of 'ip' until 'dst' is resolved, soliciting it at most
 * once per BRIDGE_L2_SOLICIT_INTERVAL_MS. */
static enum bridge_l2_in_action
in_queue(struct bridge_l2 *l2, const void *ip, size_t len, uint64_t meta,
         long long int now, const struct in6_addr *src,
         const struct in6_addr *dst, uint8_t *solicit,
         struct bridge_l2_ingress *out)
{
    struct bridge_l2_wait *w = wait_find(l2, dst);
    size_t size = ETH_HEADER_LEN + len;
    struct bridge_l2_pkt *pkt;

    if (w && now - w->created >= BRIDGE_L2_PENDING_TIMEOUT_MS) {
        wait_free(l2, w, true);
        w = NULL;
    }
    if (!w) {
        if (hmap_count(&l2->waits) >= l2->limits.pending_total) {
            return in_drop(l2, out, BRIDGE_L2_R_PENDING_FULL);
        }
        w = xzalloc(sizeof *w);
        w->addr = *dst;
        w->created = now;
        w->solicited = LLONG_MIN;
        ovs_list_init(&w->pkts);
        hmap_insert(&l2->waits, &w->hmap_node, addr_hash(dst));
    }
    if (w->solicited == LLONG_MIN
        || now - w->solicited >= BRIDGE_L2_SOLICIT_INTERVAL_MS) {
        w->solicited = now;
        out->solicit_len = in_solicit(l2, dst, src, NULL, solicit);
    }
    if (w->n >= l2->limits.pending_per_dst
        || l2->n_held >= l2->limits.pending_total
        || l2->bytes_held + size > l2->limits.pending_bytes) {
        return in_drop(l2, out, BRIDGE_L2_R_PENDING_FULL);
    }
    pkt = xmalloc(sizeof *pkt + size);
    pkt->meta = meta;
    pkt->len = size;
    bridge_l2_put_eth(pkt->frame, eth_addr_zero, l2->mac,
                      ntohs(out->eth.eth_type));
    memcpy(pkt->frame + ETH_HEADER_LEN, ip, len);
    ovs_list_push_back(&w->pkts, &pkt->list_node);
    w->n++;
    l2->n_held++;
    l2->bytes_held += size;
    l2->stats.queued++;
    return BRIDGE_L2_IN_QUEUED;
}

enum bridge_l2_in_action
bridge_l2_to_bridge(struct bridge_l2 *l2, const void *ip, size_t len,
                    uint64_t meta, long long int now, void *solicit,
                    size_t solicit_size, struct bridge_l2_ingress *out)
{
    struct in6_addr src, dst;
    struct bridge_l2_neigh *n;

    ovs_assert(solicit_size >= BRIDGE_L2_ND_FRAME_MAX);
    memset(out, 0, sizeof *out);
    bridge_l2_neigh_expire(l2, now);
    if (!in_parse(ip, len, &src, &dst)) {
        return in_drop(l2, out, BRIDGE_L2_R_IN_BAD);
    }
    out->eth.eth_src = l2->mac;
    out->eth.eth_type = htons(bridge_l2_is_v4(&dst) ? ETH_TYPE_IP
                              : ETH_TYPE_IPV6);
    if (in_group_mac(l2, &dst, &out->eth.eth_dst)) {
        return BRIDGE_L2_IN_DELIVER;
    } else if (bridge_l2_is_own(l2, &dst)
               || ipv6_addr_equals(&dst, &l2->lla)) {
        return in_drop(l2, out, BRIDGE_L2_R_IN_TO_SELF);
    }
    n = neigh_find(l2, &dst);
    if (!n || now - n->seen >= BRIDGE_L2_NEIGH_EXPIRE_MS) {
        return in_queue(l2, ip, len, meta, now, &src, &dst, solicit, out);
    }
    out->eth.eth_dst = n->mac;
    if (now - n->seen >= BRIDGE_L2_NEIGH_STALE_MS
        && (n->probed == LLONG_MIN
            || now - n->probed >= BRIDGE_L2_SOLICIT_INTERVAL_MS)) {
        n->probed = now;
        out->solicit_len = in_solicit(l2, &dst, &src, &n->mac, solicit);
    }
    return BRIDGE_L2_IN_DELIVER;
}

struct bridge_l2_pkt *
bridge_l2_pending_pop(struct bridge_l2 *l2)
{
    struct bridge_l2_pkt *pkt;

    if (ovs_list_is_empty(&l2->ready)) {
        return NULL;
    }
    pkt = CONTAINER_OF(ovs_list_pop_front(&l2->ready), struct bridge_l2_pkt,
                       list_node);
    l2->n_held--;
    l2->bytes_held -= pkt->len;
    l2->stats.flushed++;
    return pkt;
}

void
bridge_l2_pkt_free(struct bridge_l2_pkt *pkt)
{
    free(pkt);
}

size_t
bridge_l2_pending_count(const struct bridge_l2 *l2)
{
    return l2->n_held;
}

void
bridge_l2_run(struct bridge_l2 *l2, long long int now)
{
    struct bridge_l2_wait *w;

    bridge_l2_neigh_expire(l2, now);
    HMAP_FOR_EACH_SAFE (w, hmap_node, &l2->waits) {
        if (now - w->created >= BRIDGE_L2_PENDING_TIMEOUT_MS) {
            wait_free(l2, w, true);
        }
    }
}

long long int
bridge_l2_next_deadline(const struct bridge_l2 *l2)
{
    long long int deadline = LLONG_MAX;
    const struct bridge_l2_wait *w;

    HMAP_FOR_EACH (w, hmap_node, &l2->waits) {
        deadline = MIN(deadline, w->created + BRIDGE_L2_PENDING_TIMEOUT_MS);
    }
    return deadline;
}

uint64_t
bridge_l2_reason_count(const struct bridge_l2 *l2, enum bridge_l2_reason r)
{
    return r < BRIDGE_L2_N_REASONS ? l2->counts[r] : 0;
}

void
bridge_l2_get_stats(const struct bridge_l2 *l2, struct bridge_l2_stats *stats)
{
    *stats = l2->stats;
}
