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
#include "openvswitch/poll-loop.h"
#include "ovs-compat.h"
#include "pkt-pool.h"
#include "seq.h"
#include "timeval.h"
#include "util.h"

/* The datapath underlay's receive side: what the underlay bridge sends to
 * the companion.  Each frame is classified (ul_frame_classify()) for the
 * companion's host:
 *
 *   - a WireGuard datagram for us waits, in the frame that holds it, in a
 *     bounded ring until the paired port's receive round reads it
 *     (netdev_wg_ul_read(), in place of recvmmsg(): step 1 of
 *     netdev-wireguard-rx.c), with its source for roaming and its outer
 *     TOS for ECN; the port then decrypts, checks replay and allowed IPs
 *     and coalesces as for a socket's datagrams;
 *   - an ARP request or NS for our address teaches the neighbour cache
 *     the asker and is answered (reply or NA queued to the bridge); an
 *     ARP reply or NA confirms an entry; either sends the frames held for
 *     that neighbour;
 *   - anything else is dropped and counted per reason ("ul_<reason>").
 *
 * A frame whose UDP checksum Open vSwitch marks as left to output (a
 * datagram of a kernel on this machine, read from a veth or tap port with
 * its pseudo-header sum only) never crossed a wire: its checksum is not
 * checked.  The companion offers UDP checksum offload so that Open
 * vSwitch 3.1 hands such frames over instead of dropping them.
 *
 * Every receive round of the port reads this ring from queue 0 only: the
 * datagrams of all peers go to one receive queue. */

/* Queues the WireGuard datagram of 'pkt' (taken) described by 'rx'. */
static void
netdev_wg_ul_rx_dgram(struct netdev_wg_ul *ul, struct dp_packet *pkt,
                      const struct ul_frame_rx *rx)
    OVS_REQUIRES(ul->mutex)
{
    struct netdev_wg_ul_dgram d = {
        .pkt = pkt, .ofs = rx->payload_ofs, .len = rx->payload_len,
        .tos = rx->tos,
    };
    bool was_empty;

    if (!ul->paired) {
        dp_packet_delete(pkt);
        ul->counters[NETDEV_WG_UL_RX_UNPAIRED]++;
        return;
    }
    if (rx->ipv6) {
        d.src.sin6.sin6_family = AF_INET6;
        d.src.sin6.sin6_addr = rx->addr;
        d.src.sin6.sin6_port = htons(rx->src_port);
    } else {
        d.src.sin.sin_family = AF_INET;
        d.src.sin.sin_addr.s_addr = in6_addr_get_mapped_ipv4(&rx->addr);
        d.src.sin.sin_port = htons(rx->src_port);
    }
    ovs_mutex_lock(&ul->wg_mutex);
    was_empty = !ul->wg_n;
    if (ul->wg_n < NETDEV_WG_UL_RING_MAX) {
        size_t tail = (ul->wg_head + ul->wg_n++) % NETDEV_WG_UL_RING_MAX;
        ul->to_wg[tail] = d;
        d.pkt = NULL;
    }
    ovs_mutex_unlock(&ul->wg_mutex);
    if (d.pkt) {
        dp_packet_delete(pkt);
        ul->counters[NETDEV_WG_UL_RX_RING_FULL]++;
    } else {
        ul->counters[NETDEV_WG_UL_RX_WG]++;
        if (was_empty) {
            seq_change(ul->wg_seq);
        }
    }
}

/* Answers an ARP request or NS described by 'rx'. */
static void
netdev_wg_ul_answer(struct netdev_wg_ul *ul, enum ul_frame_kind kind,
                    const struct ul_frame_rx *rx)
    OVS_REQUIRES(ul->mutex)
{
    uint8_t frame[UL_FRAME_CTRL_MAX];
    size_t len;

    if (kind == UL_FRAME_ARP_REQUEST) {
        len = ul_frame_arp(frame, &ul->host, ARP_OP_REPLY, rx->mac, rx->mac,
                           in6_addr_get_mapped_ipv4(&rx->addr));
        ul->counters[NETDEV_WG_UL_ARP_REPLIES]++;
    } else {
        len = ul_frame_na(frame, &ul->host, rx->mac, &rx->addr);
        ul->counters[NETDEV_WG_UL_NA_SENT]++;
    }
    if (len) {
        netdev_wg_ul_to_dp(ul, pkt_pool_clone(frame, len,
                                               NETDEV_WG_UL_HEADROOM));
    }
}

/* Takes one frame 'pkt' of the bridge's. */
static void
netdev_wg_ul_rx_one(struct netdev_wg_ul *ul, struct dp_packet *pkt,
                    long long int now)
    OVS_REQUIRES(ul->mutex)
{
    struct ul_frame_rx rx;
    enum ul_frame_kind kind;

    kind = ul_frame_classify(&ul->host, dp_packet_data(pkt),
                             dp_packet_size(pkt),
                             ovs_compat_pkt_l4_csum_partial(pkt), &rx);
    if (kind == UL_FRAME_WG) {
        netdev_wg_ul_rx_dgram(ul, pkt, &rx);
        return;
    } else if (kind == UL_FRAME_ARP_REQUEST || kind == UL_FRAME_NS) {
        if (ul_neigh_learn(ul->neigh, &rx.addr, rx.mac, now)) {
            netdev_wg_ul_release(ul, &rx.addr, rx.mac);
            netdev_change_seq_changed(&ul->up);     /* Status. */
        }
        netdev_wg_ul_answer(ul, kind, &rx);
    } else if (kind == UL_FRAME_ARP_REPLY || kind == UL_FRAME_NA) {
        if (ul_neigh_confirm(ul->neigh, &rx.addr, rx.mac, now)) {
            netdev_wg_ul_release(ul, &rx.addr, rx.mac);
            netdev_change_seq_changed(&ul->up);
        }
    } else {
        ul_frame_count(&ul->drops, rx.reason);
    }
    dp_packet_delete(pkt);
}

void
netdev_wg_ul_rx_frames(struct netdev_wg_ul *ul, struct dp_packet_batch *batch)
{
    long long int now = time_msec();
    struct dp_packet *pkt;

    ovs_mutex_lock(&ul->mutex);
    DP_PACKET_BATCH_FOR_EACH (i, pkt, batch) {
        ul->tx_packets++;
        ul->tx_bytes += dp_packet_size(pkt);
        netdev_wg_ul_rx_one(ul, pkt, now);
    }
    ovs_mutex_unlock(&ul->mutex);
}

/* The port's side. */

/* Whether datagram 'd' may follow, in buffer 'buf' whose last datagram
 * was 'last', in one GRO read: the same source and TOS, the size of the
 * first or shorter (then ending the run), and room left. */
static bool
netdev_wg_ul_joins(const struct udp_batch_rx_buf *buf,
                   const struct netdev_wg_ul_dgram *d,
                   const struct netdev_wg_ul_dgram *first, size_t last_len,
                   size_t n_segs)
{
    return (n_segs < NETDEV_WG_UL_GRO_SEGS
            && last_len == first->len && d->len <= first->len && d->len
            && d->tos == first->tos
            && buf->len + d->len <= buf->size
            && udp_batch_addr_equal(&d->src, &first->src));
}

/* Fills 'buf' from the ring's head on.  Returns how many datagrams it
 * took (at least one: the ring is not empty). */
static size_t
netdev_wg_ul_fill(struct netdev_wg_ul *ul, struct udp_batch_rx_buf *buf,
                  struct dp_packet **done, size_t n_done)
    OVS_REQUIRES(ul->wg_mutex)
{
    const struct netdev_wg_ul_dgram *first = &ul->to_wg[ul->wg_head];
    size_t n = 0, last_len = first->len;

    buf->len = 0;
    buf->src = first->src;
    buf->tos = first->tos;
    while (ul->wg_n && n_done + n < NETDEV_WG_UL_RING_MAX) {
        const struct netdev_wg_ul_dgram *d = &ul->to_wg[ul->wg_head];

        if (n && !netdev_wg_ul_joins(buf, d, first, last_len, n)) {
            break;
        }
        memcpy((uint8_t *) buf->data + buf->len,
               (const uint8_t *) dp_packet_data(d->pkt) + d->ofs, d->len);
        buf->len += d->len;
        last_len = d->len;
        done[n_done + n++] = d->pkt;
        ul->wg_head = (ul->wg_head + 1) % NETDEV_WG_UL_RING_MAX;
        ul->wg_n--;
    }
    buf->gro_size = n > 1 ? first->len : 0;
    return n;
}

size_t
netdev_wg_ul_read(struct netdev_wg_ul *ul, struct udp_batch_rx_buf *bufs,
                  size_t n)
{
    struct dp_packet *done[NETDEV_WG_UL_RING_MAX];
    size_t n_bufs = 0, n_done = 0;

    ovs_mutex_lock(&ul->wg_mutex);
    while (n_bufs < n && ul->wg_n && n_done < NETDEV_WG_UL_RING_MAX) {
        n_done += netdev_wg_ul_fill(ul, &bufs[n_bufs++], done, n_done);
    }
    ovs_mutex_unlock(&ul->wg_mutex);
    for (size_t i = 0; i < n_done; i++) {
        dp_packet_delete(done[i]);
    }
    return n_bufs;
}

void
netdev_wg_ul_read_wait(struct netdev_wg_ul *ul)
{
    uint64_t seq = seq_read(ul->wg_seq);
    bool waiting;

    ovs_mutex_lock(&ul->wg_mutex);
    waiting = ul->wg_n > 0;
    ovs_mutex_unlock(&ul->wg_mutex);
    if (waiting) {
        poll_immediate_wake();
    } else {
        seq_wait(ul->wg_seq, seq);
    }
}

void
netdev_wg_ul_rx_clear(struct netdev_wg_ul *ul)
{
    ovs_mutex_lock(&ul->wg_mutex);
    while (ul->wg_n) {
        dp_packet_delete(ul->to_wg[ul->wg_head].pkt);
        ul->wg_head = (ul->wg_head + 1) % NETDEV_WG_UL_RING_MAX;
        ul->wg_n--;
    }
    ovs_mutex_unlock(&ul->wg_mutex);
}
