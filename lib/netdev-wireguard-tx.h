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

#ifndef NETDEV_WIREGUARD_TX_H
#define NETDEV_WIREGUARD_TX_H 1

/* Internals of the send path, shared by its two files: the per-frame part
 * (netdev-wireguard-tx.c: the layer-2 adapter, routing, the MTU policy,
 * segmentation and the message slots, by one function per step for both
 * ways of sending) and the per-batch part above it
 * (netdev-wireguard-tx-batch.c: which frames of a batch go without the
 * port's lock, and the cutting, sealing and counting after it). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "netdev-wireguard-private.h"
#include "wg-device.h"

struct dp_packet;
struct in6_addr;
struct netdev_wg_tx;
struct netdev_wireguard;
struct pkt_gso_slot;
struct pkt_ip_frame;
struct pkt_ip_info;

/* Where a send without the lock goes: the peer's endpoint; and when. */
struct netdev_wg_unlocked_dst {
    struct wg_peer *peer;
    struct sockaddr_storage ss;
    socklen_t len;
    long long int now;
};

/* The two ways a send begins its messages.
 *
 * Under the port's lock ('locked'), the device checks the peer's session
 * and each failure is counted as a drop (netdev_wg_seal_tos()): the port's
 * own batch seals each message at once, a transmit queue's begins it and
 * seals it after the lock is released.  Without the lock, for a
 * destination looked up under RCU ('d'), the messages come from a
 * reservation of the peer's current keypair (wg_device_reserve_unlocked())
 * and are always sealed later; a failure counts nothing and leaves the
 * frame, as it was, to the locked way.  Both ways cut, copy, complete
 * checksums and record cuts with the same functions below. */
struct netdev_wg_way {
    bool locked;
    struct wg_peer *peer;
    int mtu;
    bool tso;                   /* Super-packets may be cut. */
    const struct netdev_wg_unlocked_dst *d;     /* Without the lock. */
    struct wg_device_reservation r;             /* Without the lock. */
    size_t n_msgs, bytes, inner_bytes;          /* Begun without it. */
};

/* What a send did with its packet. */
enum netdev_wg_sent {
    NETDEV_WG_NOT_SENT,         /* Nothing: dropped and counted under the
                                 * lock, left to the lock without it. */
    NETDEV_WG_SENT,             /* Its messages queued or begun: the caller
                                 * frees the packet. */
    NETDEV_WG_KEPT,             /* Kept, to be cut later or queued. */
};

/* What the unlocked part of a send failed at, counted under the lock
 * afterwards (netdev_wg_tx_count_late()). */
struct netdev_wg_tx_late {
    size_t cut_failed;          /* Super-packets that could not be cut... */
    size_t cut_msgs;            /* ...and their messages, cancelled... */
    size_t cut_bytes;           /* ...with their inner bytes. */
    size_t seal_failed;         /* Messages that did not seal... */
    size_t seal_failed_bytes;   /* ...with their inner bytes. */
    size_t dropped;             /* Messages the socket did not take. */
};

/* Counts, under the port's lock, what the unlocked part of a send of 'tx'
 * failed at, 'late'. */
void netdev_wg_tx_count_late(struct netdev_wireguard *wg,
                             struct netdev_wg_tx *tx,
                             const struct netdev_wg_tx_late *late)
    OVS_EXCLUDED(wg->mutex);

/* Sends the inner packet 'inner' of 'len' bytes of 'pkt' to the peer of
 * 'way', the way it goes.  Under the lock, a packet for a peer without a
 * session waits in the peer's queue while a handshake starts (then the
 * packet's data must start at 'inner') and an IPv4 packet longer than the
 * MTU, DF clear, goes as fragments; without it, neither is sent.  'ip' is
 * the packet's one parse (pkt_ip_frame_parse()), which every step below
 * takes instead of parsing again. */
enum netdev_wg_sent netdev_wg_tx_inner(struct netdev_wireguard *wg,
                                       struct netdev_wg_tx *tx,
                                       struct netdev_wg_way *way,
                                       struct dp_packet *pkt,
                                       uint8_t *inner, size_t len,
                                       const struct pkt_ip_frame *ip);

/* Ends 'way': without the lock, gives back what is left of its
 * reservation and counts what it sent, for the port and for the peer. */
void netdev_wg_way_end(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                       struct netdev_wg_way *way);

/* Counts a packet of the bridge that 'wg' does not send for reason 'c',
 * which is logged (rate-limited per reason); the caller counts the reason's
 * coverage counter. */
void netdev_wg_tx_drop(struct netdev_wireguard *wg, enum netdev_wg_counter c);

/* Sends inner packet 'pkt' (its data starts at the IP header), parsed into
 * 'ip' (NULL: parsed here), to 'peer' under the port's lock, or queues it
 * until the peer has a session.  Takes ownership of 'pkt'. */
void netdev_wg_tx_locked(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                         struct wg_peer *peer, struct dp_packet *pkt,
                         const struct pkt_ip_frame *ip);

/* Takes one frame from the bridge, parsed into 'ip' (netdev_wg_tx_parse()),
 * at 'now' (the adapter's clock, read once a batch), under the port's
 * lock: answers ARP/ND, drops what WireGuard cannot carry, sends IP
 * packets to their peer.  Takes ownership. */
void netdev_wg_tx_frame(struct netdev_wireguard *wg, struct netdev_wg_tx *tx,
                        struct dp_packet *pkt, const struct pkt_ip_frame *ip,
                        long long int now)
    OVS_REQUIRES(wg->mutex);

/* Whether 'tx' taught the adapter source 'src' at 'mac' less than
 * NETDEV_WG_TX_LEARNED_MS before 'now'. */
bool netdev_wg_tx_learned(const struct netdev_wg_tx *tx,
                          const struct in6_addr *src, struct eth_addr mac,
                          long long int now);

/* Cuts the TCP super-packet at 'inner', parsed into 'info', into segments
 * of 'mss' payload bytes, straight into the 'n_slots' message slots of
 * 'ts' from index 'base' on, described in 'slots' (NETDEV_WG_TX_SLOTS).
 * Needs no lock.  Returns true on success. */
bool netdev_wg_cut_into(const void *inner, const struct pkt_ip_info *info,
                        size_t mss, const struct tx_slots *ts, size_t base,
                        size_t n_slots, struct pkt_gso_slot *slots);

/* Cancels the 'n' pending messages of 'tx' from 'first' on: each releases
 * its keypair and leaves its slot unused until the flush.  Returns their
 * inner bytes. */
size_t netdev_wg_tx_cancel(struct netdev_wg_tx *tx, size_t first, size_t n);

/* Takes 'n' packets of 'inner_bytes' that 'tx' counted but that did not
 * leave out of the port's statistics. */
void netdev_wg_tx_uncount(struct netdev_wg_tx *tx, size_t n,
                          size_t inner_bytes);

#endif /* netdev-wireguard-tx.h */
