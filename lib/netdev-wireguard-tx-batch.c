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
#include "netdev-wireguard-tx.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "pkt-gso.h"
#include "pkt-ip.h"
#include "timeval.h"
#include "util.h"
#include "wg-device.h"

/* A batch from the bridge, the top of the send path.
 *
 * netdev_wg_tx_send() takes the batch a transmit queue gets.  Each frame
 * that needs nothing of what the port's lock guards goes without it (see
 * "Sends without the port's lock" below); the first that needs more, and
 * the rest of the batch, go under it, a frame at a time
 * (netdev_wg_tx_frame(), netdev-wireguard-tx.c).  Either way the messages
 * are only begun: after the lock is released, the super-packets are cut
 * into their slots (netdev_wg_tx_cut()), the messages sealed and the batch
 * sent (netdev-wireguard-sock.c), and what failed there is counted under
 * the lock.  Calls the per-frame part below it, never the receive path. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_tx_batch);

/* Returns true if each begun message of cut 'c' of 'tx' has the length of
 * the segment cut into its slot, as described in 'slots': a message never
 * seals bytes of its slot beyond its segment. */
static bool
netdev_wg_cut_fits(const struct netdev_wg_tx *tx,
                   const struct netdev_wg_cut *c,
                   const struct pkt_gso_slot *slots)
{
    for (size_t i = c->first; i < c->first + c->n_begun; i++) {
        const struct netdev_wg_pending *p = &tx->pending[i];
        size_t idx = p->slot - c->base;

        if (idx >= c->n_slots || slots[idx].len != p->sealer.inner_len) {
            return false;
        }
    }
    return true;
}

/* Cuts the super-packets of 'tx' that wait for it into the slots of their
 * begun messages, outside the port's lock, and frees them.  The messages
 * of one that cannot be cut, or whose segments do not have the lengths
 * their messages began with, are cancelled. */
static void
netdev_wg_tx_cut(struct netdev_wg_tx *tx, struct netdev_wg_tx_late *late)
{
    struct pkt_gso_slot slots[NETDEV_WG_TX_SLOTS];

    for (size_t i = 0; i < tx->n_cuts; i++) {
        struct netdev_wg_cut *c = &tx->cuts[i];

        if (!netdev_wg_cut_into(c->inner, &c->info, c->mss, &tx->slots,
                                c->base, c->n_slots, slots)
            || !netdev_wg_cut_fits(tx, c, slots)) {
            late->cut_bytes += netdev_wg_tx_cancel(tx, c->first, c->n_begun);
            late->cut_failed++;
            late->cut_msgs += c->n_begun;
        }
        dp_packet_delete(c->pkt);
    }
    tx->n_cuts = 0;
}

/* Seals the messages of 'tx' that wait for it, outside the port's lock,
 * and queues them for their socket. */
static void
netdev_wg_tx_seal_pending(struct netdev_wg_tx *tx,
                          struct netdev_wg_tx_late *late)
{
    for (size_t i = 0; i < tx->n_pending; i++) {
        struct netdev_wg_pending *p = &tx->pending[i];
        const struct sockaddr *dst = (const struct sockaddr *) &p->dst;
        size_t inner_len = p->sealer.inner_len;
        uint8_t *msg;

        if (p->slot == TX_SLOTS_NONE) {
            continue;           /* Cancelled by netdev_wg_tx_cut(). */
        }
        msg = tx_slots_get(&tx->slots, p->slot);
        if (wg_device_encrypt_finish(&p->sealer, msg)) {
            udp_batch_tx_add_tagged(dst->sa_family == AF_INET6
                                    ? tx->q6 : tx->q4,
                                    msg, p->len, dst, p->tos, p->slot);
        } else {
            late->seal_failed++;
            late->seal_failed_bytes += inner_len;
        }
    }
    tx->n_pending = 0;
}

/* The one parse of a frame.
 *
 * Each frame of a batch is parsed once, in the step that takes it
 * (netdev_wg_tx_parse()), and the parse goes with it down both ways: to
 * the layer-2 judge, to the checksum completion, to the cut of a
 * super-packet and to the address read, which parse nothing themselves
 * (pkt-ip.h says why the port parses instead of taking OVS's flow
 * extraction).  A frame that the way without the lock leaves to the
 * locked one keeps its parse ('struct netdev_wg_parsed'). */

COVERAGE_DEFINE(wg_tx_parse);
COVERAGE_DEFINE(wg_tx_ovs_ofs_differ);

/* The parse of the frame at 'idx' in a batch, for as long as it is the
 * frame the batch is at. */
struct netdev_wg_parsed {
    size_t idx;                 /* SIZE_MAX: none yet. */
    struct pkt_ip_frame ip;
};

/* Returns the parse of frame 'idx', 'pkt', of a batch: the one in 'p' if
 * it is that frame's, otherwise a new one.  A tunnel packet's checksums
 * that OVS left to the port are completed first.  OVS's header offsets,
 * where its flow extraction set them, must agree with the parse; where
 * they do not, the port's parse (which checked every length against the
 * frame) stands, and the coverage counter wg_tx_ovs_ofs_differ says
 * so. */
static const struct pkt_ip_frame *
netdev_wg_tx_parse(struct netdev_wg_parsed *p, size_t idx,
                   struct dp_packet *pkt)
{
    if (p->idx != idx) {
        ovs_compat_pkt_finish_tunnel_csum(pkt);
        pkt_ip_frame_parse(&p->ip, dp_packet_data(pkt), dp_packet_size(pkt),
                           ETH_HEADER_LEN);
        p->idx = idx;
        COVERAGE_INC(wg_tx_parse);
        if (!pkt_ip_frame_ovs_agrees(&p->ip, pkt->l3_ofs, pkt->l4_ofs)) {
            COVERAGE_INC(wg_tx_ovs_ofs_differ);
        }
    }
    return &p->ip;
}

/* Sends without the port's lock.
 *
 * A transmit queue sends each frame that needs nothing of what the port's
 * lock guards without taking it: an IP packet to a peer (judged by
 * bridge_l2_from_bridge_unlocked()) whose source the queue taught the
 * adapter in the last NETDEV_WG_TX_LEARNED_MS, whose peer (wg_device_route()
 * under RCU) has an endpoint, a socket for its family and a session that
 * needs no rekey (wg_device_reserve_unlocked()), and that is a TSO
 * super-packet or fits the MTU.  The first frame that needs more, and the
 * rest of the batch after it, go the locked way, so that frames leave in
 * the order they came. */

/* What a send without the lock reads of the port's configuration once. */
struct netdev_wg_unlocked {
    int mtu;
    bool tso;
    long long int now;
};

/* Reads it; false if the port is not configured yet or the queue's slots
 * have the wrong size (the locked way resizes them). */
static bool
netdev_wg_unlocked_start(struct netdev_wireguard *wg,
                         const struct netdev_wg_txq *txq,
                         struct netdev_wg_unlocked *u)
{
    size_t slot_size, slot_front;
    bool ready;

    atomic_read(&wg->unlocked_ready, &ready);
    atomic_read_relaxed(&wg->unlocked_slot_size, &slot_size);
    atomic_read_relaxed(&wg->unlocked_slot_front, &slot_front);
    atomic_read_relaxed(&wg->unlocked_mtu, &u->mtu);
    atomic_read_relaxed(&wg->unlocked_tso, &u->tso);
    u->now = wg_device_now_unlocked(wg->dev);
    return (ready && slot_size == txq->tx.slots.slot_size
            && slot_front == txq->tx.slots.front);
}

/* Sends frame 'pkt' of the bridge without the port's lock if it needs
 * none (see above): then takes it and returns true.  Otherwise returns
 * false, with 'pkt' as it was. */
static bool
netdev_wg_tx_frame_unlocked(struct netdev_wireguard *wg,
                            struct netdev_wg_tx *tx, struct dp_packet *pkt,
                            const struct pkt_ip_frame *ip,
                            const struct netdev_wg_unlocked *u)
    OVS_REQ_RDLOCK(wg->sock_rwlock)
{
    const struct eth_header *eth = dp_packet_data(pkt);
    struct netdev_wg_unlocked_dst d;
    struct bridge_l2_egress eg;
    struct netdev_wg_way way;
    enum netdev_wg_sent sent;
    struct in6_addr src;

    if (!bridge_l2_from_bridge_unlocked(wg->l2, eth, dp_packet_size(pkt), ip,
                                        &eg, &src)) {
        return false;
    }
    if (!netdev_wg_tx_learned(tx, &src, eth->eth_src, u->now)) {
        return false;
    }
    d.now = u->now;
    d.peer = wg_device_route(wg->dev, eg.family, eg.dst);
    if (!d.peer || !wg_device_peer_endpoint_copy(d.peer, &d.ss, &d.len)
        || !netdev_wg_sock_can_send(wg, d.ss.ss_family)) {
        return false;
    }
    way = (struct netdev_wg_way) {
        .peer = d.peer, .mtu = u->mtu, .tso = u->tso, .d = &d,
    };
    sent = netdev_wg_tx_inner(wg, tx, &way, pkt,
                              (uint8_t *) dp_packet_data(pkt) + eg.l3_ofs,
                              eg.l3_len, ip);
    netdev_wg_way_end(wg, tx, &way);
    if (sent == NETDEV_WG_SENT) {
        dp_packet_delete(pkt);
    }
    return sent != NETDEV_WG_NOT_SENT;
}

/* Takes frames of 'batch' from '*i' on without the port's lock while each
 * needs none and transmit queue 'txq' has room for what one frame can
 * make. */
static void
netdev_wg_tx_frames_unlocked(struct netdev_wireguard *wg,
                             struct netdev_wg_txq *txq,
                             struct dp_packet_batch *batch, size_t *i,
                             struct netdev_wg_parsed *p)
    OVS_EXCLUDED(wg->mutex)
{
    size_t n = dp_packet_batch_size(batch);
    struct netdev_wg_unlocked u;

    if (!netdev_wg_unlocked_start(wg, txq, &u)) {
        return;
    }
    ovs_rwlock_rdlock(&wg->sock_rwlock);
    for (size_t k = *i; k < n; k++) {
        struct dp_packet *pkt = batch->packets[k];

        if (tx_slots_room(&txq->tx.slots) < NETDEV_WG_TX_SLOTS) {
            break;
        }
        if (!netdev_wg_tx_frame_unlocked(wg, &txq->tx, pkt,
                                         netdev_wg_tx_parse(p, k, pkt), &u)) {
            break;
        }
        *i = k + 1;
    }
    ovs_rwlock_unlock(&wg->sock_rwlock);
}

/* Takes frames of 'batch' from '*i' on while transmit queue 'txq' has room
 * for what one frame can make, under the port's lock.  Slots of the wrong
 * size are replaced, but not under messages begun without the lock: then
 * the batch is sent first. */
static void
netdev_wg_tx_frames(struct netdev_wireguard *wg, struct netdev_wg_txq *txq,
                    struct dp_packet_batch *batch, size_t *i,
                    struct netdev_wg_parsed *p)
    OVS_REQUIRES(wg->mutex)
{
    size_t n = dp_packet_batch_size(batch);
    long long int now = time_msec();

    if (txq->tx.n_pending && !netdev_wg_sock_slots_fit(wg, &txq->tx.slots)) {
        return;
    }
    netdev_wg_sock_fit_txq(wg, txq);
    wg_device_clock_freeze(wg->dev);
    for (; *i < n && tx_slots_room(&txq->tx.slots) >= NETDEV_WG_TX_SLOTS;
         (*i)++) {
        struct dp_packet *pkt = batch->packets[(*i)];

        netdev_wg_tx_frame(wg, &txq->tx, pkt,
                           netdev_wg_tx_parse(p, (*i), pkt), now);
    }
    wg_device_clock_thaw(wg->dev);
}

void
netdev_wg_tx_send(struct netdev_wireguard *wg, struct netdev_wg_txq *txq,
                  struct dp_packet_batch *batch)
    OVS_EXCLUDED(wg->mutex)
{
    size_t i = 0, n = dp_packet_batch_size(batch);
    struct netdev_wg_parsed parsed = { .idx = SIZE_MAX };

    /* What needs no lock goes without it; what does (the adapter's
     * learning and answers, a peer without a session, fragments, drops)
     * takes it, for the rest of the round.  Cutting super-packets into
     * segments, the cipher and the socket never hold it, so that several
     * threads sending to the port do those at the same time. */
    do {
        struct netdev_wg_tx_late late = { 0, 0, 0, 0, 0, 0 };

        netdev_wg_tx_frames_unlocked(wg, txq, batch, &i, &parsed);
        if (i < n && tx_slots_room(&txq->tx.slots) >= NETDEV_WG_TX_SLOTS) {
            ovs_mutex_lock(&wg->mutex);
            netdev_wg_tx_frames(wg, txq, batch, &i, &parsed);
            ovs_mutex_unlock(&wg->mutex);
        }
        netdev_wg_tx_cut(&txq->tx, &late);
        netdev_wg_tx_seal_pending(&txq->tx, &late);
        late.dropped = netdev_wg_sock_send_txq(wg, txq);
        if (late.cut_failed || late.seal_failed || late.dropped) {
            netdev_wg_tx_count_late(wg, &txq->tx, &late);
        }
    } while (i < n);
    ovs_compat_batch_clear(batch);
}
