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
#include "coverage.h"
#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "pkt-pool.h"
#include "timeval.h"
#include "util.h"

/* What both directions of the wireguard port hand to the bridge: the
 * 'to_bridge' queue of each receive queue that rxq_recv() drains (queue 0
 * for what is not received), frames the port makes itself
 * (ARP and ND answers and solicitations, ICMP "too big"), the packets the
 * layer-2 adapter held until their neighbor was known, and the adapter's
 * timers.  Also the packet rings used here and for per-peer queues.  Calls
 * nothing of the tx and rx files. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_bridge);

COVERAGE_DEFINE(wg_rx_to_bridge_full);


/* Rings. */

void
netdev_wg_ring_init(struct netdev_wg_ring *ring, size_t cap)
{
    ring->pkts = xmalloc(cap * sizeof *ring->pkts);
    ring->head = ring->n = 0;
    ring->cap = cap;
}

void
netdev_wg_ring_destroy(struct netdev_wg_ring *ring)
{
    struct dp_packet *pkt;

    while ((pkt = netdev_wg_ring_pop(ring))) {
        dp_packet_delete(pkt);
    }
    free(ring->pkts);
    ring->pkts = NULL;
}

bool
netdev_wg_ring_push(struct netdev_wg_ring *ring, struct dp_packet *pkt)
{
    if (ring->n >= ring->cap) {
        return false;
    }
    ring->pkts[(ring->head + ring->n++) % ring->cap] = pkt;
    return true;
}

struct dp_packet *
netdev_wg_ring_peek(const struct netdev_wg_ring *ring)
{
    return ring->n ? ring->pkts[ring->head] : NULL;
}

struct dp_packet *
netdev_wg_ring_pop(struct netdev_wg_ring *ring)
{
    struct dp_packet *pkt;

    if (!ring->n) {
        return NULL;
    }
    pkt = ring->pkts[ring->head];
    ring->head = (ring->head + 1) % ring->cap;
    ring->n--;
    return pkt;
}

void
netdev_wg_ring_pop_batch(struct netdev_wg_ring *ring,
                         struct dp_packet_batch *batch)
{
    struct dp_packet *pkt;

    ovs_compat_batch_clear(batch);
    while (dp_packet_batch_size(batch) < NETDEV_MAX_BURST
           && (pkt = netdev_wg_ring_peek(ring))
           && (dp_packet_batch_is_empty(batch)
               || pkt_pool_same_source(batch->packets[0], pkt))) {
        dp_packet_batch_add(batch, netdev_wg_ring_pop(ring));
    }
}

/* Lifecycle. */

void
netdev_wg_bridge_init(struct netdev_wireguard *wg)
{
    wg->l2 = bridge_l2_create(wg->mac, NULL);
}

void
netdev_wg_bridge_destroy(struct netdev_wireguard *wg)
{
    bridge_l2_destroy(wg->l2);
}

/* To the bridge. */

void
netdev_wg_bridge_push_q(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                        struct dp_packet *pkt)
{
    bool pushed;

    ovs_mutex_lock(&q->ring_mutex);
    pushed = netdev_wg_ring_push(&q->to_bridge, pkt);
    ovs_mutex_unlock(&q->ring_mutex);
    if (!pushed) {
        COVERAGE_INC(wg_rx_to_bridge_full);
        wg->stats.rx_dropped++;
        netdev_wg_count(wg, NETDEV_WG_RX_BRIDGE_FULL);
        dp_packet_delete(pkt);
    }
}

void
netdev_wg_bridge_set_offload(struct dp_packet *pkt, uint64_t meta,
                             uint16_t segsz)
{
    if (meta & NETDEV_WG_META_TSO) {
        ovs_compat_pkt_set_tso(pkt, meta & NETDEV_WG_META_IPV6, segsz);
    }
}

void
netdev_wg_bridge_push(struct netdev_wireguard *wg, struct dp_packet *pkt)
{
    netdev_wg_bridge_push_q(wg, wg->rxqs[0], pkt);
}

/* Queues the Ethernet frame 'frame' for the bridge, with 'meta' offload
 * information (NETDEV_WG_META_*). */
void
netdev_wg_bridge_frame(struct netdev_wireguard *wg, const void *frame,
                       size_t len)
{
    netdev_wg_bridge_push(wg, pkt_pool_clone(frame, len,
                                             NETDEV_WG_RX_HEADROOM));
}

/* Moves the packets whose neighbor became known into 'to_bridge'. */
void
netdev_wg_bridge_flush_resolved(struct netdev_wireguard *wg)
{
    struct dp_packet *pkt;

    while ((pkt = bridge_l2_pending_pop(wg->l2))) {
        wg->stats.rx_packets++;
        wg->stats.rx_bytes += dp_packet_size(pkt) - ETH_HEADER_LEN;
        netdev_wg_bridge_push(wg, pkt);
    }
}

/* Timers of the layer-2 adapter; called from the class run hook. */
void
netdev_wg_bridge_run(struct netdev_wireguard *wg)
{
    long long int now = time_msec();

    if (now >= bridge_l2_next_deadline(wg->l2)) {
        bridge_l2_run(wg->l2, now);
    }
}
