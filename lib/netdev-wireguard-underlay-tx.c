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
#include "ovs-compat.h"
#include "pkt-pool.h"
#include "seq.h"
#include "timeval.h"
#include "util.h"

/* The datapath underlay's send side: each message the wireguard port
 * would have handed to its UDP socket becomes one Ethernet frame, its
 * outer headers written by ul_frame_encap() in front of it, and is queued
 * for the companion's rxq_recv(), so that the underlay bridge's flows
 * choose the wire.  A data message was sealed in a packet of pkt-pool (an
 * mbuf of its DPDK mempools once DPDK runs) with room before it for those
 * headers (NETDEV_WG_UL_SLOT_FRONT), and that packet becomes the frame;
 * a message that comes without one (handshakes, cookies, and data sealed
 * while the port's slots were still of the socket's kind) is copied into
 * a new one and counted ("ul_tx_copied").  The next hop comes
 * from ul_neigh_next_hop() and its MAC from the neighbour cache; when the
 * cache says to ask, a broadcast ARP request or multicast NS (or a unicast
 * probe) goes out first, and a message whose next hop has no MAC yet is
 * held, at most NETDEV_WG_UL_HOLD_MAX of them for NETDEV_WG_UL_HOLD_MS,
 * until the answer comes (netdev_wg_ul_release()) or its time is out.
 * Every drop is counted per reason (NETDEV_WG_UL_COUNTERS).
 *
 * A batch of NETDEV_WG_UL_TX_BATCH messages costs one round of the
 * companion's 'mutex' and one of the ring's 'dp_mutex': under 'mutex' each
 * message is planned (route, neighbour, MTU, IPv4 ID; the cache is asked
 * once per run of messages to one endpoint) and the host copied; the
 * frames are then allocated and written with no lock held, and pushed to
 * the ring in one go.  Only messages held for a neighbour take 'mutex'
 * again.
 *
 * The IPv4 header checksum is always written here.  The UDP checksum is
 * left to output (the pseudo-header sum in its field, the packet marked
 * for it: the NIC computes it, or Open vSwitch in software for a port
 * that cannot) where Open vSwitch can complete it (3.3 and later,
 * ovs-compat.h), and written here in software on 3.1, which would drop
 * the packet at a port without the offload. */

static void
netdev_wg_ul_count(struct netdev_wg_ul *ul, enum netdev_wg_ul_counter c)
    OVS_REQUIRES(ul->mutex)
{
    ul->counters[c]++;
}

void
netdev_wg_ul_to_dp_n(struct netdev_wg_ul *ul, struct dp_packet **pkts,
                     size_t n, bool msgs)
{
    size_t pushed = 0;
    bool was_empty;

    ovs_mutex_lock(&ul->dp_mutex);
    was_empty = !ul->to_dp.n;
    while (pushed < n && netdev_wg_ring_push(&ul->to_dp, pkts[pushed])) {
        pushed++;
    }
    ul->dp_counters[NETDEV_WG_UL_TX_RING_FULL] += n - pushed;
    ul->dp_counters[NETDEV_WG_UL_TX_FRAMES] += msgs ? pushed : 0;
    ovs_mutex_unlock(&ul->dp_mutex);
    for (size_t i = pushed; i < n; i++) {
        dp_packet_delete(pkts[i]);
    }
    if (pushed && was_empty) {
        seq_change(ul->dp_seq);
    }
}

void
netdev_wg_ul_to_dp(struct netdev_wg_ul *ul, struct dp_packet *pkt)
{
    netdev_wg_ul_to_dp_n(ul, &pkt, 1, false);
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

/* What the lock round decided for one message of a batch. */
enum netdev_wg_ul_fate {
    NETDEV_WG_UL_DROP,          /* Counted already. */
    NETDEV_WG_UL_SEND,          /* Frame it and queue it to the bridge. */
    NETDEV_WG_UL_HOLD,          /* Frame it and hold it for 'nh'. */
};

struct netdev_wg_ul_plan {
    struct ul_frame_tx tx;      /* Its outer headers. */
    struct in6_addr nh;         /* Its next hop. */
    enum ul_neigh_action act;   /* The neighbour cache's word for 'nh'. */
    bool routed;                /* 'nh' and 'act' are set. */
    enum netdev_wg_ul_fate fate;
};

/* Whether a message of 'size' bytes to 'dst' fits 'host' (its family's
 * address and MTU), as ul_frame_encap() will find. */
static bool
netdev_wg_ul_fits(const struct ul_frame_host *host,
                  const struct in6_addr *dst, size_t size)
{
    bool ipv6 = !IN6_IS_ADDR_V4MAPPED(dst);
    size_t ip_len = ul_frame_headroom(ipv6) - ETH_HEADER_LEN + size;

    return (ip_len <= host->mtu
            && (ipv6 ? ipv6_addr_is_set(&host->ip6) : host->ip4 != 0));
}

/* Sets p->nh, p->act and p->tx.dst_mac for p->tx.dst: the previous
 * message's answer if it went to the same address ('prev', may be NULL),
 * else the neighbour cache's (asking for the MAC if it says so).  Returns
 * false if there is no route. */
static bool
netdev_wg_ul_route(struct netdev_wg_ul *ul, struct netdev_wg_ul_plan *p,
                   const struct netdev_wg_ul_plan *prev, long long int now)
    OVS_REQUIRES(ul->mutex)
{
    if (prev && prev->routed && ipv6_addr_equals(&prev->tx.dst, &p->tx.dst)) {
        p->nh = prev->nh;
        p->tx.dst_mac = prev->tx.dst_mac;
        p->act = (prev->act == UL_NEIGH_PROBE ? UL_NEIGH_SEND
                  : prev->act == UL_NEIGH_SOLICIT ? UL_NEIGH_WAIT
                  : prev->act);
        return true;
    }
    if (!ul_neigh_next_hop(&ul->route, &p->tx.dst, &p->nh)) {
        return false;
    }
    p->act = ul_neigh_resolve(ul->neigh, &p->nh, now, &p->tx.dst_mac);
    if (p->act == UL_NEIGH_SOLICIT || p->act == UL_NEIGH_PROBE) {
        netdev_wg_ul_solicit(ul, &p->nh, (p->act == UL_NEIGH_PROBE
                                          ? &p->tx.dst_mac : NULL));
    }
    return true;
}

/* Plans message 'm' into 'p' at 'now' ('prev': the batch's previous
 * message's plan, or NULL); counts a drop. */
static void
netdev_wg_ul_plan(struct netdev_wg_ul *ul, const struct udp_batch_msg *m,
                  const struct netdev_wg_ul_plan *prev,
                  struct netdev_wg_ul_plan *p, long long int now)
    OVS_REQUIRES(ul->mutex)
{
    BUILD_ASSERT_DECL(UL_FRAME_HEADROOM6 <= NETDEV_WG_UL_SLOT_FRONT);

    memset(p, 0, sizeof *p);
    p->fate = NETDEV_WG_UL_DROP;
    p->routed = (netdev_wg_ul_endpoint(&m->dst, &p->tx.dst, &p->tx.dst_port)
                 && netdev_wg_ul_route(ul, p, prev, now));
    if (!p->routed) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_NO_ROUTE);
    } else if (p->act == UL_NEIGH_UNREACHABLE) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_UNREACHABLE);
    } else if (!netdev_wg_ul_fits(&ul->host, &p->tx.dst, m->size)) {
        netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_ENCAP);
    } else {
        p->tx.tos = m->tos;
        p->tx.ttl = NETDEV_WG_UL_TTL;
        p->tx.csum_offload = OVS_COMPAT_SOFTWARE_CSUM;
        p->tx.ip_id = ul->ip_id++;
        p->fate = (p->act == UL_NEIGH_SOLICIT || p->act == UL_NEIGH_WAIT
                   ? NETDEV_WG_UL_HOLD : NETDEV_WG_UL_SEND);
    }
}

/* Makes the packet whose frame will hold message 'm' after 'hr' bytes of
 * outer headers: 'pkt', the one 'm' lies in (NETDEV_WG_UL_SLOT_FRONT bytes
 * into its data), its data moved to start 'hr' bytes before 'm', or, if
 * 'pkt' is NULL, a new one with a copy of 'm'.  Returns the frame. */
static uint8_t *
netdev_wg_ul_frame_pkt(const struct udp_batch_msg *m, size_t hr,
                       struct dp_packet **pkt)
{
    uint8_t *frame;

    if (*pkt) {
        frame = CONST_CAST(uint8_t *, m->data) - hr;
        ovs_assert(frame >= (uint8_t *) dp_packet_data(*pkt));
        dp_packet_set_data(*pkt, frame);
        dp_packet_set_size(*pkt, hr + m->size);
        return frame;
    }
    *pkt = pkt_pool_new(hr + m->size, NETDEV_WG_UL_HEADROOM);
    frame = dp_packet_put_uninit(*pkt, hr + m->size);
    memcpy(frame + hr, m->data, m->size);
    return frame;
}

/* Writes message 'm' as a frame per 'tx' from 'host', in 'pkt' (the
 * packet 'm' lies in, taken) or, if it is NULL, in a new packet.  Returns
 * the frame's packet, or NULL if it does not fit (the plan said it
 * would). */
static struct dp_packet *
netdev_wg_ul_encap(const struct ul_frame_host *host,
                   const struct udp_batch_msg *m, struct dp_packet *pkt,
                   const struct ul_frame_tx *tx)
{
    size_t hr = ul_frame_headroom(!IN6_IS_ADDR_V4MAPPED(&tx->dst));
    uint8_t *frame = netdev_wg_ul_frame_pkt(m, hr, &pkt);
    size_t len;

    len = ul_frame_encap(frame, m->size, host, tx);
    if (!len) {
        dp_packet_delete(pkt);
        return NULL;
    }
    dp_packet_set_size(pkt, len);
    if (tx->csum_offload) {
        ovs_compat_pkt_set_udp_csum_partial(pkt, hr == UL_FRAME_HEADROOM6,
                                            ETH_HEADER_LEN,
                                            hr - UDP_HEADER_LEN);
    }
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

/* One batch of at most NETDEV_WG_UL_TX_BATCH messages between its steps. */
struct netdev_wg_ul_tx_batch {
    struct ul_frame_host host;  /* The companion's, at the lock round. */
    struct netdev_wg_ul_plan plans[NETDEV_WG_UL_TX_BATCH];
    struct dp_packet *send[NETDEV_WG_UL_TX_BATCH];
    size_t n_send;
    struct dp_packet *hold[NETDEV_WG_UL_TX_BATCH];
    size_t n_hold;
};

/* The lock round: plans the 'n' messages at 'msgs' (in 'pkts', may be
 * NULL) into 'b'.  Returns how many it dropped. */
static size_t
netdev_wg_ul_plan_batch(struct netdev_wg_ul *ul,
                        const struct udp_batch_msg *msgs,
                        struct dp_packet **pkts, size_t n,
                        struct netdev_wg_ul_tx_batch *b, long long int now)
{
    size_t dropped = 0;

    ovs_mutex_lock(&ul->mutex);
    b->host = ul->host;
    for (size_t i = 0; i < n; i++) {
        netdev_wg_ul_plan(ul, &msgs[i], i ? &b->plans[i - 1] : NULL,
                          &b->plans[i], now);
        dropped += b->plans[i].fate == NETDEV_WG_UL_DROP;
        if (b->plans[i].fate != NETDEV_WG_UL_DROP && !(pkts && pkts[i])) {
            netdev_wg_ul_count(ul, NETDEV_WG_UL_TX_COPIED);
        }
    }
    ovs_mutex_unlock(&ul->mutex);
    return dropped;
}

/* Frames the planned messages of 'b' (in 'pkts', may be NULL, taken) with
 * no lock held.  Returns how many it dropped. */
static size_t
netdev_wg_ul_frame_batch(const struct udp_batch_msg *msgs,
                         struct dp_packet **pkts, size_t n,
                         struct netdev_wg_ul_tx_batch *b)
{
    size_t dropped = 0;

    b->n_send = b->n_hold = 0;
    for (size_t i = 0; i < n; i++) {
        const struct netdev_wg_ul_plan *p = &b->plans[i];
        struct dp_packet *pkt = pkts ? pkts[i] : NULL;

        if (p->fate == NETDEV_WG_UL_DROP) {
            dp_packet_delete(pkt);
            continue;
        }
        pkt = netdev_wg_ul_encap(&b->host, &msgs[i], pkt, &p->tx);
        if (!pkt) {
            dropped++;
        } else if (p->fate == NETDEV_WG_UL_SEND) {
            b->send[b->n_send++] = pkt;
        } else {
            b->hold[b->n_hold++] = pkt;
        }
    }
    return dropped;
}

/* Holds the frames of 'b' that wait for a neighbour.  Returns how many it
 * dropped. */
static size_t
netdev_wg_ul_hold_batch(struct netdev_wg_ul *ul, size_t n,
                        const struct netdev_wg_ul_tx_batch *b,
                        long long int now)
{
    size_t dropped = 0, j = 0;

    ovs_mutex_lock(&ul->mutex);
    for (size_t i = 0; i < n && j < b->n_hold; i++) {
        if (b->plans[i].fate == NETDEV_WG_UL_HOLD) {
            dropped += !netdev_wg_ul_hold(ul, b->hold[j++],
                                          &b->plans[i].nh, now);
        }
    }
    ovs_mutex_unlock(&ul->mutex);
    return dropped;
}

size_t
netdev_wg_ul_send(struct netdev_wg_ul *ul, const struct udp_batch_msg *msgs,
                  struct dp_packet **pkts, size_t n)
{
    struct netdev_wg_ul_tx_batch b;
    long long int now = time_msec();
    size_t dropped = 0;

    for (size_t i = 0; i < n; i += NETDEV_WG_UL_TX_BATCH) {
        size_t k = MIN(n - i, NETDEV_WG_UL_TX_BATCH);
        struct dp_packet **p = pkts ? pkts + i : NULL;

        dropped += netdev_wg_ul_plan_batch(ul, msgs + i, p, k, &b, now);
        dropped += netdev_wg_ul_frame_batch(msgs + i, p, k, &b);
        if (b.n_send) {
            netdev_wg_ul_to_dp_n(ul, b.send, b.n_send, true);
        }
        if (b.n_hold) {
            dropped += netdev_wg_ul_hold_batch(ul, k, &b, now);
        }
    }
    return dropped;
}

bool
netdev_wg_ul_can_send(const struct netdev_wg_ul *ul_, int family)
{
    struct netdev_wg_ul *ul = CONST_CAST(struct netdev_wg_ul *, ul_);
    bool can = false;

    if (family == AF_INET) {
        atomic_read_relaxed(&ul->has_ip4, &can);
    } else if (family == AF_INET6) {
        atomic_read_relaxed(&ul->has_ip6, &can);
    }
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
            netdev_wg_ul_to_dp_n(ul, &h->pkt, 1, true);
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
