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

#include <errno.h>
#include <string.h>

#include "coverage.h"
#include "dp-packet.h"
#include "netdev-wireguard-private.h"
#include "openvswitch/vlog.h"
#include "pkt-csum.h"
#include "pkt-gro.h"
#include "pkt-gso.h"
#include "util.h"
#include "timeval.h"
#include "wg-device.h"
#include "wg-l2.h"

/* The data path of the wireguard netdev class.
 *
 * Egress (bridge -> peer): the layer-2 adapter turns a frame into an inner
 * IP packet (or answers ARP/ND itself); cryptokey routing picks the peer; a
 * TSO super-packet is cut by pkt-gso straight into message slots, any other
 * packet is copied into one (its checksum completed on the way if it asked
 * for offload); each slot is encrypted in place and queued on the socket's
 * send queue, which leaves with UDP GSO at the end of the batch.
 *
 * Ingress (peer -> bridge): recvmmsg() with UDP GRO; each datagram is
 * decrypted in place in the receive buffer; the inner packets of one round
 * are coalesced by pkt-gro (when userspace-tso is on) into super-packets,
 * which get an Ethernet header and wait in 'to_bridge' for rxq_recv(). */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_io);

COVERAGE_DEFINE(wg_tx_queue_full);
COVERAGE_DEFINE(wg_tx_no_endpoint);
COVERAGE_DEFINE(wg_tx_encrypt_error);
COVERAGE_DEFINE(wg_tx_gso_error);
COVERAGE_DEFINE(wg_tx_handshake_failed);
COVERAGE_DEFINE(wg_tx_socket_drop);
COVERAGE_DEFINE(wg_tx_super_packet);
COVERAGE_DEFINE(wg_tx_segment);
COVERAGE_DEFINE(wg_tx_csum_fill);
COVERAGE_DEFINE(wg_rx_coalesced);
COVERAGE_DEFINE(wg_rx_gro_round);
COVERAGE_DEFINE(wg_rx_gro_input);
COVERAGE_DEFINE(wg_rx_merged);

COVERAGE_DEFINE(wg_tx_frag_error);
COVERAGE_DEFINE(wg_tx_fragmented);


/* Distance between receive buffers: room for the largest read, rounded up
 * to a cache line. */
#define NETDEV_WG_RX_STRIDE ROUND_UP(UDP_BATCH_RX_BUF_SIZE, CACHE_LINE_SIZE)

/* Most inner packets one receive round decrypts. */
#define NETDEV_WG_RX_INNER_MAX (NETDEV_WG_RX_READS * 64)

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

/* Lifecycle. */

static size_t
netdev_wg_slot_size(int mtu)
{
    return ROUND_UP(WG_DEVICE_HEADROOM + mtu + WG_DEVICE_TAILROOM, 64);
}

void
netdev_wg_io_init(struct netdev_wireguard *wg)
{
    tx_slots_init(&wg->tx.slots, NETDEV_WG_TX_SLOTS,
                  netdev_wg_slot_size(wg->mtu));
    wg->tx.q4 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.q6 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.ctl = udp_batch_tx_create(1);
    netdev_wg_ring_init(&wg->to_bridge, NETDEV_WG_TO_BRIDGE_MAX);
    /* Buffers start on cache-line boundaries: decrypted inner headers are
     * read in place and must stay aligned. */
    wg->rx_mem = xmalloc_cacheline(NETDEV_WG_RX_READS * NETDEV_WG_RX_STRIDE);
    for (size_t i = 0; i < NETDEV_WG_RX_READS; i++) {
        wg->rx_bufs[i].data = wg->rx_mem + i * NETDEV_WG_RX_STRIDE;
        wg->rx_bufs[i].size = UDP_BATCH_RX_BUF_SIZE;
    }
    wg->rx_inner = xmalloc(NETDEV_WG_RX_INNER_MAX * sizeof *wg->rx_inner);
    wg->rx_owner = xmalloc(NETDEV_WG_RX_INNER_MAX * sizeof *wg->rx_owner);
    wg->l2 = wg_l2_create(wg->mac, NULL);
}

void
netdev_wg_io_destroy(struct netdev_wireguard *wg)
{
    udp_batch_tx_destroy(wg->tx.q4);
    udp_batch_tx_destroy(wg->tx.q6);
    udp_batch_tx_destroy(wg->tx.ctl);
    tx_slots_destroy(&wg->tx.slots);
    netdev_wg_ring_destroy(&wg->to_bridge);
    free_cacheline(wg->rx_mem);
    free(wg->rx_inner);
    free(wg->rx_owner);
    wg_l2_destroy(wg->l2);
    udp_batch_close(wg->sock4);
    udp_batch_close(wg->sock6);
    wg->sock4 = wg->sock6 = NULL;
}

void
netdev_wg_io_set_mtu(struct netdev_wireguard *wg, int mtu)
{
    netdev_wg_io_flush(wg);
    tx_slots_destroy(&wg->tx.slots);
    tx_slots_init(&wg->tx.slots, NETDEV_WG_TX_SLOTS,
                  netdev_wg_slot_size(mtu));
}

bool
netdev_wg_io_has_pending(const struct netdev_wireguard *wg)
{
    return wg->to_bridge.n > 0;
}

/* Egress. */

static struct udp_batch_sock *
netdev_wg_sock_for(const struct netdev_wireguard *wg, int family)
{
    return family == AF_INET6 ? wg->sock6 : wg->sock4;
}

static void
netdev_wg_flush_queue(struct netdev_wireguard *wg, struct udp_batch_tx *q,
                      struct udp_batch_sock *sock)
{
    size_t n = udp_batch_tx_count(q);

    /* Messages are queued only for a family whose socket exists. */
    if (n) {
        size_t sent = udp_batch_tx_flush(q, sock, NULL);
        if (sent < n) {
            COVERAGE_ADD(wg_tx_socket_drop, n - sent);
            wg->stats.tx_dropped += n - sent;
        }
    }
}

void
netdev_wg_io_flush(struct netdev_wireguard *wg)
{
    netdev_wg_flush_queue(wg, wg->tx.q4, wg->sock4);
    netdev_wg_flush_queue(wg, wg->tx.q6, wg->sock6);
    tx_slots_reset(&wg->tx.slots);
}

/* Returns 'n' (at most NETDEV_WG_TX_SLOTS) free message slots, flushing
 * the batch first if fewer are free. */
static uint8_t *
netdev_wg_slots_acquire(struct netdev_wireguard *wg, size_t n)
{
    if (tx_slots_room(&wg->tx.slots) < n) {
        netdev_wg_io_flush(wg);
    }
    return tx_slots_acquire(&wg->tx.slots, n);
}

/* Encrypts the inner packet already at slot + WG_DEVICE_HEADROOM and queues
 * it for 'peer'.  Returns true if queued. */
static bool
netdev_wg_seal_slot(struct netdev_wireguard *wg, struct wg_peer *peer,
                    uint8_t *slot, size_t inner_len)
{
    const struct sockaddr *dst;
    socklen_t dst_len;
    int n;

    n = wg_device_encrypt(wg->dev, peer, slot, inner_len,
                          wg->tx.slots.slot_size);
    if (n < 0) {
        if (n == WG_DEVICE_TX_NO_ENDPOINT) {
            COVERAGE_INC(wg_tx_no_endpoint);
        } else {
            COVERAGE_INC(wg_tx_encrypt_error);
        }
        wg->stats.tx_dropped++;
        return false;
    }
    dst = wg_device_peer_endpoint(peer, &dst_len);
    if (!dst || !netdev_wg_sock_for(wg, dst->sa_family)) {
        COVERAGE_INC(wg_tx_no_endpoint);
        wg->stats.tx_dropped++;
        return false;
    }
    udp_batch_tx_add(dst->sa_family == AF_INET6 ? wg->tx.q6 : wg->tx.q4,
                     slot, n, dst);
    wg->stats.tx_packets++;
    wg->stats.tx_bytes += inner_len;
    return true;
}

/* Encrypts and queues one inner packet of at most the MTU. */
static void
netdev_wg_send_one(struct netdev_wireguard *wg, struct wg_peer *peer,
                   const void *inner, size_t len, bool fill_csum)
{
    uint8_t *slot = netdev_wg_slots_acquire(wg, 1);

    if (fill_csum) {
        pkt_csum_l4_copy(slot + WG_DEVICE_HEADROOM, inner, len);
        COVERAGE_INC(wg_tx_csum_fill);
        wg->offload.csum_filled++;
    } else {
        memcpy(slot + WG_DEVICE_HEADROOM, inner, len);
    }
    if (!netdev_wg_seal_slot(wg, peer, slot, len)) {
        tx_slots_release_tail(&wg->tx.slots, slot, 1);
    }
}

/* Cuts the TSO super-packet 'inner' into MTU-sized segments straight into
 * message slots, then encrypts each one. */
static void
netdev_wg_send_super(struct netdev_wireguard *wg, struct wg_peer *peer,
                     const void *inner, size_t len)
{
    struct pkt_gso_slot slots[NETDEV_WG_TX_SLOTS];
    struct pkt_gso_params params;
    struct pkt_ip_info info;
    size_t n_slots, n_segs, size = wg->tx.slots.slot_size;
    uint8_t *base;

    if (pkt_ip_parse(inner, len, &info) || info.l4_proto != IPPROTO_TCP) {
        COVERAGE_INC(wg_tx_gso_error);
        wg->stats.tx_errors++;
        return;
    }
    params.mss = pkt_gso_mss_for_mtu(&info, wg->mtu);
    params.headroom = WG_DEVICE_HEADROOM;
    params.tailroom = WG_DEVICE_TAILROOM;
    n_slots = pkt_gso_n_segs(&info, params.mss ? params.mss : 1);
    if (!params.mss || n_slots > NETDEV_WG_TX_SLOTS) {
        COVERAGE_INC(wg_tx_gso_error);
        wg->stats.tx_errors++;
        return;
    }
    base = netdev_wg_slots_acquire(wg, n_slots);
    for (size_t i = 0; i < n_slots; i++) {
        slots[i].base = base + i * size;
        slots[i].room = size;
    }
    if (pkt_gso_segment(inner, len, &params, slots, n_slots, &n_segs)) {
        COVERAGE_INC(wg_tx_gso_error);
        wg->stats.tx_errors++;
        tx_slots_release_tail(&wg->tx.slots, base, n_slots);
        return;
    }
    tx_slots_release_tail(&wg->tx.slots, base + n_segs * size,
                          n_slots - n_segs);
    COVERAGE_INC(wg_tx_super_packet);
    COVERAGE_ADD(wg_tx_segment, n_segs);
    wg->offload.super_packets++;
    wg->offload.segments += n_segs;
    for (size_t i = 0; i < n_segs; i++) {
        /* A slot whose segment fails stays unused until the flush. */
        netdev_wg_seal_slot(wg, peer, slots[i].base, slots[i].len);
    }
}

/* Sends the IPv4 packet 'inner' (DF clear, longer than the MTU) as
 * fragments. */
static void
netdev_wg_send_fragments(struct netdev_wireguard *wg, struct wg_peer *peer,
                         const void *inner, size_t len)
{
    size_t room = (wg->tx.slots.slot_size
                   - WG_DEVICE_HEADROOM - WG_DEVICE_TAILROOM);
    struct wg_l2_frag frag;
    size_t n;

    if (!wg_l2_frag_start(&frag, inner, len, wg->mtu)) {
        COVERAGE_INC(wg_tx_frag_error);
        wg->stats.tx_dropped++;
        return;
    }
    COVERAGE_INC(wg_tx_fragmented);
    for (;;) {
        uint8_t *slot = netdev_wg_slots_acquire(wg, 1);

        n = wg_l2_frag_next(&frag, slot + WG_DEVICE_HEADROOM, room);
        if (!n || !netdev_wg_seal_slot(wg, peer, slot, n)) {
            tx_slots_release_tail(&wg->tx.slots, slot, 1);
            if (!n) {
                break;
            }
        }
    }
}

/* Sends inner packet 'pkt' (its data starts at the IP header) to 'peer',
 * or queues it until the peer has a session.  Takes ownership of 'pkt'. */
void
netdev_wg_io_send_inner(struct netdev_wireguard *wg, struct wg_peer *peer,
                        struct dp_packet *pkt)
{
    const void *inner = dp_packet_data(pkt);
    size_t len = dp_packet_size(pkt);

    if (!wg_device_peer_has_session(wg->dev, peer)) {
        struct netdev_wg_peer *np = netdev_wg_peer_of(peer);
        if (!netdev_wg_ring_push(&np->queue, pkt)) {
            COVERAGE_INC(wg_tx_queue_full);
            wg->stats.tx_dropped++;
            dp_packet_delete(pkt);
        }
        wg_device_peer_initiate(wg->dev, peer);
        return;
    }
    if (dp_packet_hwol_is_tso(pkt) && len > wg->mtu) {
        netdev_wg_send_super(wg, peer, inner, len);
    } else if (len > wg->mtu) {
        netdev_wg_send_fragments(wg, peer, inner, len);
    } else {
        netdev_wg_send_one(wg, peer, inner, len,
                           dp_packet_hwol_tx_l4_checksum(pkt));
    }
    dp_packet_delete(pkt);
}

void
netdev_wg_io_send(struct netdev_wireguard *wg, struct dp_packet_batch *batch)
{
    struct dp_packet *pkt;

    wg_device_clock_freeze(wg->dev);
    DP_PACKET_BATCH_FOR_EACH (i, pkt, batch) {
        netdev_wg_l2_from_bridge(wg, pkt);
    }
    dp_packet_batch_init(batch);
    netdev_wg_io_flush(wg);
    wg_device_clock_thaw(wg->dev);
}

/* Protocol engine hooks. */

void
netdev_wg_io_send_control(void *aux, const struct sockaddr *dst,
                          socklen_t dst_len OVS_UNUSED, const void *msg,
                          size_t len)
{
    struct netdev_wireguard *wg = aux;
    struct udp_batch_sock *sock = netdev_wg_sock_for(wg, dst->sa_family);

    if (!sock) {
        COVERAGE_INC(wg_tx_no_endpoint);
        return;
    }
    udp_batch_tx_add(wg->tx.ctl, msg, len, dst);
    if (!udp_batch_tx_flush(wg->tx.ctl, sock, NULL)) {
        COVERAGE_INC(wg_tx_socket_drop);
    }
}

void
netdev_wg_io_session_ready(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = netdev_wg_peer_of(peer);
    struct dp_packet *pkt;
    size_t n = np->queue.n;

    /* Packets that cannot go now return to the queue, so stop after one
     * pass. */
    while (n-- && (pkt = netdev_wg_ring_pop(&np->queue))) {
        netdev_wg_io_send_inner(wg, peer, pkt);
    }
}

void
netdev_wg_io_handshake_failed(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);
    struct dp_packet *pkt;

    if (!np) {
        return;
    }
    while ((pkt = netdev_wg_ring_pop(&np->queue))) {
        COVERAGE_INC(wg_tx_handshake_failed);
        wg->stats.tx_dropped++;
        dp_packet_delete(pkt);
    }
}

/* Ingress. */

static void
netdev_wg_count_rx_drop(struct netdev_wireguard *wg, enum wg_device_rx rx)
{
    /* wg-device counts and logs each drop reason itself. */
    if (wg_device_rx_is_drop(rx)) {
        wg->stats.rx_errors++;
    }
}

/* pkt_gro_grow_func: moves a run's head into a dp_packet with room for a
 * whole super-packet. */
static bool
netdev_wg_gro_grow(void *aux, struct pkt_gro_pkt *g, size_t room)
{
    struct netdev_wireguard *wg = aux;
    size_t i = g - wg->rx_inner;
    struct dp_packet *pkt = wg->rx_owner[i];

    if (pkt || room > NETDEV_WG_GRO_MAX) {
        return false;
    }
    pkt = dp_packet_new_with_headroom(NETDEV_WG_GRO_MAX,
                                      NETDEV_WG_RX_HEADROOM);
    dp_packet_put(pkt, g->data, g->len);
    wg->rx_owner[i] = pkt;
    g->data = dp_packet_data(pkt);
    g->room = g->len + dp_packet_tailroom(pkt);
    return true;
}

/* Coalesces (when enabled) and hands the decrypted packets of this round
 * to the bridge. */
static void
netdev_wg_rx_deliver(struct netdev_wireguard *wg, size_t n)
{
    bool gro = wg->tso && wg->cfg.tcp_gro && n > 1;

    memset(wg->rx_owner, 0, n * sizeof *wg->rx_owner);
    if (gro) {
        COVERAGE_INC(wg_rx_gro_round);
        COVERAGE_ADD(wg_rx_gro_input, n);
        pkt_gro_batch(wg->rx_inner, n, netdev_wg_gro_grow, wg);
    }
    for (size_t i = 0; i < n; i++) {
        struct pkt_gro_pkt *g = &wg->rx_inner[i];
        uint64_t meta = 0;

        if (!gro) {
            g->verdict = PKT_GRO_PASS;
        }
        if (g->verdict == PKT_GRO_MERGED) {
            COVERAGE_INC(wg_rx_merged);
            wg->offload.merged++;
            continue;
        }
        if (g->verdict == PKT_GRO_COALESCED) {
            COVERAGE_INC(wg_rx_coalesced);
            wg->offload.coalesced++;
            meta = NETDEV_WG_META_TSO | (g->ipv6 ? NETDEV_WG_META_IPV6 : 0);
            if (wg->rx_owner[i]) {
                dp_packet_set_size(wg->rx_owner[i], g->len);
            }
        }
        netdev_wg_l2_to_bridge(wg, g->data, g->len, meta, wg->rx_owner[i]);
    }
}

/* Decrypts every datagram of one read into wg->rx_inner[*n...]. */
static void
netdev_wg_rx_read(struct netdev_wireguard *wg, struct udp_batch_rx_buf *buf,
                  size_t *n)
{
    struct udp_batch_seg seg;
    const void *data;
    size_t len;

    udp_batch_seg_init(&seg, buf->data, buf->len, buf->gro_size);
    while (udp_batch_seg_next(&seg, &data, &len)) {
        struct wg_device_rx_result out;
        enum wg_device_rx rx;

        rx = wg_device_receive(wg->dev, &buf->src.sa,
                               buf->src.sa.sa_family == AF_INET6
                               ? sizeof buf->src.sin6 : sizeof buf->src.sin,
                               CONST_CAST(uint8_t *, data), len, &out);
        if (rx == WG_DEVICE_RX_DATA && *n < NETDEV_WG_RX_INNER_MAX) {
            struct pkt_gro_pkt *g = &wg->rx_inner[(*n)++];
            memset(g, 0, sizeof *g);
            g->data = out.inner;
            g->len = g->room = out.inner_len;
        } else if (rx == WG_DEVICE_RX_DATA) {
            wg->stats.rx_dropped++;
        } else {
            netdev_wg_count_rx_drop(wg, rx);
        }
    }
}

/* Tells the device how many handshake messages this round holds, before it
 * handles any of them, as the kernel looks at its handshake queue. */
static void
netdev_wg_rx_note_handshakes(struct netdev_wireguard *wg, size_t n_reads)
{
    size_t n = 0;

    for (size_t i = 0; i < n_reads; i++) {
        struct udp_batch_rx_buf *buf = &wg->rx_bufs[i];
        struct udp_batch_seg seg;
        const void *data;
        size_t len;

        udp_batch_seg_init(&seg, buf->data, buf->len, buf->gro_size);
        while (udp_batch_seg_next(&seg, &data, &len)) {
            n += wg_device_is_handshake_msg(data, len);
        }
    }
    wg_device_note_pending_handshakes(wg->dev, n);
}

/* One receive round on 'sock'. */
static void
netdev_wg_rx_sock(struct netdev_wireguard *wg, struct udp_batch_sock *sock)
{
    size_t n_reads, n_inner = 0;

    if (!sock || udp_batch_recv(sock, wg->rx_bufs, NETDEV_WG_RX_READS,
                                &n_reads)) {
        return;
    }
    netdev_wg_rx_note_handshakes(wg, n_reads);
    for (size_t i = 0; i < n_reads; i++) {
        netdev_wg_rx_read(wg, &wg->rx_bufs[i], &n_inner);
    }
    netdev_wg_rx_deliver(wg, n_inner);
}

int
netdev_wg_io_recv(struct netdev_wireguard *wg, struct dp_packet_batch *batch)
{
    struct dp_packet *pkt;

    if (!wg->to_bridge.n) {
        wg_device_clock_freeze(wg->dev);
        netdev_wg_rx_sock(wg, wg->sock4);
        netdev_wg_rx_sock(wg, wg->sock6);
        netdev_wg_io_flush(wg);
        wg_device_clock_thaw(wg->dev);
    }
    dp_packet_batch_init(batch);
    while (dp_packet_batch_size(batch) < NETDEV_MAX_BURST
           && (pkt = netdev_wg_ring_pop(&wg->to_bridge))) {
        dp_packet_batch_add(batch, pkt);
    }
    return dp_packet_batch_is_empty(batch) ? EAGAIN : 0;
}
