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
#include "wg-messages.h"

/* The datapath underlay's receive side: what the underlay bridge sends to
 * the companion.  Each frame is classified (ul_frame_classify()) for the
 * companion's host:
 *
 *   - a WireGuard datagram for us waits, in the frame that holds it, in a
 *     bounded ring of the port's receive queue that the socket mode's
 *     steering picks (netdev_wg_steer() in netdev-wireguard-sock.c: data
 *     messages and cookie replies by the lowest byte of their receiver
 *     index, responses by that of theirs, modulo the port's n_rxq;
 *     initiations go to queue 0), so each peer's messages come to one
 *     queue, until that queue's receive round reads it
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
 * A UDP checksum that the NIC verified and found good is not checked
 * again (the packet's offload flags, ovs-compat.h), nor is one that Open
 * vSwitch marks as left to output (a datagram of a kernel on this machine,
 * read from a veth or tap port with its pseudo-header sum only): it never
 * crossed a wire.  The companion offers UDP checksum offload so that Open
 * vSwitch 3.1 hands such frames over instead of dropping them.  A batch
 * from the bridge takes the companion's 'mutex' once and each queue's ring
 * lock once. */

/* The receive queue, of 'n_q', of WireGuard message 'msg' of 'len' bytes:
 * the rule of the socket mode's steering program. */
static unsigned int
netdev_wg_ul_steer(const uint8_t *msg, size_t len, unsigned int n_q)
{
    size_t ofs = (msg[0] == WG_MSG_DATA || msg[0] == WG_MSG_COOKIE_REPLY ? 4
                  : msg[0] == WG_MSG_RESPONSE ? 8 : 0);

    return ofs && ofs < len ? msg[ofs] % n_q : 0;
}

/* The WireGuard datagrams of one batch from the bridge, with their
 * queues. */
struct netdev_wg_ul_rx_batch {
    struct netdev_wg_ul_dgram d[NETDEV_MAX_BURST];
    uint8_t q[NETDEV_MAX_BURST];
    size_t n;
    uint32_t queues;                /* Bit i: some datagram for queue i. */
};

/* Pushes the datagrams of 'b' for queue 'qi' into its ring in one round of
 * its lock; frees those without room.  Returns how many it freed. */
static size_t
netdev_wg_ul_wgq_push(struct netdev_wg_ul_wgq *wgq,
                      const struct netdev_wg_ul_rx_batch *b, unsigned int qi)
{
    struct dp_packet *full[NETDEV_MAX_BURST];
    size_t n_full = 0, n_pushed = 0;
    bool was_empty;

    ovs_mutex_lock(&wgq->mutex);
    was_empty = !wgq->n;
    for (size_t i = 0; i < b->n; i++) {
        if (b->q[i] != qi) {
            continue;
        } else if (wgq->ring && wgq->n < NETDEV_WG_UL_RING_MAX) {
            size_t tail = (wgq->head + wgq->n++) % NETDEV_WG_UL_RING_MAX;

            wgq->ring[tail] = b->d[i];
            n_pushed++;
        } else {
            full[n_full++] = b->d[i].pkt;
        }
    }
    ovs_mutex_unlock(&wgq->mutex);
    for (size_t i = 0; i < n_full; i++) {
        dp_packet_delete(full[i]);
    }
    if (was_empty && n_pushed) {
        seq_change(wgq->seq);
    }
    return n_full;
}

/* Hands the datagrams of 'b' to their queues and empties it. */
static void
netdev_wg_ul_rx_flush(struct netdev_wg_ul *ul, struct netdev_wg_ul_rx_batch *b)
    OVS_REQUIRES(ul->mutex)
{
    size_t n_full = 0;

    for (unsigned int qi = 0; b->queues >> qi; qi++) {
        if (b->queues & (1u << qi)) {
            n_full += netdev_wg_ul_wgq_push(&ul->wgq[qi], b, qi);
        }
    }
    ul->counters[NETDEV_WG_UL_RX_WG] += b->n - n_full;
    ul->counters[NETDEV_WG_UL_RX_RING_FULL] += n_full;
    b->n = 0;
    b->queues = 0;
}

/* Adds the WireGuard datagram of 'pkt' (taken) described by 'rx' to 'b'. */
static void
netdev_wg_ul_rx_dgram(struct netdev_wg_ul *ul, struct dp_packet *pkt,
                      const struct ul_frame_rx *rx,
                      struct netdev_wg_ul_rx_batch *b, unsigned int n_q)
    OVS_REQUIRES(ul->mutex)
{
    struct netdev_wg_ul_dgram *d;

    if (!ul->paired) {
        dp_packet_delete(pkt);
        ul->counters[NETDEV_WG_UL_RX_UNPAIRED]++;
        return;
    } else if (b->n >= NETDEV_MAX_BURST) {
        netdev_wg_ul_rx_flush(ul, b);
    }
    d = &b->d[b->n];
    *d = (struct netdev_wg_ul_dgram) {
        .pkt = pkt, .ofs = rx->payload_ofs, .len = rx->payload_len,
        .tos = rx->tos,
    };
    if (rx->ipv6) {
        d->src.sin6.sin6_family = AF_INET6;
        d->src.sin6.sin6_addr = rx->addr;
        d->src.sin6.sin6_port = htons(rx->src_port);
    } else {
        d->src.sin.sin_family = AF_INET;
        d->src.sin.sin_addr.s_addr = in6_addr_get_mapped_ipv4(&rx->addr);
        d->src.sin.sin_port = htons(rx->src_port);
    }
    b->q[b->n] = netdev_wg_ul_steer((const uint8_t *) dp_packet_data(pkt)
                                    + d->ofs, d->len, n_q);
    b->queues |= 1u << b->q[b->n];
    b->n++;
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

/* Takes one frame 'pkt' of the bridge's; a WireGuard datagram into 'b'
 * for 'n_q' queues. */
static void
netdev_wg_ul_rx_one(struct netdev_wg_ul *ul, struct dp_packet *pkt,
                    long long int now, struct netdev_wg_ul_rx_batch *b,
                    unsigned int n_q)
    OVS_REQUIRES(ul->mutex)
{
    struct ul_frame_rx rx;
    enum ul_frame_kind kind;

    kind = ul_frame_classify(&ul->host, dp_packet_data(pkt),
                             dp_packet_size(pkt),
                             (ovs_compat_pkt_l4_csum_good(pkt)
                              || ovs_compat_pkt_l4_csum_partial(pkt)), &rx);
    if (kind == UL_FRAME_WG) {
        netdev_wg_ul_rx_dgram(ul, pkt, &rx, b, n_q);
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
    struct netdev_wg_ul_rx_batch b;
    struct dp_packet *pkt;
    int n_q;

    b.n = 0;
    b.queues = 0;
    atomic_read_relaxed(&ul->n_wgq, &n_q);
    ovs_mutex_lock(&ul->mutex);
    DP_PACKET_BATCH_FOR_EACH (i, pkt, batch) {
        ul->tx_packets++;
        ul->tx_bytes += dp_packet_size(pkt);
        netdev_wg_ul_rx_one(ul, pkt, now, &b, n_q);
    }
    netdev_wg_ul_rx_flush(ul, &b);
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

/* Fills 'buf' from the head of 'wgq''s ring on.  Returns how many
 * datagrams it took (at least one: the ring is not empty). */
static size_t
netdev_wg_ul_fill(struct netdev_wg_ul_wgq *wgq, struct udp_batch_rx_buf *buf,
                  struct dp_packet **done, size_t n_done)
    OVS_REQUIRES(wgq->mutex)
{
    const struct netdev_wg_ul_dgram *first = &wgq->ring[wgq->head];
    size_t n = 0, last_len = first->len;

    buf->len = 0;
    buf->src = first->src;
    buf->tos = first->tos;
    while (wgq->n && n_done + n < NETDEV_WG_UL_RING_MAX) {
        const struct netdev_wg_ul_dgram *d = &wgq->ring[wgq->head];

        if (n && !netdev_wg_ul_joins(buf, d, first, last_len, n)) {
            break;
        }
        memcpy((uint8_t *) buf->data + buf->len,
               (const uint8_t *) dp_packet_data(d->pkt) + d->ofs, d->len);
        buf->len += d->len;
        last_len = d->len;
        done[n_done + n++] = d->pkt;
        wgq->head = (wgq->head + 1) % NETDEV_WG_UL_RING_MAX;
        wgq->n--;
    }
    buf->gro_size = n > 1 ? first->len : 0;
    return n;
}

size_t
netdev_wg_ul_read(struct netdev_wg_ul *ul, int qid,
                  struct udp_batch_rx_buf *bufs, size_t n)
{
    struct dp_packet *done[NETDEV_WG_UL_RING_MAX];
    struct netdev_wg_ul_wgq *wgq = &ul->wgq[qid];
    size_t n_bufs = 0, n_done = 0;

    ovs_mutex_lock(&wgq->mutex);
    while (n_bufs < n && wgq->n && n_done < NETDEV_WG_UL_RING_MAX) {
        n_done += netdev_wg_ul_fill(wgq, &bufs[n_bufs++], done, n_done);
    }
    ovs_mutex_unlock(&wgq->mutex);
    for (size_t i = 0; i < n_done; i++) {
        dp_packet_delete(done[i]);
    }
    return n_bufs;
}

void
netdev_wg_ul_read_wait(struct netdev_wg_ul *ul, int qid)
{
    struct netdev_wg_ul_wgq *wgq = &ul->wgq[qid];
    uint64_t seq = seq_read(wgq->seq);
    bool waiting;

    ovs_mutex_lock(&wgq->mutex);
    waiting = wgq->n > 0;
    ovs_mutex_unlock(&wgq->mutex);
    if (waiting) {
        poll_immediate_wake();
    } else {
        seq_wait(wgq->seq, seq);
    }
}

/* Frees what waits in 'wgq', and its ring unless 'keep'. */
static void
netdev_wg_ul_wgq_clear(struct netdev_wg_ul_wgq *wgq, bool keep)
{
    ovs_mutex_lock(&wgq->mutex);
    while (wgq->n) {
        dp_packet_delete(wgq->ring[wgq->head].pkt);
        wgq->head = (wgq->head + 1) % NETDEV_WG_UL_RING_MAX;
        wgq->n--;
    }
    if (!keep) {
        free(wgq->ring);
        wgq->ring = NULL;
    }
    ovs_mutex_unlock(&wgq->mutex);
}

void
netdev_wg_ul_set_n_rxq(struct netdev_wg_ul *ul, int n)
{
    n = MIN(MAX(n, 1), WG_CONFIG_N_RXQ_MAX);
    for (int i = 0; i < n; i++) {
        struct netdev_wg_ul_wgq *wgq = &ul->wgq[i];

        ovs_mutex_lock(&wgq->mutex);
        if (!wgq->ring) {
            wgq->ring = xmalloc(NETDEV_WG_UL_RING_MAX * sizeof *wgq->ring);
        }
        ovs_mutex_unlock(&wgq->mutex);
    }
    atomic_store_relaxed(&ul->n_wgq, n);
    for (int i = n; i < WG_CONFIG_N_RXQ_MAX; i++) {
        netdev_wg_ul_wgq_clear(&ul->wgq[i], false);
    }
}

void
netdev_wg_ul_rx_init(struct netdev_wg_ul *ul)
{
    for (int i = 0; i < WG_CONFIG_N_RXQ_MAX; i++) {
        ovs_mutex_init(&ul->wgq[i].mutex);
        ul->wgq[i].seq = seq_create();
    }
    atomic_init(&ul->n_wgq, 1);
    netdev_wg_ul_set_n_rxq(ul, 1);
}

void
netdev_wg_ul_rx_clear(struct netdev_wg_ul *ul)
{
    for (int i = 0; i < WG_CONFIG_N_RXQ_MAX; i++) {
        netdev_wg_ul_wgq_clear(&ul->wgq[i], true);
    }
}

void
netdev_wg_ul_rx_destroy(struct netdev_wg_ul *ul)
{
    for (int i = 0; i < WG_CONFIG_N_RXQ_MAX; i++) {
        netdev_wg_ul_wgq_clear(&ul->wgq[i], false);
        seq_destroy(ul->wgq[i].seq);
        ovs_mutex_destroy(&ul->wgq[i].mutex);
    }
}
