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

#include "bridge-l2-private.h"
#include "coverage.h"
#include "dp-packet.h"
#include "hash.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "pkt-ip.h"
#include "util.h"

/* Core of the L2 adapter: drop reasons, own addresses, the neighbor table,
 * the frame builders, and the peer-to-bridge side with its pending queue.
 * The bridge-to-peer side (and the ICMP "too big" frame) is in
 * bridge-l2-egress.c, which calls into this file, never the other way. */

VLOG_DEFINE_THIS_MODULE(bridge_l2);

static struct vlog_rate_limit bridge_l2_rl = VLOG_RATE_LIMIT_INIT(5, 20);

#define BRIDGE_L2_REASON(ENUM, NAME) COVERAGE_DEFINE(wg_l2_##NAME);
BRIDGE_L2_REASONS
#undef BRIDGE_L2_REASON
/* The neighbor table was full: its least recently confirmed entry went. */
COVERAGE_DEFINE(wg_l2_neigh_evicted);

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
    if (reason != BRIDGE_L2_R_OK) {
        VLOG_DBG_RL(&bridge_l2_rl, "frame not forwarded as is: %s",
                    bridge_l2_reason_name(reason));
    }
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
bridge_l2_conf_is_own(const struct bridge_l2_conf *conf,
                      const struct in6_addr *a)
{
    for (size_t i = 0; i < conf->n_addrs; i++) {
        if (ipv6_addr_equals(&conf->addrs[i].addr, a)) {
            return true;
        }
    }
    return false;
}

bool
bridge_l2_is_own(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    return bridge_l2_conf_is_own(&l2->conf, a);
}

const struct in6_addr *
bridge_l2_own_for(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    const struct in6_addr *any = NULL;

    for (size_t i = 0; i < l2->conf.n_addrs; i++) {
        const struct bridge_l2_own *own = &l2->conf.addrs[i];

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
    return bridge_l2_conf_is_bcast(&l2->conf, a);
}

bool
bridge_l2_conf_is_bcast(const struct bridge_l2_conf *conf,
                        const struct in6_addr *a)
{
    for (size_t i = 0; i < conf->n_addrs; i++) {
        const struct bridge_l2_own *own = &conf->addrs[i];

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

/* Gives senders without the caller's lock a copy of the configuration;
 * the copy they may still read is freed after a grace period. */
static void
publish_conf(struct bridge_l2 *l2)
{
    struct bridge_l2_conf *old = ovsrcu_get_protected(struct bridge_l2_conf *,
                                                      &l2->published);

    ovsrcu_set(&l2->published, xmemdup(&l2->conf, sizeof l2->conf));
    if (old) {
        ovsrcu_postpone(free, old);
    }
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
        memcpy(l2->conf.addrs, addrs, n * sizeof addrs[0]);
        l2->conf.n_addrs = n;
        publish_conf(l2);
    }
    return error;
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

/* Takes the packet of 'p', already off its list, out of the pending
 * queue's accounting and frees 'p'.  Returns the packet. */
static struct dp_packet *
pending_release(struct bridge_l2 *l2, struct bridge_l2_pkt *p)
{
    struct dp_packet *pkt = p->pkt;

    l2->n_held--;
    l2->bytes_held -= dp_packet_size(pkt);
    free(p);
    return pkt;
}

static void
wait_free(struct bridge_l2 *l2, struct bridge_l2_wait *w, bool count_drops)
{
    struct bridge_l2_pkt *p;

    LIST_FOR_EACH_POP (p, list_node, &w->pkts) {
        if (count_drops) {
            bridge_l2_count(l2, BRIDGE_L2_R_PENDING_TIMEOUT);
        }
        dp_packet_delete(pending_release(l2, p));
    }
    hmap_remove(&l2->waits, &w->hmap_node);
    free(w);
}

void
bridge_l2_destroy(struct bridge_l2 *l2)
{
    struct bridge_l2_neigh *n;
    struct bridge_l2_wait *w;
    struct bridge_l2_pkt *p;

    if (!l2) {
        return;
    }
    HMAP_FOR_EACH_SAFE (w, hmap_node, &l2->waits) {
        wait_free(l2, w, false);
    }
    LIST_FOR_EACH_POP (p, list_node, &l2->ready) {
        dp_packet_delete(pending_release(l2, p));
    }
    HMAP_FOR_EACH_POP (n, hmap_node, &l2->neighbors) {
        free(n);
    }
    hmap_destroy(&l2->neighbors);
    hmap_destroy(&l2->waits);
    free(ovsrcu_get_protected(struct bridge_l2_conf *, &l2->published));
    free(l2);
}

void
bridge_l2_set_mac(struct bridge_l2 *l2, struct eth_addr mac)
{
    l2->conf.mac = mac;
    in6_generate_lla(mac, &l2->lla);
    publish_conf(l2);
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
    struct bridge_l2_pkt *p;

    HMAP_FOR_EACH_WITH_HASH (w, hmap_node, addr_hash(a), &l2->waits) {
        if (ipv6_addr_equals(&w->addr, a)) {
            LIST_FOR_EACH_POP (p, list_node, &w->pkts) {
                struct eth_header *eth = dp_packet_data(p->pkt);

                eth->eth_dst = mac;
                ovs_list_push_back(&l2->ready, &p->list_node);
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
        || eth_addr_is_zero(mac) || eth_addr_equals(mac, l2->conf.mac)) {
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
            COVERAGE_INC(wg_l2_neigh_evicted);
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

struct dp_packet *
bridge_l2_compose_arp(const struct bridge_l2 *l2, uint16_t op, ovs_be32 spa,
                      struct eth_addr tha, bool broadcast, ovs_be32 tpa)
{
    struct dp_packet *pkt = dp_packet_new(BRIDGE_L2_ND_FRAME_MAX);

    compose_arp(pkt, op, l2->conf.mac, tha, broadcast, spa, tpa);
    return pkt;
}

struct dp_packet *
bridge_l2_compose_na(const struct bridge_l2 *l2, struct eth_addr eth_dst,
                     const struct in6_addr *target, const struct in6_addr *dst,
                     uint32_t rso_flags)
{
    struct dp_packet *pkt = dp_packet_new(BRIDGE_L2_ND_FRAME_MAX);

    compose_nd_na(pkt, l2->conf.mac, eth_dst, target, dst, htonl(rso_flags));
    return pkt;
}

struct dp_packet *
bridge_l2_compose_ns(const struct bridge_l2 *l2, const struct in6_addr *src,
                     const struct in6_addr *target,
                     const struct eth_addr *unicast)
{
    struct dp_packet *pkt = dp_packet_new(BRIDGE_L2_ND_FRAME_MAX);

    ovs_compat_compose_nd_ns(pkt, l2->conf.mac, src, target);
    if (unicast) {
        /* Readdressed with the checksum updated to match. */
        struct eth_header *eth = dp_packet_eth(pkt);

        eth->eth_dst = *unicast;
        packet_set_ipv6(pkt, src, target, 0, htonl(0), 255);
    }
    return pkt;
}

/* Peer to bridge. */

const struct in6_addr *
bridge_l2_own_in_prefix(const struct bridge_l2 *l2, const struct in6_addr *a)
{
    for (size_t i = 0; i < l2->conf.n_addrs; i++) {
        if (bridge_l2_is_v4(&l2->conf.addrs[i].addr) == bridge_l2_is_v4(a)
            && prefix_contains(&l2->conf.addrs[i], a)) {
            return &l2->conf.addrs[i].addr;
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

/* Puts into 'out' an ARP request or NS for 'dst': broadcast / to the
 * solicited-node group, or to 'unicast' when refreshing a known entry.
 * An NS comes from an own address in the target's prefix, else from the
 * port's link-local address. */
static void
in_solicit(struct bridge_l2 *l2, const struct in6_addr *dst,
           const struct in6_addr *src, const struct eth_addr *unicast,
           struct bridge_l2_ingress *out)
{
    l2->stats.solicits++;
    if (bridge_l2_is_v4(dst)) {
        out->solicit = bridge_l2_compose_arp(
            l2, ARP_OP_REQUEST, arp_sender(l2, dst, src),
            unicast ? *unicast : eth_addr_zero, !unicast,
            in6_addr_get_mapped_ipv4(dst));
    } else {
        const struct in6_addr *from = bridge_l2_own_in_prefix(l2, dst);

        out->solicit = bridge_l2_compose_ns(l2, from ? from : &l2->lla, dst,
                                            unicast);
    }
    out->solicit_len = dp_packet_size(out->solicit);
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

/* Keeps 'pkt' until 'dst' is resolved, soliciting it at most once per
 * BRIDGE_L2_SOLICIT_INTERVAL_MS. */
static enum bridge_l2_in_action
in_queue(struct bridge_l2 *l2, struct dp_packet *pkt, long long int now,
         const struct in6_addr *src, const struct in6_addr *dst,
         struct bridge_l2_ingress *out)
{
    struct bridge_l2_wait *w = wait_find(l2, dst);
    size_t size = ETH_HEADER_LEN + dp_packet_size(pkt);
    struct eth_header *eth;
    struct bridge_l2_pkt *p;

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
        in_solicit(l2, dst, src, NULL, out);
    }
    if (w->n >= l2->limits.pending_per_dst
        || l2->n_held >= l2->limits.pending_total
        || l2->bytes_held + size > l2->limits.pending_bytes) {
        return in_drop(l2, out, BRIDGE_L2_R_PENDING_FULL);
    }
    eth = dp_packet_push_uninit(pkt, ETH_HEADER_LEN);
    *eth = out->eth;
    eth->eth_dst = eth_addr_zero;
    p = xmalloc(sizeof *p);
    p->pkt = pkt;
    ovs_list_push_back(&w->pkts, &p->list_node);
    w->n++;
    l2->n_held++;
    l2->bytes_held += size;
    l2->stats.queued++;
    return BRIDGE_L2_IN_QUEUED;
}

enum bridge_l2_in_action
bridge_l2_to_bridge(struct bridge_l2 *l2, struct dp_packet *pkt,
                    long long int now, struct bridge_l2_ingress *out)
{
    struct in6_addr src, dst;
    struct bridge_l2_neigh *n;

    memset(out, 0, sizeof *out);
    out->same_until = LLONG_MIN;
    bridge_l2_neigh_expire(l2, now);
    if (!in_parse(dp_packet_data(pkt), dp_packet_size(pkt), &src, &dst)) {
        return in_drop(l2, out, BRIDGE_L2_R_IN_BAD);
    }
    out->eth.eth_src = l2->conf.mac;
    out->eth.eth_type = htons(bridge_l2_is_v4(&dst) ? ETH_TYPE_IP
                              : ETH_TYPE_IPV6);
    if (in_group_mac(l2, &dst, &out->eth.eth_dst)) {
        out->same_until = LLONG_MAX;
        return BRIDGE_L2_IN_DELIVER;
    } else if (bridge_l2_is_own(l2, &dst)
               || ipv6_addr_equals(&dst, &l2->lla)) {
        return in_drop(l2, out, BRIDGE_L2_R_IN_TO_SELF);
    }
    n = neigh_find(l2, &dst);
    if (!n || now - n->seen >= BRIDGE_L2_NEIGH_EXPIRE_MS) {
        return in_queue(l2, pkt, now, &src, &dst, out);
    }
    out->eth.eth_dst = n->mac;
    if (now - n->seen < BRIDGE_L2_NEIGH_STALE_MS) {
        out->same_until = n->seen + BRIDGE_L2_NEIGH_STALE_MS;
    } else if (n->probed == LLONG_MIN
               || now - n->probed >= BRIDGE_L2_SOLICIT_INTERVAL_MS) {
        n->probed = now;
        in_solicit(l2, &dst, &src, &n->mac, out);
    }
    return BRIDGE_L2_IN_DELIVER;
}

struct dp_packet *
bridge_l2_pending_pop(struct bridge_l2 *l2)
{
    struct bridge_l2_pkt *p;

    if (ovs_list_is_empty(&l2->ready)) {
        return NULL;
    }
    p = CONTAINER_OF(ovs_list_pop_front(&l2->ready), struct bridge_l2_pkt,
                     list_node);
    l2->stats.flushed++;
    return pending_release(l2, p);
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

size_t
bridge_l2_n_addresses(const struct bridge_l2 *l2)
{
    return l2->conf.n_addrs;
}

void
bridge_l2_get_address(const struct bridge_l2 *l2, size_t i, int *family,
                      uint8_t addr[16], unsigned int *plen)
{
    const struct bridge_l2_own *own = &l2->conf.addrs[i];

    ovs_assert(i < l2->conf.n_addrs);
    *family = bridge_l2_af(&own->addr);
    memcpy(addr, bridge_l2_bytes(&own->addr), *family == AF_INET ? 4 : 16);
    *plen = own->plen;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

struct eth_addr
bridge_l2_get_mac_for_test(const struct bridge_l2 *l2)
{
    return l2->conf.mac;
}

bool
bridge_l2_neigh_lookup_for_test(const struct bridge_l2 *l2, int family,
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
bridge_l2_neigh_count_for_test(const struct bridge_l2 *l2)
{
    return hmap_count(&l2->neighbors);
}

size_t
bridge_l2_pending_count_for_test(const struct bridge_l2 *l2)
{
    return l2->n_held;
}

uint64_t
bridge_l2_reason_count_for_test(const struct bridge_l2 *l2,
                                enum bridge_l2_reason r)
{
    return r < BRIDGE_L2_N_REASONS ? l2->counts[r] : 0;
}

void
bridge_l2_get_stats_for_test(const struct bridge_l2 *l2,
                             struct bridge_l2_stats *stats)
{
    *stats = l2->stats;
}
#endif
