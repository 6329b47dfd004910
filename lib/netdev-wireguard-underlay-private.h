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

#ifndef NETDEV_WIREGUARD_UNDERLAY_PRIVATE_H
#define NETDEV_WIREGUARD_UNDERLAY_PRIVATE_H 1

/* The companion netdev of the datapath underlay (netdev-wireguard-
 * underlay.h): its state, shared by its three files.
 *
 * Locks, after every lock of the wireguard port: 'mutex' (the host, the
 * neighbour cache, held frames, counters), then the rings' own leaf locks
 * ('dp_mutex': frames for the underlay bridge and their counters; each
 * wgq[]'s 'mutex': datagrams for one receive queue of the port).  The
 * port's send takes 'mutex' once per batch, frames with no lock held, then
 * takes 'dp_mutex' once; whether the host has an address of a family is
 * an atomic, read with no lock.
 * 'wg' and 'wg_name' change only on the main thread. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netdev-provider.h"
#include "netdev-wireguard-private.h"
#include "openvswitch/list.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "packets.h"
#include "udp-batch.h"
#include "ul-frame.h"
#include "ul-neigh.h"

#define NETDEV_WG_UL_RING_MAX 1024  /* Frames waiting in each direction. */
#define NETDEV_WG_UL_HOLD_MAX 64    /* Frames waiting for a neighbour... */
#define NETDEV_WG_UL_HOLD_MS 3000   /* ...at most for this long. */
#define NETDEV_WG_UL_TTL 64         /* TTL and hop limit of our frames. */
#define NETDEV_WG_UL_MTU 1500       /* Underlay MTU unless mtu_request. */
#define NETDEV_WG_UL_GRO_SEGS 64    /* Datagrams per receive buffer. */
#define NETDEV_WG_UL_HEADROOM 64    /* Before our frames, for the bridge's
                                     * pushes (VLAN, outer headers): an
                                     * mbuf cannot grow. */
#define NETDEV_WG_UL_TX_BATCH 64    /* Messages per lock round. */

/* Counters beside ul_frame's drop reasons ("ul_<name>"): those of the
 * ring to the bridge, under 'dp_mutex', and the others, under 'mutex'. */
#define NETDEV_WG_UL_DP_COUNTERS                                        \
    C(TX_FRAMES, "ul_tx_frames")        /* Messages sent as frames. */  \
    C(TX_RING_FULL, "ul_tx_drop_ring_full") /* Bridge not polling. */

enum netdev_wg_ul_dp_counter {
#define C(ENUM, NAME) NETDEV_WG_UL_##ENUM,
    NETDEV_WG_UL_DP_COUNTERS
#undef C
    NETDEV_WG_UL_N_DP_COUNTERS
};

#define NETDEV_WG_UL_COUNTERS                                           \
    C(TX_NO_ROUTE, "ul_tx_drop_no_route")   /* No address or gateway. */\
    C(TX_UNREACHABLE, "ul_tx_drop_unreachable") /* Neighbour failed. */ \
    C(TX_HELD, "ul_tx_held")            /* Held for a neighbour... */   \
    C(TX_HOLD_FULL, "ul_tx_drop_hold_full")     /* ...no room... */     \
    C(TX_HOLD_EXPIRED, "ul_tx_drop_hold_expired") /* ...no answer. */   \
    C(TX_ENCAP, "ul_tx_drop_encap")     /* Over the MTU. */             \
    C(TX_COPIED, "ul_tx_copied")        /* Not sealed in a packet. */   \
    C(RX_WG, "ul_rx_wireguard")         /* Datagrams for the port. */   \
    C(RX_RING_FULL, "ul_rx_drop_ring_full") /* Port not polling. */     \
    C(RX_UNPAIRED, "ul_rx_drop_unpaired")   /* No port paired. */       \
    C(ARP_REPLIES, "ul_arp_replies_sent")                               \
    C(NA_SENT, "ul_na_sent")                                            \
    C(SOLICITS, "ul_solicits_sent")     /* ARP requests and NS. */

enum netdev_wg_ul_counter {
#define C(ENUM, NAME) NETDEV_WG_UL_##ENUM,
    NETDEV_WG_UL_COUNTERS
#undef C
    NETDEV_WG_UL_N_COUNTERS
};

/* A message's frame waiting for the MAC of next hop 'nh'. */
struct netdev_wg_ul_held {
    struct dp_packet *pkt;
    struct in6_addr nh;
    long long int until;
};

/* A WireGuard datagram for the port: the frame that holds it. */
struct netdev_wg_ul_dgram {
    struct dp_packet *pkt;
    uint32_t ofs, len;
    union udp_batch_addr src;
    uint8_t tos;
};

/* The datagrams waiting for one receive queue of the port: a ring of
 * NETDEV_WG_UL_RING_MAX, allocated once the queue is in use. */
struct netdev_wg_ul_wgq {
    struct ovs_mutex mutex;
    struct netdev_wg_ul_dgram *ring OVS_GUARDED;
    size_t head, n OVS_GUARDED;
    struct seq *seq;                /* Changes when the ring fills. */
};

struct netdev_wg_ul {
    struct netdev up;
    struct ovs_list list_node;      /* In 'netdev_wg_ul_list'. */

    /* Pairing (main thread only). */
    char *wg_name;                  /* Option "wireguard". */
    struct netdev_wireguard *wg;    /* The port paired, or NULL. */

    struct ovs_mutex mutex;
    bool paired OVS_GUARDED;        /* 'wg' is set: datagrams are read. */
    struct ul_frame_host host OVS_GUARDED;
    struct ul_neigh_route route OVS_GUARDED;
    struct ul_neigh *neigh OVS_GUARDED;
    uint16_t ip_id OVS_GUARDED;
    struct netdev_wg_ul_held held[NETDEV_WG_UL_HOLD_MAX] OVS_GUARDED;
    size_t n_held OVS_GUARDED;
    struct ul_frame_counts drops OVS_GUARDED;
    uint64_t counters[NETDEV_WG_UL_N_COUNTERS] OVS_GUARDED;
    uint64_t tx_packets, tx_bytes OVS_GUARDED;  /* From the bridge. */
    enum netdev_flags flags OVS_GUARDED;
    atomic_bool has_ip4, has_ip6;   /* 'host' has an address: written
                                     * under 'mutex', read without. */

    /* Frames for the underlay bridge (rxq_recv()). */
    struct ovs_mutex dp_mutex;
    struct netdev_wg_ring to_dp OVS_GUARDED;
    uint64_t rx_packets, rx_bytes OVS_GUARDED;
    uint64_t dp_counters[NETDEV_WG_UL_N_DP_COUNTERS] OVS_GUARDED;
    struct seq *dp_seq;

    /* Datagrams for the port's receive queues (netdev-wireguard-
     * underlay-rx.c steers them), 'n_wgq' of them in use. */
    atomic_int n_wgq;
    struct netdev_wg_ul_wgq wgq[WG_CONFIG_N_RXQ_MAX];
};

/* netdev-wireguard-underlay-rx.c. */

/* The bridge's frames for the companion ('batch', taken). */
void netdev_wg_ul_rx_frames(struct netdev_wg_ul *ul,
                            struct dp_packet_batch *batch);

/* The receive queues' rings: made (one queue in use), emptied, freed. */
void netdev_wg_ul_rx_init(struct netdev_wg_ul *ul);
void netdev_wg_ul_rx_clear(struct netdev_wg_ul *ul);
void netdev_wg_ul_rx_destroy(struct netdev_wg_ul *ul);

/* netdev-wireguard-underlay-tx.c. */

/* Queues the 'n' frames at 'pkts' (taken) for the underlay bridge in one
 * round of 'dp_mutex', dropping and counting those without room; counts
 * those queued as messages ("ul_tx_frames") if 'msgs'.  netdev_wg_ul_to_dp()
 * queues one frame that is not a message. */
void netdev_wg_ul_to_dp_n(struct netdev_wg_ul *ul, struct dp_packet **pkts,
                          size_t n, bool msgs)
    OVS_EXCLUDED(ul->dp_mutex);
void netdev_wg_ul_to_dp(struct netdev_wg_ul *ul, struct dp_packet *pkt)
    OVS_EXCLUDED(ul->dp_mutex);

/* Sends the frames held for next hop 'nh', now known at 'mac'. */
void netdev_wg_ul_release(struct netdev_wg_ul *ul, const struct in6_addr *nh,
                          struct eth_addr mac)
    OVS_REQUIRES(ul->mutex);

/* Forgets held frames and neighbours out of time at 'now'; when it next
 * has work. */
void netdev_wg_ul_tx_run(struct netdev_wg_ul *ul, long long int now)
    OVS_REQUIRES(ul->mutex);
long long int netdev_wg_ul_tx_deadline(const struct netdev_wg_ul *ul)
    OVS_REQUIRES(ul->mutex);

/* Says whether a port is paired (datagrams for it are kept). */
void netdev_wg_ul_set_paired(struct netdev_wg_ul *ul, bool paired);

/* Drops every held frame. */
void netdev_wg_ul_tx_clear(struct netdev_wg_ul *ul)
    OVS_REQUIRES(ul->mutex);

#endif /* netdev-wireguard-underlay-private.h */
