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

#include <string.h>

#include "addr-memo.h"
#include "bridge-l2.h"
#include "coverage.h"
#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-rx.h"
#include "pkt-gro.h"
#include "pkt-ip.h"
#include "pkt-pool.h"
#include "util.h"

/* Inner packets to the bridge: steps 5 and 6 of a receive round
 * (netdev-wireguard-rx.c, above, which describes the round).  Coalescing
 * by pkt-gro, then each inner packet gets its Ethernet header, from the
 * layer-2 adapter under the port's lock (netdev_wg_rx_deliver()) or, for
 * a round that needs no lock, from the headers the queue remembers
 * (netdev_wg_rx_deliver_unlocked()), and waits in the queue's ring for the
 * bridge.  Both ways end a frame with netdev_wg_rx_frame(). */

COVERAGE_DEFINE(wg_rx_coalesced);
COVERAGE_DEFINE(wg_rx_gro_round);
COVERAGE_DEFINE(wg_rx_gro_input);
COVERAGE_DEFINE(wg_rx_merged);
COVERAGE_DEFINE(wg_rx_l2_drop);

/* The destination of the inner IP packet 'ip' (checked by the device). */
static struct in6_addr
netdev_wg_rx_dst(const uint8_t *ip)
{
    struct in6_addr src, dst;

    pkt_ip_get_addrs(ip, (ip[0] >> 4) == 6, &src, &dst);
    return dst;
}

/* After the adapter gave inner packet 'ip' header 'in->eth' with nothing
 * else to do (at 'now'), 'q' remembers it for the rounds it hands over
 * without the port's lock, at most NETDEV_WG_RX_RESOLVED_MS: as long as a
 * transmit queue remembers a source it taught, so that a neighbor's new
 * MAC or its eviction is seen within that time. */
static void
netdev_wg_rx_remember(struct netdev_wg_rxq *q, const uint8_t *ip,
                      const struct bridge_l2_ingress *in, long long int now)
{
    struct in6_addr dst = netdev_wg_rx_dst(ip);

    if (in->same_until > now && !in->solicit) {
        addr_memo_put(&q->resolved, &dst, &in->eth,
                      MIN(in->same_until, now + NETDEV_WG_RX_RESOLVED_MS),
                      now);
    }
}

/* The header 'q' remembers for inner packet 'ip' at 'now', or NULL. */
static const struct eth_header *
netdev_wg_rx_recall(struct netdev_wg_rxq *q, const uint8_t *ip,
                    long long int now)
{
    struct in6_addr dst = netdev_wg_rx_dst(ip);

    return addr_memo_get(&q->resolved, &dst, now);
}

/* Makes the packet for inner packet 'ip' of 'len' bytes: 'owner', if
 * nonnull, a dp_packet whose data is 'ip' (from coalescing), else a copy;
 * with offload 'meta' and, for a super-packet, its segments' payload size
 * 'segsz'. */
static struct dp_packet *
netdev_wg_rx_packet(struct netdev_wg_rxq *q, const uint8_t *ip, size_t len,
                    uint64_t meta, uint16_t segsz, struct dp_packet *owner)
{
    struct dp_packet *pkt = owner;

    if (!pkt) {
        pkt = pkt_pool_clone(ip, len, NETDEV_WG_RX_HEADROOM);
    }
    netdev_wg_counter_add(pkt_pool_is_pooled(pkt) ? &q->counts.rx_pooled
                          : &q->counts.rx_allocated, 1);
    netdev_wg_bridge_set_offload(pkt, meta, segsz);
    return pkt;
}

/* Gives inner packet 'pkt' of 'len' bytes its Ethernet header 'eth' and
 * counts it as a frame for the bridge: the last step of both ways to it. */
static void
netdev_wg_rx_frame(struct netdev_wg_rxq *q, struct dp_packet *pkt,
                   const struct eth_header *eth, size_t len)
{
    dp_packet_push(pkt, eth, sizeof *eth);
    netdev_wg_counter_add(&q->counts.packets, 1);
    netdev_wg_counter_add(&q->counts.inner_bytes, len);
}

/* Hands the inner packet 'ip' to the bridge through the layer-2 adapter
 * at 'now' (see netdev_wg_rx_packet() for the other arguments). */
static void
netdev_wg_rx_to_bridge(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                       const uint8_t *ip, size_t len, uint64_t meta,
                       uint16_t segsz, struct dp_packet *owner,
                       long long int now)
    OVS_REQUIRES(wg->mutex)
{
    struct dp_packet *pkt = netdev_wg_rx_packet(q, ip, len, meta, segsz,
                                                owner);
    struct bridge_l2_ingress in;
    enum bridge_l2_in_action action;

    action = bridge_l2_to_bridge(wg->l2, pkt, now, &in);
    if (in.solicit) {
        netdev_wg_bridge_push_q(wg, q, in.solicit);
    }
    if (action == BRIDGE_L2_IN_DELIVER) {
        netdev_wg_rx_remember(q, dp_packet_data(pkt), &in, now);
        netdev_wg_rx_frame(q, pkt, &in.eth, len);
        netdev_wg_bridge_push_q(wg, q, pkt);
    } else if (action == BRIDGE_L2_IN_DROP) {
        /* The adapter counted and logged the reason (bridge_l2_*). */
        COVERAGE_INC(wg_rx_l2_drop);
        wg->stats.rx_dropped++;
        netdev_wg_count(wg, NETDEV_WG_RX_L2);
        dp_packet_delete(pkt);
    }
}

#ifdef DPDK_NETDEV
/* The largest frame we coalesce must fit the external buffer that
 * netdev-dpdk attaches when it copies our packet into an mbuf: headroom,
 * data, shared info and a pointer, rounded up to a pointer's size, within
 * UINT16_MAX (dpdk_pktmbuf_attach_extbuf()). */
BUILD_ASSERT_DECL(ROUND_UP(RTE_PKTMBUF_HEADROOM + NETDEV_WG_FRAME_MAX
                           + sizeof(struct rte_mbuf_ext_shared_info)
                           + sizeof(uintptr_t), sizeof(uintptr_t))
                  <= UINT16_MAX);
#endif

/* pkt_gro_grow_func: moves a run's head into a dp_packet with room for a
 * whole super-packet. */
static bool
netdev_wg_gro_grow(void *aux, struct pkt_gro_pkt *g, size_t room)
{
    struct netdev_wg_rxq *q = aux;
    size_t i = g - q->inner;
    struct dp_packet *pkt = q->owner[i];

    if (pkt || room > NETDEV_WG_GRO_MAX) {
        return false;
    }
    pkt = pkt_pool_new(NETDEV_WG_GRO_MAX, NETDEV_WG_RX_HEADROOM);
    dp_packet_put(pkt, g->data, g->len);
    q->owner[i] = pkt;
    g->data = dp_packet_data(pkt);
    g->room = g->len + dp_packet_tailroom(pkt);
    return true;
}

/* Step 5: coalesces the round's 'n' inner packets (if 'gro'), without
 * the port's lock. */
void
netdev_wg_rx_coalesce(struct netdev_wg_rxq *q, size_t n, bool gro)
{
    if (gro) {
        COVERAGE_INC(wg_rx_gro_round);
        COVERAGE_ADD(wg_rx_gro_input, n);
        pkt_gro_batch(q->inner, n, netdev_wg_gro_grow, q);
    }
    for (size_t i = 0; i < n && !gro; i++) {
        q->inner[i].verdict = PKT_GRO_PASS;
        pkt_gro_unplace(&q->inner[i]);
    }
}

/* Step 6 for the round's inner packet 'i': false if it was merged into
 * another; otherwise true, with its offload 'meta' in '*meta'.  Counts
 * what coalescing did. */
static bool
netdev_wg_rx_leaves(struct netdev_wg_rxq *q, size_t i, uint64_t *meta)
{
    struct pkt_gro_pkt *g = &q->inner[i];

    *meta = 0;
    if (g->verdict == PKT_GRO_MERGED) {
        COVERAGE_INC(wg_rx_merged);
        netdev_wg_counter_add(&q->counts.merged, 1);
        return false;
    }
    if (g->verdict == PKT_GRO_COALESCED) {
        COVERAGE_INC(wg_rx_coalesced);
        netdev_wg_counter_add(&q->counts.coalesced, 1);
        *meta = NETDEV_WG_META_TSO | (g->ipv6 ? NETDEV_WG_META_IPV6 : 0);
        if (q->owner[i]) {
            dp_packet_set_size(q->owner[i], g->len);
        }
    }
    return true;
}

/* Step 6: hands the round's 'n' inner packets, as coalesced, to the
 * bridge through the layer-2 adapter, at 'now'. */
void
netdev_wg_rx_deliver(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                     size_t n, long long int now)
    OVS_REQUIRES(wg->mutex)
{
    for (size_t i = 0; i < n; i++) {
        struct pkt_gro_pkt *g = &q->inner[i];
        uint64_t meta;

        if (netdev_wg_rx_leaves(q, i, &meta)) {
            netdev_wg_rx_to_bridge(wg, q, g->data, g->len, meta,
                                   g->gso_size, q->owner[i], now);
        }
    }
}

/* Whether each of the round's 'n' inner packets that leaves has a header
 * that 'q' remembers at 'now', and the ring has room for them. */
static bool
netdev_wg_rx_all_recalled(struct netdev_wg_rxq *q, size_t n,
                          long long int now)
    OVS_REQUIRES(q->ring_mutex)
{
    size_t leaving = 0;

    for (size_t i = 0; i < n; i++) {
        const struct pkt_gro_pkt *g = &q->inner[i];

        if (g->verdict != PKT_GRO_MERGED) {
            if (!netdev_wg_rx_recall(q, g->data, now)) {
                return false;
            }
            leaving++;
        }
    }
    return q->to_bridge.cap - q->to_bridge.n >= leaving;
}

/* Step 6 without the port's lock, for a round that took it nowhere: if
 * every inner packet's destination was resolved by the adapter within
 * NETDEV_WG_RX_RESOLVED_MS (and no probe is due), hands the 'n' inner
 * packets to the bridge with those headers, and returns true.  Otherwise
 * returns false, having done nothing.  'now' as for netdev_wg_rx_deliver(). */
bool
netdev_wg_rx_deliver_unlocked(struct netdev_wg_rxq *q, size_t n,
                              long long int now)
{
    bool ok;

    ovs_mutex_lock(&q->ring_mutex);
    ok = netdev_wg_rx_all_recalled(q, n, now);
    for (size_t i = 0; ok && i < n; i++) {
        struct pkt_gro_pkt *g = &q->inner[i];
        const struct eth_header *eth;
        struct dp_packet *pkt;
        uint64_t meta;

        if (netdev_wg_rx_leaves(q, i, &meta)) {
            eth = netdev_wg_rx_recall(q, g->data, now);
            pkt = netdev_wg_rx_packet(q, g->data, g->len, meta, g->gso_size,
                                      q->owner[i]);
            netdev_wg_rx_frame(q, pkt, eth, g->len);
            netdev_wg_ring_push(&q->to_bridge, pkt);
        }
    }
    ovs_mutex_unlock(&q->ring_mutex);
    return ok;
}
