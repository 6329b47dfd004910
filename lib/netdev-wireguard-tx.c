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
#include "hash.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-tx.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "pkt-csum.h"
#include "pkt-ecn.h"
#include "pkt-gso.h"
#include "pkt-mtu.h"
#include "timeval.h"
#include "util.h"
#include "wg-device.h"

/* Bridge to peer, the bottom of the send path: an inner IP packet to its
 * peer, top to bottom.
 *
 * The send path is three files: the batch (netdev-wireguard-tx-batch.c,
 * netdev_wg_tx_send()) sends what it can without the port's lock and the
 * rest a frame at a time under it (netdev-wireguard-tx-frame.c: the
 * layer-2 adapter, routing, the MTU policy); both end here, in
 * netdev_wg_tx_inner(), one function per step for both ways
 * (struct netdev_wg_way, netdev-wireguard-tx.h).  A packet for a peer
 * without a session waits in the peer's queue while a handshake starts;
 * netdev_wg_tx_session_ready() sends what waited.  A TSO super-packet is
 * cut by pkt-gso straight into message slots, each then encrypted in place
 * (a transmit queue's batch begins each message and cuts after the lock,
 * just before sealing: netdev_wg_tx_cut()); any other packet is encrypted
 * straight from its buffer into a slot (its checksum completed first if it
 * asked for offload), or, in a transmit queue's batch, sealed after the
 * packets are freed, from a copy in the slot; a packet to fragment is
 * copied fragment by fragment into slots.  Each message is queued, and the
 * batch leaves with UDP GSO at its end (netdev-wireguard-sock.c).  Every
 * drop has a coverage counter and a rate-limited log line.  Never calls
 * the receive path, nor the two files above it. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_tx);

COVERAGE_DEFINE(wg_tx_queue_full);
COVERAGE_DEFINE(wg_tx_no_endpoint);
COVERAGE_DEFINE(wg_tx_encrypt_error);
COVERAGE_DEFINE(wg_tx_gso_error);
COVERAGE_DEFINE(wg_tx_tunnel_tso);
COVERAGE_DEFINE(wg_tx_handshake_failed);
COVERAGE_DEFINE(wg_tx_super_packet);
COVERAGE_DEFINE(wg_tx_segment);
COVERAGE_DEFINE(wg_tx_csum_fill);
COVERAGE_DEFINE(wg_tx_csum_unfilled);
COVERAGE_DEFINE(wg_tx_frag_error);
COVERAGE_DEFINE(wg_tx_fragmented);

/* Counts a packet of the bridge that 'wg' does not send for reason 'c',
 * which is logged (rate-limited per reason); the caller counts the reason's
 * coverage counter. */
void
netdev_wg_tx_drop(struct netdev_wireguard *wg, enum netdev_wg_counter c)
{
    wg->stats.tx_dropped++;
    netdev_wg_count(wg, c);
}

/* The same for a packet that the port failed to handle. */
static void
netdev_wg_tx_error(struct netdev_wireguard *wg, enum netdev_wg_counter c)
{
    wg->stats.tx_errors++;
    netdev_wg_count(wg, c);
}

/* Counts 'n' messages of 'inner_bytes' made by 'tx' for the bridge's
 * packets. */
static void
netdev_wg_tx_count_sent(struct netdev_wg_tx *tx, size_t n,
                        size_t inner_bytes)
{
    netdev_wg_counter_add(&tx->counts.messages, n);
    netdev_wg_counter_add(&tx->counts.packets, n);
    netdev_wg_counter_add(&tx->counts.bytes, inner_bytes);
}

/* Takes 'n' packets of 'inner_bytes' that 'tx' counted but that did not
 * leave out of the port's statistics. */
void
netdev_wg_tx_uncount(struct netdev_wg_tx *tx, size_t n, size_t inner_bytes)
{
    netdev_wg_counter_add(&tx->counts.packets, -(uint64_t) n);
    netdev_wg_counter_add(&tx->counts.bytes, -(uint64_t) inner_bytes);
}

/* Slots, encryption, segmentation. */

/* Returns the first of 'n' (at most NETDEV_WG_TX_SLOTS) free message slots
 * of batch 'tx', flushing the port's own batch first if fewer are free.  A
 * transmit queue's batch, flushed only after the lock is released, always
 * has room for a frame (netdev_wg_tx_send()); TX_SLOTS_NONE if not. */
static size_t
netdev_wg_slots_acquire(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                        size_t n)
{
    if (tx_slots_room(&tx->slots) < n && !tx->pending) {
        netdev_wg_sock_flush(wg);
    }
    return tx_slots_acquire(&tx->slots, n);
}

/* Counts a message that found no slot. */
static void
netdev_wg_tx_no_room(struct netdev_wireguard *wg)
{
    wg->stats.tx_dropped++;
    netdev_wg_count(wg, NETDEV_WG_TX_NO_ROOM);
}

/* Makes the begun message of 'n' bytes in 'slot' (its sealer at the end of
 * tx->pending) wait in 'tx' to be sealed and sent to 'dst'. */
static void
netdev_wg_tx_pend(struct netdev_wg_tx *tx, size_t slot, int n,
                  const struct sockaddr *dst, socklen_t dst_len, uint8_t tos)
{
    struct netdev_wg_pending *p = &tx->pending[tx->n_pending++];

    p->slot = slot;
    p->len = n;
    memcpy(&p->dst, dst, dst_len);
    p->tos = tos;
}

/* Encrypts the inner packet 'inner' of 'inner_len' bytes into message slot
 * 'slot' and queues it for 'peer', with outer TOS 'tos'.  'inner' is in
 * the slot, at slot + WG_DEVICE_HEADROOM, or, only for a batch that seals
 * at once (no pending seals), apart from it (wg_device_encrypt_from()).
 * A pending seal reads the inner packet only when it is sealed, so a
 * segment may be cut into its slot until then (netdev_wg_tx_cut()).
 * Returns true if queued. */
static bool
netdev_wg_seal_tos(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                   struct wg_peer *peer, size_t slot,
                   const uint8_t *inner, size_t inner_len, uint8_t tos)
{
    struct netdev_wg_pending *p = tx->pending
                                  ? &tx->pending[tx->n_pending] : NULL;
    uint8_t *msg = tx_slots_get(&tx->slots, slot);
    const struct sockaddr *dst;
    socklen_t dst_len;
    int n;

    ovs_assert(!p || inner == msg + WG_DEVICE_HEADROOM);
    n = (p ? wg_device_encrypt_begin(wg->dev, peer, msg, inner_len,
                                     tx->slots.slot_size, &p->sealer)
         : wg_device_encrypt_from(wg->dev, peer, msg, tx->slots.slot_size,
                                  inner, inner_len));
    if (n < 0) {
        if (n == WG_DEVICE_TX_NO_ENDPOINT) {
            COVERAGE_INC(wg_tx_no_endpoint);
        } else {
            COVERAGE_INC(wg_tx_encrypt_error);
        }
        netdev_wg_tx_drop(wg, (n == WG_DEVICE_TX_NO_ENDPOINT
                               ? NETDEV_WG_TX_NO_ENDPOINT
                               : n == WG_DEVICE_TX_NO_SESSION
                               ? NETDEV_WG_TX_NO_SESSION
                               : n == WG_DEVICE_TX_NO_ROOM
                               ? NETDEV_WG_TX_NO_ROOM
                               : NETDEV_WG_TX_CRYPTO_ERROR));
        return false;
    }
    dst = wg_device_peer_endpoint(peer, &dst_len);
    if (!dst || !netdev_wg_sock_can_send(wg, dst->sa_family)) {
        if (p) {
            wg_device_encrypt_cancel(&p->sealer);
        }
        COVERAGE_INC(wg_tx_no_endpoint);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_NO_ENDPOINT);
        return false;
    }
    if (p) {
        netdev_wg_tx_pend(tx, slot, n, dst, dst_len, tos);
    } else {
        udp_batch_tx_add_tagged(dst->sa_family == AF_INET6 ? tx->q6 : tx->q4,
                                msg, n, dst, tos, slot);
    }
    netdev_wg_tx_count_sent(tx, 1, inner_len);
    return true;
}

/* Encrypts the inner packet 'inner' of 'inner_len' bytes into message slot
 * 'slot' and queues it for 'peer', as netdev_wg_seal_tos() with the outer
 * TOS that the inner packet's ECN field gives. */
static bool
netdev_wg_seal_from(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                    struct wg_peer *peer, size_t slot,
                    const uint8_t *inner, size_t inner_len)
{
    return netdev_wg_seal_tos(wg, tx, peer, slot, inner, inner_len,
                              pkt_ecn_encap(inner, inner_len));
}

/* The same for the inner packet already at slot + WG_DEVICE_HEADROOM. */
static bool
netdev_wg_seal_slot(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                    struct wg_peer *peer, size_t slot, size_t inner_len)
{
    return netdev_wg_seal_from(wg, tx, peer, slot,
                               tx_slots_get(&tx->slots, slot)
                               + WG_DEVICE_HEADROOM, inner_len);
}

/* Completes, in place, the TCP, UDP or SCTP checksum of the inner packet
 * 'inner', which asked for checksum offload, from its parse 'ip'.  One that
 * does not parse as such goes on as it is (as it came) and is counted. */
static void
netdev_wg_tx_fill_csum(struct netdev_wg_tx *tx, uint8_t *inner,
                       const struct pkt_ip_frame *ip)
{
    if (!ip->l4_ok || pkt_csum_l4_fill_parsed(inner, &ip->l4)) {
        COVERAGE_INC(wg_tx_csum_unfilled);
        return;
    }
    COVERAGE_INC(wg_tx_csum_fill);
    netdev_wg_counter_add(&tx->counts.csum_filled, 1);
}

/* Cancels the 'n' pending messages of 'tx' from 'first' on: each releases
 * its keypair and leaves its slot unused until the flush.  Returns their
 * inner bytes. */
size_t
netdev_wg_tx_cancel(struct netdev_wg_tx *tx, size_t first, size_t n)
{
    size_t bytes = 0;

    for (size_t i = first; i < first + n; i++) {
        bytes += tx->pending[i].sealer.inner_len;
        wg_device_encrypt_cancel(&tx->pending[i].sealer);
        tx->pending[i].slot = TX_SLOTS_NONE;
    }
    return bytes;
}

/* Begins the message of 'len' inner bytes in 'slot' of 'tx' for 'd',
 * reserved in 'r', and makes it wait in 'tx' with outer TOS 'tos'.
 * Returns its length, or a negative value. */
static int
netdev_wg_begin_reserved(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                         const struct netdev_wg_unlocked_dst *d,
                         struct wg_device_reservation *r, size_t slot,
                         size_t len, uint8_t tos)
{
    struct wg_device_sealer *sealer = &tx->pending[tx->n_pending].sealer;
    int n = wg_device_encrypt_begin_reserved(wg->dev, r,
                                             tx_slots_get(&tx->slots, slot),
                                             len, tx->slots.slot_size,
                                             sealer);

    if (n > 0) {
        netdev_wg_tx_pend(tx, slot, n, (const struct sockaddr *) &d->ss,
                          d->len, tos);
    }
    return n;
}

/* Reserves 'n' messages for 'd' and 'n' slots of 'tx' for them: returns
 * the first slot, or TX_SLOTS_NONE with nothing reserved. */
static size_t
netdev_wg_reserve_unlocked(struct netdev_wireguard *wg,
                           struct netdev_wg_tx *tx,
                           const struct netdev_wg_unlocked_dst *d, size_t n,
                           struct wg_device_reservation *r)
{
    size_t first = tx_slots_acquire(&tx->slots, n);

    if (first != TX_SLOTS_NONE
        && wg_device_reserve_unlocked(wg->dev, d->peer, n, d->now, r)) {
        tx_slots_release_tail(&tx->slots, first, n);
        first = TX_SLOTS_NONE;
    }
    return first;
}

/* Returns the first of 'n' free message slots of 'tx' for 'way', or
 * TX_SLOTS_NONE: counted under the lock; without it, with 'n' messages
 * reserved for them. */
static size_t
netdev_wg_way_slots(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                    struct netdev_wg_way *way, size_t n)
{
    size_t first;

    if (!way->locked) {
        return netdev_wg_reserve_unlocked(wg, tx, way->d, n, &way->r);
    }
    first = netdev_wg_slots_acquire(wg, tx, n);
    if (first == TX_SLOTS_NONE) {
        netdev_wg_tx_no_room(wg);
    }
    return first;
}

/* Begins (or seals at once, for the port's own batch) the message of
 * 'len' inner bytes 'inner' in 'slot' of 'tx' for 'way', with outer TOS
 * 'tos'.  Returns true if it is queued or waits to be sealed. */
static bool
netdev_wg_way_begin(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                    struct netdev_wg_way *way, size_t slot,
                    const uint8_t *inner, size_t len, uint8_t tos)
{
    int n;

    if (way->locked) {
        return netdev_wg_seal_tos(wg, tx, way->peer, slot, inner, len, tos);
    }
    n = netdev_wg_begin_reserved(wg, tx, way->d, &way->r, slot, len, tos);
    if (n < 0) {
        return false;
    }
    way->n_msgs++;
    way->bytes += n;
    way->inner_bytes += len;
    return true;
}

/* Takes back, without the lock, the messages of 'way' begun in 'tx' from
 * 'first' on and the 'n_slots' slots from 'base' on. */
static void
netdev_wg_way_undo(struct netdev_wg_tx *tx, struct netdev_wg_way *way,
                   size_t first, size_t base, size_t n_slots)
{
    netdev_wg_tx_cancel(tx, first, tx->n_pending - first);
    tx->n_pending = first;
    way->n_msgs = way->bytes = way->inner_bytes = 0;
    wg_device_reservation_release(&way->r);
    tx_slots_release_tail(&tx->slots, base, n_slots);
}

/* Ends 'way': without the lock, gives back what is left of its
 * reservation and counts what it sent, for the port and for the peer. */
void
netdev_wg_way_end(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                  struct netdev_wg_way *way)
{
    if (way->locked) {
        return;
    }
    wg_device_reservation_release(&way->r);
    if (way->n_msgs) {
        netdev_wg_tx_count_sent(tx, way->n_msgs, way->inner_bytes);
        netdev_wg_counter_add(&tx->counts.unlocked, way->n_msgs);
        wg_device_note_sent_unlocked(wg->dev, way->peer, way->n_msgs,
                                     way->bytes, true, way->d->now);
    }
}

/* Sends the inner packet 'inner' of 'len' bytes (at most the MTU) of
 * 'pkt' the 'way' it goes.  A batch that seals at once seals straight from
 * the packet, its checksum completed there first if it asked for that; a
 * batch whose seals wait (the caller frees the packet before then) seals a
 * copy in the slot, whose checksum is completed there.  Returns true if
 * its message is queued or begun. */
static bool
netdev_wg_send_one(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                   struct netdev_wg_way *way, const struct dp_packet *pkt,
                   uint8_t *inner, size_t len, const struct pkt_ip_frame *ip)
{
    bool fill = ovs_compat_pkt_l4_csum_partial(pkt);
    size_t slot = netdev_wg_way_slots(wg, tx, way, 1);
    uint8_t *copy;

    if (slot == TX_SLOTS_NONE) {
        return false;
    }
    if (fill && !tx->pending) {
        netdev_wg_tx_fill_csum(tx, inner, ip);
    }
    copy = (tx->pending
            ? tx_slots_get(&tx->slots, slot) + WG_DEVICE_HEADROOM : inner);
    if (!netdev_wg_way_begin(wg, tx, way, slot, copy, len,
                             pkt_ecn_encap(inner, len))) {
        tx_slots_release_tail(&tx->slots, slot, 1);
        return false;
    }
    if (tx->pending) {
        memcpy(copy, inner, len);
        if (fill) {
            netdev_wg_tx_fill_csum(tx, copy, ip);
        }
    }
    return true;
}

/* Returns the TCP payload bytes per segment for super-packet 'info': what
 * fits the inner MTU, or less if the guest asked for less ('guest_mss', 0
 * if unknown). */
static size_t
netdev_wg_tx_mss(int mtu, const struct pkt_ip_info *info, uint16_t guest_mss)
{
    size_t mss = pkt_gso_mss_for_mtu(info, mtu);

    return guest_mss && guest_mss < mss ? guest_mss : mss;
}

/* Counts a super-packet 'tx' cuts into 'n_segs' segments. */
static void
netdev_wg_count_super(struct netdev_wg_tx *tx, size_t n_segs)
{
    COVERAGE_INC(wg_tx_super_packet);
    COVERAGE_ADD(wg_tx_segment, n_segs);
    netdev_wg_counter_add(&tx->counts.super_packets, 1);
    netdev_wg_counter_add(&tx->counts.segments, n_segs);
}

/* Cuts the TCP super-packet at 'inner', parsed into 'info', into segments
 * of 'mss' payload bytes, straight into the 'n_slots' message slots of
 * 'ts' from index 'base' on, described in 'slots' (NETDEV_WG_TX_SLOTS).
 * Needs no lock.  Returns true on success. */
bool
netdev_wg_cut_into(const void *inner, const struct pkt_ip_info *info,
                   size_t mss, const struct tx_slots *ts, size_t base,
                   size_t n_slots, struct pkt_gso_slot *slots)
{
    struct pkt_gso_params params = {
        .mss = mss,
        .headroom = WG_DEVICE_HEADROOM,
        .tailroom = WG_DEVICE_TAILROOM,
    };
    size_t n_segs;

    for (size_t i = 0; i < n_slots; i++) {
        slots[i].base = tx_slots_get(ts, base + i);
        slots[i].room = ts->slot_size;
    }
    return (!pkt_gso_segment_parsed(inner, info, &params, slots, n_slots,
                                    &n_segs)
            && n_segs == n_slots);
}

/* Returns the TCP payload bytes per segment, for inner MTU 'mtu', of the
 * TSO super-packet parsed into 'ip', or 0 if the port cannot cut it into at
 * most NETDEV_WG_TX_SLOTS segments ('*udp' says whether it is a UDP
 * packet: a tunnel's).  Needs no lock. */
static size_t
netdev_wg_super_plan(int mtu, const struct pkt_ip_frame *ip,
                     uint16_t guest_mss, bool *udp)
{
    const struct pkt_ip_info *info = &ip->l4;
    size_t mss;

    *udp = ip->l4_ok && info->l4_proto == IPPROTO_UDP;
    mss = (ip->l4_ok && info->l4_proto == IPPROTO_TCP
           ? netdev_wg_tx_mss(mtu, info, guest_mss) : 0);
    return mss && pkt_gso_n_segs(info, mss) <= NETDEV_WG_TX_SLOTS ? mss : 0;
}

/* Returns the TCP payload bytes per segment for the TSO super-packet
 * parsed into 'ip', or 0, counted, if the port cannot cut it into at most
 * NETDEV_WG_TX_SLOTS segments. */
static size_t
netdev_wg_super_mss(struct netdev_wireguard *wg,
                    const struct pkt_ip_frame *ip, uint16_t guest_mss)
{
    bool udp;
    size_t mss = netdev_wg_super_plan(wg->mtu, ip, guest_mss, &udp);

    if (udp) {
        /* Geneve or VXLAN of OVS's own tunnels whose inner TCP packet is a
         * super-packet: OVS 3.3 and 3.4 pass these unsegmented to a port
         * that takes TSO (3.5 on segments them first).  Said in the
         * status, as the fix is in the configuration. */
        COVERAGE_INC(wg_tx_tunnel_tso);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_TUNNEL_TSO);
        if (is_pow2(wg->counters[NETDEV_WG_TX_TUNNEL_TSO])) {
            netdev_change_seq_changed(&wg->up);
        }
        return 0;
    }
    if (!mss) {
        COVERAGE_INC(wg_tx_gso_error);
        netdev_wg_tx_error(wg, NETDEV_WG_TX_GSO_ERROR);
        return 0;
    }
    return mss;
}

/* Returns the TCP payload bytes per segment for the TSO super-packet of
 * 'pkt', parsed into 'ip', sent 'way', or 0: then counted under the
 * lock. */
static size_t
netdev_wg_way_mss(struct netdev_wireguard *wg, const struct netdev_wg_way *way,
                  const struct dp_packet *pkt, const struct pkt_ip_frame *ip)
{
    uint16_t guest_mss = ovs_compat_pkt_tso_segsz(pkt);
    bool udp;

    return (way->locked
            ? netdev_wg_super_mss(wg, ip, guest_mss)
            : netdev_wg_super_plan(way->mtu, ip, guest_mss, &udp));
}

/* Cuts the super-packet 'inner', parsed into 'info', into the 'n_slots'
 * slots of 'tx' from 'base' on at once, for a batch that seals at once.  On
 * failure counts it, releases the slots and returns false. */
static bool
netdev_wg_cut_now(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                  const void *inner, const struct pkt_ip_info *info,
                  size_t mss, size_t base, size_t n_slots)
{
    struct pkt_gso_slot slots[NETDEV_WG_TX_SLOTS];

    if (netdev_wg_cut_into(inner, info, mss, &tx->slots, base, n_slots,
                           slots)) {
        return true;
    }
    COVERAGE_INC(wg_tx_gso_error);
    netdev_wg_tx_error(wg, NETDEV_WG_TX_GSO_ERROR);
    tx_slots_release_tail(&tx->slots, base, n_slots);
    return false;
}

/* Begins (or seals) a message per segment of super-packet 'info', cut
 * into segments of 'mss' payload bytes, in the 'n_slots' slots of 'tx'
 * from 'base' on, each with outer TOS 'tos'.  Under the lock, a slot whose
 * message fails stays unused until the flush; without it, one failure
 * takes back every message and slot, and returns false. */
static bool
netdev_wg_begin_segments(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                         struct netdev_wg_way *way, size_t base,
                         size_t n_slots, const struct pkt_ip_info *info,
                         size_t mss, uint8_t tos)
{
    size_t first = tx->n_pending;

    for (size_t i = 0; i < n_slots; i++) {
        uint8_t *msg = tx_slots_get(&tx->slots, base + i);

        if (!netdev_wg_way_begin(wg, tx, way, base + i,
                                 msg + WG_DEVICE_HEADROOM,
                                 pkt_gso_seg_len(info, mss, i), tos)
            && !way->locked) {
            netdev_wg_way_undo(tx, way, first, base, n_slots);
            return false;
        }
    }
    return true;
}

/* Cuts the TSO super-packet 'inner' of 'len' bytes of 'pkt' into segments
 * of at most the inner MTU (and of the guest's segment size, if known)
 * straight into message slots and begins a message for each, the 'way' it
 * goes.  The port's own batch cuts and seals at once.  A transmit queue's
 * batch begins each message with the length its segment will have and
 * leaves the cutting, like the sealing, until the port's lock is released
 * (netdev_wg_tx_cut()): then it keeps 'pkt'. */
static enum netdev_wg_sent
netdev_wg_send_super(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                     struct netdev_wg_way *way, struct dp_packet *pkt,
                     const uint8_t *inner, size_t len,
                     const struct pkt_ip_frame *ip)
{
    size_t first = tx->n_pending, mss, n_slots;
    const struct pkt_ip_info *info = &ip->l4;
    size_t base;

    mss = netdev_wg_way_mss(wg, way, pkt, ip);
    n_slots = mss ? pkt_gso_n_segs(info, mss) : 0;
    base = (n_slots ? netdev_wg_way_slots(wg, tx, way, n_slots)
            : TX_SLOTS_NONE);
    if (base == TX_SLOTS_NONE
        || (!tx->pending
            && !netdev_wg_cut_now(wg, tx, inner, info, mss, base, n_slots))
        || !netdev_wg_begin_segments(wg, tx, way, base, n_slots, info, mss,
                                     pkt_ecn_encap(inner, len))) {
        return NETDEV_WG_NOT_SENT;
    }
    netdev_wg_count_super(tx, n_slots);
    if (!tx->pending || tx->n_pending == first) {
        return NETDEV_WG_SENT;  /* Cut already, or no message begun. */
    }
    tx->cuts[tx->n_cuts++] = (struct netdev_wg_cut) {
        .pkt = pkt, .inner = inner, .info = *info, .base = base,
        .n_slots = n_slots, .mss = mss, .first = first,
        .n_begun = tx->n_pending - first,
    };
    return NETDEV_WG_KEPT;
}

/* Sends the IPv4 packet 'inner' (DF clear, longer than the MTU) as
 * fragments. */
static void
netdev_wg_send_fragments(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                         struct wg_peer *peer, const void *inner, size_t len)
{
    size_t room = (tx->slots.slot_size
                   - WG_DEVICE_HEADROOM - WG_DEVICE_TAILROOM);
    struct pkt_mtu_frag frag;
    size_t n;

    if (!pkt_mtu_frag_start(&frag, inner, len, wg->mtu)) {
        COVERAGE_INC(wg_tx_frag_error);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_FRAG_ERROR);
        return;
    }
    COVERAGE_INC(wg_tx_fragmented);
    for (;;) {
        size_t slot = netdev_wg_slots_acquire(wg, tx, 1);

        if (slot == TX_SLOTS_NONE) {
            netdev_wg_tx_no_room(wg);
            break;
        }
        n = pkt_mtu_frag_next(&frag, (tx_slots_get(&tx->slots, slot)
                                      + WG_DEVICE_HEADROOM), room);
        if (!n || !netdev_wg_seal_slot(wg, tx, peer, slot, n)) {
            tx_slots_release_tail(&tx->slots, slot, 1);
            if (!n) {
                break;
            }
        }
    }
}

/* Queues 'pkt' for peer 'np' until it has a session, within the peer's
 * and the port's bounds, or drops it.  Takes ownership of 'pkt'. */
static void
netdev_wg_tx_enqueue(struct netdev_wireguard *wg, struct netdev_wg_peer *np,
                     struct dp_packet *pkt)
{
    if (wg->n_queued < NETDEV_WG_PORT_QUEUE_MAX
        && netdev_wg_ring_push(&np->queue, pkt)) {
        wg->n_queued++;
        return;
    }
    COVERAGE_INC(wg_tx_queue_full);
    netdev_wg_tx_drop(wg, NETDEV_WG_TX_QUEUE_FULL);
    dp_packet_delete(pkt);
}

/* Takes the oldest packet off the queue of peer 'np', or returns NULL. */
static struct dp_packet *
netdev_wg_tx_dequeue(struct netdev_wireguard *wg, struct netdev_wg_peer *np)
{
    struct dp_packet *pkt = netdev_wg_ring_pop(&np->queue);

    wg->n_queued -= pkt != NULL;
    return pkt;
}

/* Sends the inner packet 'inner' of 'len' bytes of 'pkt', parsed into
 * 'ip', to the peer of 'way', the way it goes.  Under the lock, a packet
 * for a peer without a session waits in the peer's queue while a handshake
 * starts (then the packet's data must start at 'inner') and an IPv4 packet
 * longer than the MTU, DF clear, goes as fragments; without it, neither is
 * sent. */
enum netdev_wg_sent
netdev_wg_tx_inner(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                   struct netdev_wg_way *way, struct dp_packet *pkt,
                   uint8_t *inner, size_t len, const struct pkt_ip_frame *ip)
{
    if (way->locked && !wg_device_peer_has_session(wg->dev, way->peer)) {
        netdev_wg_tx_enqueue(wg, netdev_wg_peer_of(way->peer), pkt);
        wg_device_peer_initiate(wg->dev, way->peer);
        return NETDEV_WG_KEPT;
    } else if (len <= way->mtu) {
        return (netdev_wg_send_one(wg, tx, way, pkt, inner, len, ip)
                ? NETDEV_WG_SENT : NETDEV_WG_NOT_SENT);
    } else if (ovs_compat_pkt_is_tso(pkt) && way->tso) {
        return netdev_wg_send_super(wg, tx, way, pkt, inner, len, ip);
    } else if (way->locked) {
        netdev_wg_send_fragments(wg, tx, way->peer, inner, len);
        return NETDEV_WG_SENT;
    }
    return NETDEV_WG_NOT_SENT;
}

/* Sends inner packet 'pkt' (its data starts at the IP header), parsed into
 * 'ip' (NULL: parsed here), to 'peer' under the port's lock, or queues it
 * until the peer has a session.  Takes ownership of 'pkt'. */
void
netdev_wg_tx_locked(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                    struct wg_peer *peer, struct dp_packet *pkt,
                    const struct pkt_ip_frame *ip)
{
    struct netdev_wg_way way = {
        .locked = true, .peer = peer, .mtu = wg->mtu, .tso = true,
    };
    struct pkt_ip_frame own;

    if (!ip) {
        pkt_ip_frame_parse(&own, dp_packet_data(pkt), dp_packet_size(pkt), 0);
        ip = &own;
    }
    if (netdev_wg_tx_inner(wg, tx, &way, pkt, dp_packet_data(pkt),
                           dp_packet_size(pkt), ip) != NETDEV_WG_KEPT) {
        dp_packet_delete(pkt);
    }
}

/* Counts what the unlocked part of a send of 'tx' failed at, 'late'. */
void
netdev_wg_tx_count_late(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                        const struct netdev_wg_tx_late *late)
    OVS_EXCLUDED(wg->mutex)
{
    size_t failed = late->seal_failed;

    netdev_wg_tx_uncount(tx, late->cut_msgs, late->cut_bytes);
    netdev_wg_tx_uncount(tx, failed, late->seal_failed_bytes);
    ovs_mutex_lock(&wg->mutex);
    if (late->cut_failed) {
        COVERAGE_ADD(wg_tx_gso_error, late->cut_failed);
        wg->stats.tx_errors += late->cut_failed;
        netdev_wg_count_n(wg, NETDEV_WG_TX_GSO_ERROR, late->cut_failed);
    }
    if (failed) {
        COVERAGE_ADD(wg_tx_encrypt_error, failed);
        wg->stats.tx_dropped += failed;
        netdev_wg_count_n(wg, NETDEV_WG_TX_CRYPTO_ERROR, failed);
    }
    if (late->dropped) {
        wg->stats.tx_dropped += late->dropped;
        netdev_wg_count_n(wg, NETDEV_WG_TX_SOCKET, late->dropped);
    }
    ovs_mutex_unlock(&wg->mutex);
}

/* The engine's hooks. */

void
netdev_wg_tx_session_ready(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = netdev_wg_peer_of(peer);
    struct dp_packet *pkt;
    size_t n = np->queue.n;

    /* Packets that cannot go now return to the queue, so stop after one
     * pass. */
    while (n-- && (pkt = netdev_wg_tx_dequeue(wg, np))) {
        netdev_wg_tx_locked(wg, &wg->tx, peer, pkt, NULL);
    }
}

void
netdev_wg_tx_handshake_failed(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);
    struct dp_packet *pkt;

    if (!np) {
        return;
    }
    while ((pkt = netdev_wg_tx_dequeue(wg, np))) {
        COVERAGE_INC(wg_tx_handshake_failed);
        netdev_wg_tx_drop(wg, NETDEV_WG_TX_HANDSHAKE_FAILED);
        dp_packet_delete(pkt);
    }
}
