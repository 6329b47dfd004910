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

#include "coverage.h"
#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "timeval.h"
#include "wg-device.h"
#include "wg-l2.h"

/* Glue between the wireguard netdev and its layer-2 adapter (wg-l2): frames
 * from the bridge become inner IP packets or ARP/ND answers; decrypted
 * packets get their Ethernet header, or wait for their neighbor. */

COVERAGE_DEFINE(wg_tx_no_route);
COVERAGE_DEFINE(wg_tx_too_big);
COVERAGE_DEFINE(wg_rx_to_bridge_full);

static void netdev_wg_set_rx_offload(struct dp_packet *, uint64_t meta);

/* Layer 2, bridge side. */

static bool
netdev_wg_routable(void *aux, int family, const void *addr)
{
    struct netdev_wireguard *wg = aux;
    return wg_device_route(wg->dev, family, addr) != NULL;
}

/* Queues the Ethernet frame 'frame' for the bridge, with 'meta' offload
 * information (NETDEV_WG_META_*). */
static void
netdev_wg_frame_to_bridge(struct netdev_wireguard *wg, const void *frame,
                          size_t len, uint64_t meta)
{
    struct dp_packet *pkt;

    pkt = dp_packet_clone_data_with_headroom(frame, len,
                                             NETDEV_WG_RX_HEADROOM);
    netdev_wg_set_rx_offload(pkt, meta);
    if (!netdev_wg_ring_push(&wg->to_bridge, pkt)) {
        COVERAGE_INC(wg_rx_to_bridge_full);
        wg->stats.rx_dropped++;
        dp_packet_delete(pkt);
    }
}

/* Moves the packets whose neighbor became known into 'to_bridge'. */
static void
netdev_wg_flush_resolved(struct netdev_wireguard *wg)
{
    struct wg_l2_pkt *lp;

    while ((lp = wg_l2_pending_pop(wg->l2))) {
        wg->stats.rx_packets++;
        wg->stats.rx_bytes += lp->len - ETH_HEADER_LEN;
        netdev_wg_frame_to_bridge(wg, lp->frame, lp->len, lp->meta);
        wg_l2_pkt_free(lp);
    }
}

/* Handles an IP packet too big for the inner MTU that is not a TSO
 * super-packet.  Returns true if it may still be sent (IPv4 without DF:
 * fragmented at send time). */
static bool
netdev_wg_check_mtu(struct netdev_wireguard *wg, const struct dp_packet *pkt,
                    const struct wg_l2_egress *eg)
{
    const uint8_t *ip = (const uint8_t *) dp_packet_data(pkt) + eg->l3_ofs;
    uint8_t icmp[WG_L2_ICMP_FRAME_MAX];
    size_t n;

    switch (wg_l2_mtu_check(ip, eg->l3_len, wg->mtu)) {
    case WG_L2_MTU_FITS:
    case WG_L2_MTU_FRAGMENT:
        return true;
    case WG_L2_MTU_TOO_BIG:
    default:
        COVERAGE_INC(wg_tx_too_big);
        wg->stats.tx_dropped++;
        n = wg_l2_icmp_too_big(wg->l2, dp_packet_data(pkt),
                               dp_packet_size(pkt), wg->mtu, icmp,
                               sizeof icmp);
        if (n) {
            netdev_wg_frame_to_bridge(wg, icmp, n, 0);
        }
        return false;
    }
}

/* Takes one frame from the bridge: answers ARP/ND, drops what WireGuard
 * cannot carry, sends IP packets to their peer.  Takes ownership. */
void
netdev_wg_l2_from_bridge(struct netdev_wireguard *wg, struct dp_packet *pkt)
{
    uint8_t reply[WG_L2_ND_FRAME_MAX];
    struct wg_l2_egress eg;
    enum wg_l2_eg_action action;
    struct wg_peer *peer;

    action = wg_l2_from_bridge(wg->l2, dp_packet_data(pkt),
                               dp_packet_size(pkt), time_msec(),
                               netdev_wg_routable, wg, reply, sizeof reply,
                               &eg);
    if (eg.resolved) {
        netdev_wg_flush_resolved(wg);
    }
    if (action == WG_L2_EG_REPLY) {
        netdev_wg_frame_to_bridge(wg, reply, eg.reply_len, 0);
    } else if (action == WG_L2_EG_TO_PEER) {
        peer = wg_device_route(wg->dev, eg.family, eg.dst);
        if (!peer) {
            COVERAGE_INC(wg_tx_no_route);
            wg->stats.tx_dropped++;
        } else if ((dp_packet_hwol_is_tso(pkt) && wg->tso)
                   || netdev_wg_check_mtu(wg, pkt, &eg)) {
            dp_packet_pull(pkt, eg.l3_ofs);
            dp_packet_set_size(pkt, eg.l3_len);
            netdev_wg_io_send_inner(wg, peer, pkt);
            return;
        }
    } else {
        wg->stats.tx_dropped++;
    }
    dp_packet_delete(pkt);
}

/* Layer 2, peer side. */

static void
netdev_wg_set_rx_offload(struct dp_packet *pkt, uint64_t meta)
{
    if (meta & NETDEV_WG_META_TSO) {
        dp_packet_hwol_set_tcp_seg(pkt);
        dp_packet_hwol_set_csum_tcp(pkt);
        if (meta & NETDEV_WG_META_IPV6) {
            dp_packet_hwol_set_tx_ipv6(pkt);
        } else {
            dp_packet_hwol_set_tx_ipv4(pkt);
        }
    }
}

/* Hands the inner packet 'ip' to the bridge.  'owner', if nonnull, is a
 * dp_packet whose data is 'ip' (from coalescing) and is consumed. */
void
netdev_wg_l2_to_bridge(struct netdev_wireguard *wg, const uint8_t *ip,
                    size_t len, uint64_t meta, struct dp_packet *owner)
{
    uint8_t solicit[WG_L2_ND_FRAME_MAX];
    struct wg_l2_ingress in;
    enum wg_l2_in_action action;

    action = wg_l2_to_bridge(wg->l2, ip, len, meta, time_msec(), solicit,
                             sizeof solicit, &in);
    if (in.solicit_len) {
        netdev_wg_frame_to_bridge(wg, solicit, in.solicit_len, 0);
    }
    if (action == WG_L2_IN_DELIVER) {
        struct dp_packet *pkt = owner;
        if (!pkt) {
            pkt = dp_packet_clone_data_with_headroom(ip, len,
                                                     NETDEV_WG_RX_HEADROOM);
        }
        dp_packet_push(pkt, &in.eth, sizeof in.eth);
        netdev_wg_set_rx_offload(pkt, meta);
        wg->stats.rx_packets++;
        wg->stats.rx_bytes += len;
        if (!netdev_wg_ring_push(&wg->to_bridge, pkt)) {
            COVERAGE_INC(wg_rx_to_bridge_full);
            wg->stats.rx_dropped++;
            dp_packet_delete(pkt);
        }
        return;
    }
    if (action == WG_L2_IN_DROP) {
        wg->stats.rx_dropped++;
    }
    dp_packet_delete(owner);
}

/* Timers of the layer-2 adapter; called from the class run hook. */
void
netdev_wg_io_run(struct netdev_wireguard *wg)
{
    long long int now = time_msec();

    if (now >= wg_l2_next_deadline(wg->l2)) {
        wg_l2_run(wg->l2, now);
    }
}
