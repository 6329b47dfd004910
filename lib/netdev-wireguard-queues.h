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

#ifndef NETDEV_WIREGUARD_QUEUES_H
#define NETDEV_WIREGUARD_QUEUES_H 1

/* The bounds of a wireguard port and the data structures of its queues:
 * the packet ring, a receive queue with its round of messages and the
 * headers it remembers, a send batch with its pending seals and cuts, and
 * a transmit queue.  Data only: the functions that use them are declared
 * in netdev-wireguard-private.h, which includes this header. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "addr-memo.h"
#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "packets.h"
#include "pkt-gro.h"
#include "pkt-ip.h"
#include "tx-slots.h"
#include "udp-batch.h"
#include "util.h"
#include "wg-device.h"
#include "wg-uapi.h"
#ifdef DPDK_NETDEV
#include <rte_mbuf.h>
#endif

struct dp_packet;
struct pkt_gro_pkt;

/* Bounds. */
#define NETDEV_WG_PEER_QUEUE_MAX 256    /* Packets waiting for a session. */
#define NETDEV_WG_PORT_QUEUE_MAX 4096   /* The same, all peers of a port. */
#define NETDEV_WG_TO_BRIDGE_MAX 2048    /* Packets waiting for rxq_recv(). */
#define NETDEV_WG_HS_QUEUE_MAX 1024     /* Handshake messages a PMD thread
                                         * leaves to the main thread. */
#define NETDEV_WG_HS_PER_RUN 64         /* Of those, handled per run. */
#define NETDEV_WG_TX_LEARNED 16384      /* Bridge sources a send batch
                                         * remembers teaching, at most
                                         * (addr-memo.h)... */
#define NETDEV_WG_TX_LEARNED_MS 1000    /* ...and for how long. */
#define NETDEV_WG_TX_SLOTS 128          /* Encrypted messages per flush,
                                         * and most that one frame makes. */
#define NETDEV_WG_TXQ_SLOTS (4 * NETDEV_WG_TX_SLOTS) /* Per transmit queue. */
#define NETDEV_WG_TXQ_MAX 64            /* Transmit queues of a port. */
#define NETDEV_WG_RX_READS 16           /* Reads per recvmmsg(). */
#define NETDEV_WG_RX_RESOLVED 16384     /* Inner destinations a receive
                                         * queue remembers resolved, at
                                         * most (addr-memo.h)... */
#define NETDEV_WG_RX_RESOLVED_MS 1000   /* ...at most for this long. */
#define NETDEV_WG_MIN_MTU_IPV6 1280     /* Inner MTU IPv6 needs (RFC 8200). */
#define NETDEV_WG_EVENTS_SCAN_MS 1000   /* Peer expiry and roaming checks. */
#define NETDEV_WG_SLICE_US WG_UAPI_SLICE_US /* Long appctl work per run. */
/* Host-name endpoints (netdev-wireguard-dns.c). */
#define NETDEV_WG_DNS_REFRESH_MS 30000  /* Resolved again this often, */
#define NETDEV_WG_DNS_RETRY_MS 5000     /* or this often while failing. */
#define NETDEV_WG_DNS_TIMEOUT_MS 5000   /* No address by then: an error. */
#define NETDEV_WG_DNS_STALE_MS 135000   /* No handshake since: failing. */
/* Room for a coalesced packet (bare IP): a dp_packet holds at most 65535
 * bytes (its size fields are 16-bit), headroom for the Ethernet and
 * virtio-net headers included. */
#define NETDEV_WG_RX_HEADROOM 64
#ifndef DPDK_NETDEV
#define NETDEV_WG_GRO_MAX (UINT16_MAX - NETDEV_WG_RX_HEADROOM)
#else
/* In a DPDK build, netdev-dpdk (3.1 to 4.0) copies a packet that is not from
 * a DPDK pool (ours are not) into one mbuf before a vhost-user or NIC port
 * sends it; a packet larger than the mbuf's room gets an external buffer
 * (dpdk_pktmbuf_attach_extbuf()) of at most UINT16_MAX bytes that also
 * holds RTE_PKTMBUF_HEADROOM, the buffer's shared info and a pointer,
 * rounded up to a pointer's size.  A larger frame is dropped ("Can't copy
 * packet: too big").  Coalescing stops below that, Ethernet header
 * included (65368 bytes of frame with DPDK 22.11). */
#define NETDEV_WG_FRAME_MAX                                             \
    (ROUND_DOWN(UINT16_MAX, sizeof(uintptr_t)) - RTE_PKTMBUF_HEADROOM     \
     - sizeof(struct rte_mbuf_ext_shared_info) - sizeof(uintptr_t))
#define NETDEV_WG_GRO_MAX (NETDEV_WG_FRAME_MAX - ETH_HEADER_LEN)
#endif

/* A bounded FIFO of packets. */
struct netdev_wg_ring {
    struct dp_packet **pkts;
    size_t head;
    size_t n;
    size_t cap;
};

/* A data message of a receive round between the steps of its decryption
 * (netdev-wireguard-rx.c): where it is, which read it came in, and what
 * the device holds for it. */
struct netdev_wg_rx_msg {
    uint8_t *data;
    size_t len;
    const struct udp_batch_rx_buf *buf;     /* Source and TOS. */
    struct wg_device_opener opener;
    bool begun;                 /* 'opener' holds a keypair. */
    bool ecn_drop;              /* Ended without the lock, then dropped by
                                 * ECN decapsulation. */
    enum wg_device_rx rx;       /* Outcome, if ended without the lock. */
    uint8_t *placed;            /* Step 3 put the inner packet's bytes from
                                 * 'placed_ofs' on here (pkt-gro.h)... */
    size_t placed_ofs;
    struct dp_packet *pkt;      /* ...behind this message's copy, the head
                                 * of their run (owned until step 4). */
};

/* Step 3's prediction (netdev-wireguard-rx-place.c): the run that the
 * next message of keypair 'kp' should continue, opened by message 'head'
 * of the round, and what the message being opened adds to it. */
struct netdev_wg_rx_place {
    struct pkt_gro_pred pred;
    const void *kp;             /* NULL: no prediction. */
    size_t head;
    size_t payload;
    bool ends;
};

/* What a receive queue counted: its thread adds without the port's lock,
 * readers of statistics add the queues up (netdev_wg_rx_add_counts()). */
struct netdev_wg_rx_counts {
    atomic_uint64_t messages;       /* WireGuard messages read... */
    atomic_uint64_t bytes;          /* ...their UDP payload bytes... */
    atomic_uint64_t unlocked;       /* ...and how many of them were ended
                                     * without the port's lock. */
    atomic_uint64_t rounds;         /* Receive rounds that handed packets
                                     * to the bridge... */
    atomic_uint64_t rounds_unlocked;/* ...of which without the lock. */
    atomic_uint64_t packets;        /* rx_packets and rx_bytes of the */
    atomic_uint64_t inner_bytes;    /* port's statistics. */
    atomic_uint64_t coalesced;      /* As in struct */
    atomic_uint64_t merged;         /* netdev_wg_offload_stats. */
    atomic_uint64_t rx_pooled;
    atomic_uint64_t rx_allocated;
};

/* A receive queue: the buffers of its sockets' reads, the data messages
 * and inner packets of one receive round, the packets waiting for
 * rxq_recv(), what it read and the destinations it resolved.  Only the
 * thread that polls the queue touches it, but for 'to_bridge' (under
 * 'ring_mutex': queue 0's carries the port's own frames too) and
 * 'counts'. */
struct netdev_wg_rxq {
    uint8_t *mem;
    struct udp_batch_rx_buf bufs[NETDEV_WG_RX_READS];
    struct netdev_wg_rx_msg *msgs;
    size_t n_msgs;
    struct pkt_gro_pkt *inner;
    struct dp_packet **owner;   /* Coalesced heads moved to packets. */
    struct ovs_mutex ring_mutex;    /* A leaf: taken last, taking none. */
    struct netdev_wg_ring to_bridge OVS_GUARDED;
    uint64_t round_bytes;       /* Of the current round, not yet added. */
    bool round_locked;          /* The round took the port's lock. */
    bool ipv6_first;            /* IPv6 last had something. */
    uint8_t n_calls;            /* Receive calls, wrapping. */
    struct netdev_wg_rx_place place;
    struct netdev_wg_rx_counts counts;
    struct addr_memo resolved;  /* Inner destination to the Ethernet
                                 * header the adapter gave it, usable
                                 * without asking it again until the
                                 * entry's deadline. */
};

/* A handshake message received on a PMD thread, waiting for the main
 * thread (netdev_wg_rx_handshakes()). */
struct netdev_wg_hs_msg {
    struct sockaddr_storage src;
    socklen_t src_len;
    uint16_t len;
    uint8_t msg[WG_MSG_INITIATION_LEN];     /* The larger of the two. */
};

/* A message whose sealing waits for the end of the locked part of a send
 * (netdev-wireguard-tx.c): its slot, its keypair and counter, where it
 * goes. */
struct netdev_wg_pending {
    size_t slot;                        /* TX_SLOTS_NONE: cancelled. */
    struct wg_device_sealer sealer;
    int len;                            /* UDP payload bytes. */
    struct sockaddr_storage dst;
    uint8_t tos;
};

/* A TSO super-packet of a transmit queue's batch whose messages are begun
 * under the port's lock (each with the length its segment will have) and
 * whose segments are cut into their slots after the lock is released, just
 * before they are sealed. */
struct netdev_wg_cut {
    struct dp_packet *pkt;      /* Owned until cut. */
    const uint8_t *inner;       /* The super-packet in 'pkt'... */
    struct pkt_ip_info info;    /* ...and its one parse. */
    size_t base;                /* First of its 'n_slots' slots. */
    size_t n_slots;
    size_t mss;                 /* TCP payload bytes per segment. */
    size_t first;               /* Its begun messages in 'pending'... */
    size_t n_begun;             /* ...and how many. */
};

/* What a send batch counted: its thread adds without the port's lock,
 * readers of statistics add the batches up (netdev_wg_tx_add_counts()). */
struct netdev_wg_tx_counts {
    atomic_uint64_t messages;       /* Data messages made... */
    atomic_uint64_t unlocked;       /* ...of which without the port's
                                     * lock. */
    atomic_uint64_t packets;        /* tx_packets and tx_bytes of the */
    atomic_uint64_t bytes;          /* port's statistics. */
    atomic_uint64_t super_packets;  /* As in struct */
    atomic_uint64_t segments;       /* netdev_wg_offload_stats. */
    atomic_uint64_t csum_filled;
};

/* A send batch: message slots (each a WireGuard header, inner packet,
 * padding and tag, encrypted in place) and the queues they wait in until
 * they are sent and the slots taken back.  The port's own batch (for what
 * the engine's hooks and timers send) seals each message at once, under
 * the port's lock; a transmit queue's batch seals and sends outside it
 * ('pending' nonnull), and begins what needs no lock without it. */
struct netdev_wg_tx {
    struct tx_slots slots;
    struct udp_batch_tx *q4;    /* Messages for the IPv4 socket. */
    struct udp_batch_tx *q6;    /* Messages for the IPv6 socket. */
    struct udp_batch_tx *ctl;   /* One handshake/cookie message. */
    struct netdev_wg_pending *pending;  /* One per slot, or NULL. */
    size_t n_pending;
    struct netdev_wg_cut *cuts;         /* One per slot, with 'pending'. */
    size_t n_cuts;
    struct netdev_wg_tx_counts counts;
    struct addr_memo learned;   /* Sources on the bridge (IP to MAC, in
                                 * 'eth_src') that a transmit queue
                                 * taught the layer-2 adapter: until the
                                 * entry's deadline a frame from one may
                                 * be sent without the port's lock. */
};

/* A transmit queue: the batch of the thread that sends with its qid, and
 * a lock for when OVS says the qid is shared ('concurrent_txq'), as OVS's
 * own netdev-dpdk and netdev-afxdp lock a shared txq; an adaptive mutex,
 * not their spinlock, because a send may wait for the port's lock. */
struct netdev_wg_txq {
    struct ovs_mutex lock;
    struct netdev_wg_tx tx;
    int id;                     /* Its index among the port's queues. */
};

#endif /* netdev-wireguard-queues.h */
