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
#include <sys/socket.h>

#include "dp-packet.h"
#include "netdev-wireguard-underlay.h"
#include "netdev-wireguard-underlay-private.h"
#include "pkt-pool.h"
#include "seq.h"
#include "timeval.h"
#include "util.h"

/* The datapath underlay's send side: each message the wireguard port
 * would have handed to its UDP socket becomes one Ethernet frame, written
 * by ul_frame_encap() into a packet of pkt-pool (an mbuf of its DPDK
 * mempools once DPDK runs) and queued for the companion's rxq_recv(), so
 * that the underlay bridge's flows choose the wire.  The next hop comes
 * from ul_neigh_next_hop() and its MAC from the neighbour cache; when the
 * cache says to ask, a broadcast ARP request or multicast NS (or a unicast
 * probe) goes out first, and a message whose next hop has no MAC yet is
 * held, at most NETDEV_WG_UL_HOLD_MAX of them for NETDEV_WG_UL_HOLD_MS,
 * until the answer comes (netdev_wg_ul_release()) or its time is out.
 * Every drop is counted per reason (NETDEV_WG_UL_COUNTERS).  A batch takes
 * the companion's 'mutex' once. */

static void
netdev_wg_ul_count(struct netdev_wg_ul *ul, enum netdev_wg_ul_counter c)
    OVS_REQUIRES(ul->mutex)
{
    ul->counters[c]++;
}

void
netdev_wg_ul_to_dp(struct netdev_wg_ul *ul, struct dp_packet *pkt)
    OVS_REQUIRES(ul->mutex)
{
    bool pushed, was_empty;

    ovs_mutex_lock(&ul->dp_mutex);
    was_empty = !ul->to_dp.n;
    pushed = netdev_wg_ring_push(&ul->to_dp, pkt);
    ovs_mutex_unlock(&ul->dp_mutex);
    if (!pushed) {
        dp_packet_delete(pkt);
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_RING_FULL);
    } else if (was_empty) {
        seq_change(ul->dp_seq);
    }
}

/* The endpoint 'dst' as an address (IPv4-mapped for IPv4) and port. */
static bool
netdev_wg_ul_endpoint(const union udp_batch_addr *dst, struct in6_addr *ip,
                      uint16_t *port)
{
    if (dst->sa.sa_family == AF_INET) {
        in6_addr_set_mapped_ipv4(ip, dst->sin.sin_addr.s_addr);
        *port = ntohs(dst->sin.sin_port);
        return true;
    } else if (dst->sa.sa_family == AF_INET6) {
        *ip = dst->sin6.sin6_addr;
        *port = ntohs(dst->sin6.sin6_port);
        return true;
    }
    return false;
}

/* Sends an ARP request or NS for 'nh': broadcast (multicast), or to 'mac'
 * for a probe. */
static void
netdev_wg_ul_solicit(struct netdev_wg_ul *ul, const struct in6_addr *nh,
                     const struct eth_addr *probe)
    OVS_REQUIRES(ul->mutex)
{
    uint8_t frame[UL_FRAME_CTRL_MAX];
    size_t len;

    if (IN6_IS_ADDR_V4MAPPED(nh)) {
        len = ul_frame_arp(frame, &ul->host, ARP_OP_REQUEST,
                           probe ? *probe : eth_addr_broadcast,
                           eth_addr_zero, in6_addr_get_mapped_ipv4(nh));
    } else {
        len = ul_frame_ns(frame, &ul->host, nh, probe);
    }
    if (len) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_SOLICITS);
        netdev_wg_ul_to_dp(ul, pkt_pool_clone(frame, len,
                                               NETDEV_WG_UL_HEADROOM));
    }
}

/* Writes message 'm' to endpoint 'ip':'port' as a frame to 'mac'.  Returns
 * the packet, or NULL if it does not fit the underlay's MTU. */
static struct dp_packet *
netdev_wg_ul_encap(struct netdev_wg_ul *ul, const struct udp_batch_msg *m,
                   const struct in6_addr *ip, uint16_t port,
                   struct eth_addr mac)
    OVS_REQUIRES(ul->mutex)
{
    size_t hr = ul_frame_headroom(!IN6_IS_ADDR_V4MAPPED(ip));
    struct dp_packet *pkt = pkt_pool_new(hr + m->size,
                                        NETDEV_WG_UL_HEADROOM);
    struct ul_frame_tx tx = {
        .dst_mac = mac, .dst = *ip, .dst_port = port, .tos = m->tos,
        .ttl = NETDEV_WG_UL_TTL, .ip_id = ul->ip_id++,
    };
    uint8_t *frame = dp_packet_put_uninit(pkt, hr + m->size);
    size_t len;

    memcpy(frame + hr, m->data, m->size);
    len = ul_frame_encap(frame, m->size, &ul->host, &tx);
    if (!len) {
        dp_packet_delete(pkt);
        return NULL;
    }
    dp_packet_set_size(pkt, len);
    return pkt;
}

/* Holds 'pkt' for next hop 'nh'.  Returns false (dropping it) if full. */
static bool
netdev_wg_ul_hold(struct netdev_wg_ul *ul, struct dp_packet *pkt,
                  const struct in6_addr *nh, long long int now)
    OVS_REQUIRES(ul->mutex)
{
    struct netdev_wg_ul_held *h;

    if (ul->n_held >= NETDEV_WG_UL_HOLD_MAX) {
        dp_packet_delete(pkt);
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_HOLD_FULL);
        return false;
    }
    h = &ul->held[ul->n_held++];
    h->pkt = pkt;
    h->nh = *nh;
    h->until = now + NETDEV_WG_UL_HOLD_MS;
    netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_HELD);
    return true;
}

/* Sends message 'm' at 'now'.  Returns false if it was dropped. */
static bool
netdev_wg_ul_send_one(struct netdev_wg_ul *ul, const struct udp_batch_msg *m,
                      long long int now)
    OVS_REQUIRES(ul->mutex)
{
    enum ul_neigh_action act;
    struct in6_addr ip, nh;
    struct dp_packet *pkt;
    struct eth_addr mac = eth_addr_zero;
    uint16_t port;

    if (!netdev_wg_ul_endpoint(&m->dst, &ip, &port)
        || !ul_neigh_next_hop(&ul->route, &ip, &nh)) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_NO_ROUTE);
        return false;
    }
    act = ul_neigh_resolve(ul->neigh, &nh, now, &mac);
    if (act == UL_NEIGH_SOLICIT || act == UL_NEIGH_PROBE) {
        netdev_wg_ul_solicit(ul, &nh, act == UL_NEIGH_PROBE ? &mac : NULL);
    }
    if (act == UL_NEIGH_UNREACHABLE) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_UNREACHABLE);
        return false;
    }
    pkt = netdev_wg_ul_encap(ul, m, &ip, port, mac);
    if (!pkt) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_ENCAP);
        return false;
    }
    if (act == UL_NEIGH_SOLICIT || act == UL_NEIGH_WAIT) {
        return netdev_wg_ul_hold(ul, pkt, &nh, now);
    }
    netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_FRAMES);
    netdev_wg_ul_to_dp(ul, pkt);
    return true;
}

size_t
netdev_wg_ul_send(struct netdev_wg_ul *ul, const struct udp_batch_msg *msgs,
                  size_t n)
{
    size_t dropped = 0;
    long long int now = time_msec();

    ovs_mutex_lock(&ul->mutex);
    for (size_t i = 0; i < n; i++) {
        dropped += !netdev_wg_ul_send_one(ul, &msgs[i], now);
    }
    ovs_mutex_unlock(&ul->mutex);
    return dropped;
}

bool
netdev_wg_ul_can_send(const struct netdev_wg_ul *ul_, int family)
{
    struct netdev_wg_ul *ul = CONST_CAST(struct netdev_wg_ul *, ul_);
    bool can;

    ovs_mutex_lock(&ul->mutex);
    can = (family == AF_INET ? ul->host.ip4 != 0
           : family == AF_INET6 && ipv6_addr_is_set(&ul->host.ip6));
    ovs_mutex_unlock(&ul->mutex);
    return can;
}

void
netdev_wg_ul_set_port(struct netdev_wg_ul *ul, uint16_t port)
{
    ovs_mutex_lock(&ul->mutex);
    ul->host.port = port;
    ovs_mutex_unlock(&ul->mutex);
}

void
netdev_wg_ul_set_paired(struct netdev_wg_ul *ul, bool paired)
{
    ovs_mutex_lock(&ul->mutex);
    ul->paired = paired;
    ovs_mutex_unlock(&ul->mutex);
}

/* Held frames. */

/* Removes held[i], keeping the others in order. */
static void
netdev_wg_ul_unhold(struct netdev_wg_ul *ul, size_t i)
    OVS_REQUIRES(ul->mutex)
{
    memmove(&ul->held[i], &ul->held[i + 1],
            (ul->n_held - i - 1) * sizeof ul->held[0]);
    ul->n_held--;
}

void
netdev_wg_ul_release(struct netdev_wg_ul *ul, const struct in6_addr *nh,
                     struct eth_addr mac)
    OVS_REQUIRES(ul->mutex)
{
    for (size_t i = 0; i < ul->n_held;) {
        struct netdev_wg_ul_held *h = &ul->held[i];

        if (ipv6_addr_equals(&h->nh, nh)) {
            struct eth_header *eh = dp_packet_data(h->pkt);

            eh->eth_dst = mac;
            netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_FRAMES);
            netdev_wg_ul_to_dp(ul, h->pkt);
            netdev_wg_ul_unhold(ul, i);
        } else {
            i++;
        }
    }
}

void
netdev_wg_ul_tx_run(struct netdev_wg_ul *ul, long long int now)
    OVS_REQUIRES(ul->mutex)
{
    for (size_t i = 0; i < ul->n_held;) {
        if (now >= ul->held[i].until) {
            dp_packet_delete(ul->held[i].pkt);
            netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_HOLD_EXPIRED);
            netdev_wg_ul_unhold(ul, i);
        } else {
            i++;
        }
    }
    ul_neigh_run(ul->neigh, now);
}

long long int
netdev_wg_ul_tx_deadline(const struct netdev_wg_ul *ul)
    OVS_REQUIRES(ul->mutex)
{
    long long int deadline = ul_neigh_next_deadline(ul->neigh);

    /* Held frames are in the order they were held. */
    if (ul->n_held) {
        deadline = MIN(deadline, ul->held[0].until);
    }
    return deadline;
}

void
netdev_wg_ul_tx_clear(struct netdev_wg_ul *ul)
    OVS_REQUIRES(ul->mutex)
{
    for (size_t i = 0; i < ul->n_held; i++) {
        dp_packet_delete(ul->held[i].pkt);
    }
    ul->n_held = 0;
}
