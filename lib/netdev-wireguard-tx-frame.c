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

#include "addr-memo.h"
#include "bridge-l2.h"
#include "coverage.h"
#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-tx.h"
#include "ovs-compat.h"
#include "pkt-mtu.h"
#include "util.h"
#include "wg-device.h"

/* A frame from the bridge, under the port's lock: the layer-2 adapter
 * answers ARP/ND itself, learns the frame's source and drops what
 * WireGuard cannot carry, or yields an inner IP packet; cryptokey routing
 * picks its peer and the MTU policy lets it through (fragmented at send
 * time if IPv4 without DF) or answers ICMP "too big".  The packet then
 * goes to its peer by netdev_wg_tx_locked() (netdev-wireguard-tx.c),
 * below.  Called by the batch (netdev-wireguard-tx-batch.c) above. */

COVERAGE_DEFINE(wg_tx_no_route);
COVERAGE_DEFINE(wg_tx_too_big);
COVERAGE_DEFINE(wg_tx_l2_drop);

static bool
netdev_wg_routable(void *aux, int family, const void *addr)
{
    struct netdev_wireguard *wg = aux;
    return wg_device_route(wg->dev, family, addr) != NULL;
}

/* Handles an IP packet too big for the inner MTU that is not a TSO
 * super-packet.  Returns true if it may still be sent (IPv4 without DF:
 * fragmented at send time). */
static bool
netdev_wg_check_mtu(struct netdev_wireguard *wg, const struct dp_packet *pkt,
                    const struct bridge_l2_egress *eg)
{
    const uint8_t *ip = (const uint8_t *) dp_packet_data(pkt) + eg->l3_ofs;
    uint8_t icmp[BRIDGE_L2_ICMP_FRAME_MAX];
    size_t n;

    switch (pkt_mtu_check(ip, eg->l3_len, wg->mtu)) {
    case PKT_MTU_FITS:
    case PKT_MTU_FRAGMENT:
        return true;
    case PKT_MTU_TOO_BIG:
    default:
        COVERAGE_INC(wg_tx_too_big);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_TOO_BIG);
        if (is_pow2(wg->counters[NETDEV_WG_TX_TOO_BIG])) {
            /* status:tx_too_big, refreshed a logarithmic number of times:
             * OVS reads the status only when the change sequence moves. */
            netdev_change_seq_changed(&wg->up);
        }
        n = bridge_l2_icmp_too_big(wg->l2, dp_packet_data(pkt),
                                   dp_packet_size(pkt), wg->mtu, icmp,
                                   sizeof icmp);
        if (n) {
            netdev_wg_bridge_frame(wg, icmp, n);
        }
        return false;
    }
}

bool
netdev_wg_tx_learned(const struct netdev_wg_tx *tx,
                     const struct in6_addr *src, struct eth_addr mac,
                     long long int now)
{
    const struct eth_header *eth = addr_memo_get(&tx->learned, src, now);

    return eth && eth_addr_equals(eth->eth_src, mac);
}

/* After the adapter judged 'pkt' (under the port's lock) to go to a peer,
 * and learned its source at 'now': a transmit queue remembers that, so
 * that its sends without the lock may skip learning it again for a
 * while. */
static void
netdev_wg_tx_remember_source(struct netdev_wg_tx *tx,
                             const struct dp_packet *pkt,
                             const struct bridge_l2_egress *eg,
                             long long int now)
{
    const struct eth_header *eth = dp_packet_data(pkt);

    if (tx->pending) {
        struct eth_header l = { .eth_src = eth->eth_src };

        addr_memo_put(&tx->learned, &eg->src, &l,
                      now + NETDEV_WG_TX_LEARNED_MS, now);
    }
}

/* Takes one frame from the bridge at 'now' (the adapter's clock, read
 * once a batch): answers ARP/ND, drops what WireGuard cannot carry, sends
 * IP packets to their peer.  Takes ownership. */
void
netdev_wg_tx_frame(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                   struct dp_packet *pkt, const struct pkt_ip_frame *ip,
                   long long int now)
{
    struct bridge_l2_egress eg;
    enum bridge_l2_eg_action action;
    struct wg_peer *peer;

    action = bridge_l2_from_bridge(wg->l2, dp_packet_data(pkt),
                                   dp_packet_size(pkt), ip, now,
                                   netdev_wg_routable, wg, &eg);
    if (eg.resolved) {
        netdev_wg_bridge_flush_resolved(wg);
    }
    if (action == BRIDGE_L2_EG_REPLY) {
        netdev_wg_bridge_push(wg, eg.reply);
    } else if (action == BRIDGE_L2_EG_TO_PEER) {
        netdev_wg_tx_remember_source(tx, pkt, &eg, now);
        peer = wg_device_route(wg->dev, eg.family, eg.dst);
        if (!peer) {
            COVERAGE_INC(wg_tx_no_route);
            netdev_wg_tx_drop(wg, NETDEV_WG_TX_NO_ROUTE);
        } else if ((ovs_compat_pkt_is_tso(pkt) && wg->tso)
                   || netdev_wg_check_mtu(wg, pkt, &eg)) {
            dp_packet_pull(pkt, eg.l3_ofs);
            dp_packet_set_size(pkt, eg.l3_len);
            netdev_wg_tx_locked(wg, tx, peer, pkt, ip);
            return;
        }
    } else {
        COVERAGE_INC(wg_tx_l2_drop);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_L2);
    }
    dp_packet_delete(pkt);
}
