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

#ifndef NETDEV_WIREGUARD_PRIVATE_H
#define NETDEV_WIREGUARD_PRIVATE_H 1

/* State shared by the files of the wireguard netdev class (the file map
 * and the threading model are below, before the declarations). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "netdev-provider.h"
#include "openvswitch/list.h"
#include "openvswitch/thread.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "wg-config.h"
#include "wg-device.h"
#include "wg-messages.h"
#include "wg-uapi.h"
#include "tx-slots.h"
#include "udp-batch.h"
#include "util.h"

struct dp_packet;
struct ds;
struct pkt_gro_pkt;
struct wg_device;
struct bridge_l2;
struct wg_peer;
struct wg_uapi_server;
struct netdev_wg_dns;
struct netdev_wg_ul;

#include "netdev-wireguard-queues.h"

/* Port-side state of a peer, attached to its struct wg_peer as user data. */
struct netdev_wg_peer {
    char *name;                 /* OVSDB peer name, NULL if added by UAPI. */
    char *fingerprint;          /* Options it was configured from. */
    struct netdev_wg_ring queue;    /* Inner IP packets awaiting a session. */
    bool up;                    /* Logged as up (has had a session). */
    struct sockaddr_storage endpoint;   /* Endpoint at the last scan. */
    socklen_t endpoint_len;             /* 0: none yet. */
    struct netdev_wg_dns *dns;  /* Host-name endpoint, or NULL. */
};

/* What the offload paths did, for "wireguard/show --offload" (the send
 * side's counts are the send batches', struct netdev_wg_tx_counts). */
struct netdev_wg_offload_stats {
    uint64_t super_packets;     /* TSO packets segmented at egress. */
    uint64_t segments;          /* Segments they were cut into. */
    uint64_t csum_filled;       /* Packets whose checksum we completed. */
    uint64_t coalesced;         /* Super-packets built at ingress. */
    uint64_t merged;            /* Segments merged into them (beyond the
                                 * first of each). */
    uint64_t rx_pooled;         /* Inner packets to the bridge in a buffer
                                 * of pkt-pool's DPDK mempools... */
    uint64_t rx_allocated;      /* ...or allocated on the heap. */
};

/* Per-port counters, shown with the netdev's custom statistics (what
 * "ovs-vsctl get interface P statistics" and "ovs-ofctl dump-ports" show)
 * next to the engine's receive outcomes (netdev-wireguard-stats.c).  Each
 * drop reason has its counter, its log level and the log line's reason. */
#define NETDEV_WG_COUNTERS                                                  \
    C(TX_NO_ROUTE, "tx_drop_no_route", INFO,                               \
      "no peer allows the destination")                                    \
    C(TX_TOO_BIG, "tx_drop_too_big", INFO,                                 \
      "a packet is larger than the MTU")                                   \
    C(TX_QUEUE_FULL, "tx_drop_queue_full", INFO,                           \
      "too many packets wait for peers without a session")                 \
    C(TX_NO_ENDPOINT, "tx_drop_no_endpoint", INFO,                         \
      "the peer has no endpoint")                                          \
    C(TX_NO_SESSION, "tx_drop_no_session", INFO,                           \
      "the peer has no session")                                           \
    C(TX_NO_ROOM, "tx_drop_no_room", WARN,                                 \
      "the message does not fit its buffer")                               \
    C(TX_CRYPTO_ERROR, "tx_drop_crypto_error", WARN,                       \
      "the crypto library failed to encrypt")                              \
    C(TX_GSO_ERROR, "tx_drop_gso_error", WARN,                             \
      "a super-packet could not be segmented")                             \
    C(TX_TUNNEL_TSO, "tx_drop_tunnel_tso", WARN,                           \
      "a tunnel super-packet (Geneve or VXLAN over this port): this Open "   \
      "vSwitch does not segment it for the port, see status:tx_tunnel_tso") \
    C(TX_FRAG_ERROR, "tx_drop_frag_error", WARN,                           \
      "a packet could not be fragmented")                                  \
    C(TX_HANDSHAKE_FAILED, "tx_drop_handshake_failed", INFO,               \
      "the handshake was given up")                                        \
    C(TX_L2, "tx_drop_l2", INFO,                                           \
      "the layer-2 adapter did not forward it (see wg_l2_* coverage)")     \
    C(TX_SOCKET, "tx_drop_socket", INFO,                                    \
      "the socket did not take the message")                               \
    C(TX_CONTROL_NO_SOCKET, "tx_drop_control_no_socket", INFO,              \
      "no socket for the peer's address family (handshake message)")       \
    C(TX_CONTROL_SOCKET, "tx_drop_control_socket", INFO,                    \
      "the socket did not take a handshake message")                       \
    C(RX_L2, "rx_drop_l2", INFO,                                           \
      "the layer-2 adapter did not deliver it (see wg_l2_* coverage)")     \
    C(RX_ROUND_FULL, "rx_drop_round_full", WARN,                           \
      "too many packets in one receive round")                             \
    C(RX_BRIDGE_FULL, "rx_drop_bridge_queue_full", WARN,                   \
      "the queue to the bridge is full")                                   \
    C(RX_HS_QUEUE_FULL, "rx_drop_handshake_queue_full", WARN,              \
      "too many handshake messages wait for the main thread")              \
    C(RX_ECN_NOT_ECT, "rx_drop_ecn_not_ect", INFO,                         \
      "congestion (outer CE) on a packet that is not ECN-capable")         \
    C(RX_QUEUE_REMOVED, "rx_drop_queue_removed", INFO,                     \
      "its receive queue was removed (n_rxq lowered) before the bridge "   \
      "took it")                                                           \
    C(HANDSHAKE_INITIATION_SENT, "handshake_initiation_sent", DBG, "")     \
    C(HANDSHAKE_RESPONSE_SENT, "handshake_response_sent", DBG, "")         \
    C(SESSION_STARTED, "session_started", DBG, "")                         \
    C(REKEY, "rekey", DBG, "")

enum netdev_wg_counter {
#define C(ENUM, NAME, LEVEL, WHY) NETDEV_WG_##ENUM,
    NETDEV_WG_COUNTERS
#undef C
    NETDEV_WG_N_COUNTERS
};

struct netdev_wireguard {
    struct netdev up;
    struct ovs_list list_node;  /* In 'netdev_wg_list'. */

    struct ovs_mutex mutex;
    struct eth_addr mac;
    int mtu;

    /* The flags have a lock of their own, taken with no other held and
     * taking none: OVS's fatal-signal hook (restore_all_flags()) sets them
     * with the fatal-signal mutex held, which the port takes under
     * 'mutex' (a UAPI socket's path registered for unlinking at exit). */
    struct ovs_mutex flags_mutex;
    enum netdev_flags flags OVS_GUARDED;

    struct netdev_stats stats;
    uint64_t counters[NETDEV_WG_N_COUNTERS];
    uint64_t rx_outcomes[WG_DEVICE_N_RX];   /* wg_device_receive()'s. */
    long long int events_next_scan;         /* netdev-wireguard-events.c. */
    bool carrier;                           /* As last reported. */

    /* Configuration as last applied. */
    bool configured;
    struct wg_config cfg;
    char *mtu_error;            /* Why mtu_request was refused, or NULL. */

    /* Protocol engine and sockets.  Socket q of each family is receive
     * queue q's (a SO_REUSEPORT group when there are several, steered by
     * receiver index: netdev-wireguard-sock.c); socket 0 also sends. */
    struct wg_device *dev;
    struct ovs_rwlock sock_rwlock;  /* Writers: who changes the sockets
                                     * (with 'mutex' held too); readers:
                                     * transmit queues sending, without
                                     * 'mutex'. */
    struct udp_batch_sock *sock4[WG_CONFIG_N_RXQ_MAX];
    struct udp_batch_sock *sock6[WG_CONFIG_N_RXQ_MAX];
    int n_socks;                /* Sockets per family, 0 if none. */
    struct netdev_wg_ul *ul;    /* The datapath underlay's companion, in
                                 * place of the sockets, or NULL
                                 * (netdev-wireguard-underlay.h); changed
                                 * like the sockets. */
    int bound_port;             /* Port of the sockets, 0 if none. */
    struct netdev_wg_tx tx;     /* The port's own send batch. */
    size_t slot_size;           /* Of every batch's slots, for the MTU. */
    struct netdev_wg_txq **txqs;    /* Transmit queues, per qid. */
    int n_txq;
    int requested_n_txq;        /* What OVS asked for (set_tx_multiq()). */

    /* For sends and receives without 'mutex' (netdev-wireguard-tx.c, -rx.c):
     * 'mtu', 'slot_size', the kind of slots (their 'front', tx-slots.h),
     * 'tso', 'configured' and whether to coalesce what is received, as
     * last set with 'mutex' held (netdev_wg_sock_publish()). */
    atomic_int unlocked_mtu;
    atomic_size_t unlocked_slot_size;
    atomic_size_t unlocked_slot_front;
    atomic_bool unlocked_tso;
    atomic_bool unlocked_ready;
    atomic_bool unlocked_gro;
    size_t n_queued;            /* Packets in all peers' queues. */

    /* Layer 2 adapter and the receive queues (queue 0 always exists and
     * also carries the frames the port makes itself to the bridge). */
    struct bridge_l2 *l2;
    struct netdev_wg_rxq *rxqs[WG_CONFIG_N_RXQ_MAX];
    int n_rxq;                  /* Queues the datapath polls. */

    /* Control work for the main thread: handshake messages received by PMD
     * threads (type wireguard-pmd; NULL until the first), and the sequence
     * the engine's 'wake' hook changes for deferred initiations. */
    bool defer_handshakes;
    struct netdev_wg_hs_msg *hs_queue;  /* NETDEV_WG_HS_QUEUE_MAX. */
    size_t hs_head, hs_n;
    struct seq *ctl_seq;
    uint64_t ctl_seq_seen;

    /* UAPI socket. */
    struct wg_uapi_server *uapi;
    char *uapi_dir;             /* Directory it was asked for. */
    char *uapi_error;           /* Why it is not served, or NULL. */
    struct smap uapi_removed;   /* Database peers removed through the UAPI:
                                 * name -> options fingerprint. */
    bool uapi_changed;          /* Status to be read again, at... */
    long long int uapi_status_next; /* ...the earliest (uapi.c). */

    /* Offload state (see netdev-wireguard-tx.c and -rx.c). */
    bool tso;                   /* userspace-tso was on at configuration. */
    struct netdev_wg_offload_stats offload;
};

/* All wireguard netdevs, for the class run/wait hooks and appctl. */
extern struct ovs_mutex netdev_wg_list_mutex;
extern struct ovs_list netdev_wg_list OVS_GUARDED_BY(netdev_wg_list_mutex);

/* The files of the class, each calling only the ones listed after it:
 *
 *   netdev-wireguard.c         class, life cycle, configuration
 *   netdev-wireguard-appctl.c  "wireguard/show", "wireguard/crypto",
 *                              "wireguard/reload-keys"
 *   netdev-wireguard-keys.c    private and preshared keys, key files
 *   netdev-wireguard-uapi.c    the port's UAPI socket
 *   netdev-wireguard-events.c  peer up/down/roaming log lines, carrier
 *   netdev-wireguard-tx.c      bridge to peer (the send path)
 *   netdev-wireguard-rx.c      peer to bridge (the receive path)
 *   netdev-wireguard-peers.c   per-peer port state, OVSDB reconciliation
 *   netdev-wireguard-dns.c     host-name endpoints
 *   netdev-wireguard-sock.c    sockets, send batch, control messages
 *   netdev-wireguard-bridge.c  what goes to the bridge, packet rings
 *   netdev-wireguard-stats.c   per-port counters and drop log lines
 *
 * tx and rx never call each other.
 *
 * Threads.  The main thread of ovs-vswitchd runs configuration, the
 * class's run and wait hooks (the engine's timers, handshake messages left
 * by PMD threads, deferred handshake initiations, the UAPI socket, peer
 * events, "wireguard/show"), and polls the receive queues of type
 * "wireguard" ports.  PMD threads poll the receive queues of type
 * "wireguard-pmd" ports.  Any datapath thread may send to any port:
 * send() gets a qid, and each qid has its transmit queue (struct
 * netdev_wg_txq), locked only when OVS says the qid is shared
 * ('concurrent_txq'), as netdev-dpdk does.
 *
 * Locks, in the order they are taken:
 *
 *   - 'netdev_wg_list_mutex': the list of ports;
 *   - a transmit queue's 'lock', an adaptive mutex (shared qids only);
 *   - 'wg->mutex', the port's lock: the protocol engine (struct wg_device,
 *     which leaves serialization to its caller), the layer-2 adapter, the
 *     port's own send batch, the handshake queue and the port's counters.
 *     Every function in these files runs with it held, except the parts of
 *     the send and receive paths that say otherwise;
 *   - 'wg->sock_rwlock': the sockets; who changes them holds 'wg->mutex'
 *     and writes; transmit queues read without 'wg->mutex';
 *   - a receive queue's 'ring_mutex': its packets for the bridge, a leaf
 *     taken with or without 'wg->mutex';
 *   - the datapath underlay's companion (netdev-wireguard-underlay*.c),
 *     when the port has one in place of its sockets: its own lock, once
 *     per batch, for the neighbour cache (the frames are written after
 *     it), then a leaf lock per ring (one per receive queue of the port),
 *     taken after every lock above;
 *   - below the port, udp-batch's per-socket mutex (its counters take no
 *     lock: one writer per receive counter, atomics for sending) and each
 *     keypair's 'replay_mutex' (wg-noise), a leaf taken with or without
 *     'wg->mutex'.
 *
 * Two leaf locks stand apart: 'wg->flags_mutex' (OVS's fatal-signal hook
 * sets the flags) and the UAPI module's list of sockets to close
 * (netdev-wireguard-uapi.c).  No lock of ours is held while OVS's
 * fatal-signal mutex is taken: a UAPI socket is opened and closed with
 * none held (netdev_wg_uapi_update(), netdev_wg_uapi_reap()).
 *
 * What runs outside 'wg->mutex'.  A send through a transmit queue takes no
 * lock of the port for a frame that needs none of what the lock guards
 * (netdev-wireguard-tx.c, "Sends without the port's lock"): the layer-2
 * adapter judges it from a copy of its configuration published under OVS
 * RCU (bridge_l2_from_bridge_unlocked()), the queue remembers which
 * sources it taught the neighbor table in the last second
 * (NETDEV_WG_TX_LEARNED_MS), the route, the peer, its current keypair and
 * its endpoint are read under RCU (wg-allowedips, wg-noise, wg-peer; freed
 * a grace period after removal), the nonce is taken by compare-and-swap
 * (wg_noise_keypair_take_counters()), the keypair is referenced for the
 * seal, the peer's counters and send times are atomics that
 * wg_device_run() takes in under the lock every WG_DEVICE_SYNC_MS (the
 * timers they set), the queue's counters are atomics that readers add up
 * (struct netdev_wg_tx_counts), and the MTU, slot size and kind and TSO
 * setting are atomic copies (netdev_wg_sock_publish()): a queue whose
 * slots are not of the size and kind published takes the lock, which
 * replaces them.  Everything else takes
 * 'wg->mutex' for the rest of the round, in order: the adapter's learning
 * and answers, a peer without a session or due for a rekey (the handshake
 * starts there), fragments, ICMP "too big", every drop.  Either way the
 * lock is never held to cut super-packets into their segments (pkt-gso,
 * the copy and the TCP checksums), to encrypt (wg_device_encrypt_finish())
 * or to sendmmsg() (the sockets under 'sock_rwlock', read), so threads
 * sending to one port do those in parallel.  A keypair is referenced while
 * a message is sealed (struct wg_noise_keypair), so a rekey or a peer's
 * removal on another thread never frees keys in use; intel-ipsec-mb keeps
 * one manager per thread (wg-aead-ipsecmb.c) and OpenSSL one set of
 * cipher contexts per thread (wg-crypto-evp.c).  A receive round
 * (netdev-wireguard-rx.c) takes it nowhere
 * when the round holds only data messages to their peers' current
 * keypairs from the peers' endpoints, with inner packets to destinations
 * the queue resolved in the last second (NETDEV_WG_RX_RESOLVED_MS; one
 * round per destination and second takes it to ask the layer-2 adapter
 * again): the receiver index is found under RCU (wg-peer's index table,
 * a cmap), the keypair is referenced while the message is opened, its
 * replay window has a lock of its own (struct wg_noise_keypair, as the
 * kernel's), held across a run of its messages and let go before the round
 * takes 'wg->mutex' (struct wg_device_rx_run), cryptokey routing reads the
 * trie under RCU, and the peer's counters and receive times are atomics
 * taken in like the senders' (wg_device_decrypt_begin_unlocked(),
 * wg_device_decrypt_end_unlocked()), the queue's counters are atomics
 * that readers add up (struct netdev_wg_rx_counts), and its packets go
 * into its ring under the ring's own lock.
 * Handshake and cookie messages, and the data messages that need more
 * (roaming, key confirmation, a rekey on receive, every drop but a replay
 * or a routing one), take it before they are opened or after, in order.
 * The lock is never held to read the socket, to decrypt
 * (wg_device_decrypt_finish()) or to coalesce: the queues of one port,
 * polled by several PMD threads, decrypt in parallel.  Each round takes its
 * packets for the bridge from pkt-pool, whose DPDK mempools any thread may
 * take from and the datapath gives back to from any thread (multi-producer,
 * multi-consumer), or from the heap.  One peer's messages all come to one
 * queue (steering by receiver index), so one tunnel's receive work still
 * uses one core.
 *
 * Control work stays off the data path: the engine defers every handshake
 * initiation to wg_device_run() on the main thread (wg_device_set_deferred(),
 * the 'wake' hook changes 'ctl_seq'), and a PMD thread hands handshake
 * messages to the main thread through a bounded queue
 * (NETDEV_WG_HS_QUEUE_MAX, counted when full), so X25519 never runs on a
 * PMD thread.  Long control work runs in slices on the main thread, the
 * mutex taken for one slice at a time: a UAPI request (wg-uapi.h,
 * WG_UAPI_SLICE_US) and "wireguard/show" (netdev-wireguard-appctl.c,
 * NETDEV_WG_SLICE_US), so that a dump, a setconf or a listing of 10,000
 * peers never keeps the data path waiting. */

/* netdev-wireguard-events.c: peer events (see the top of that file). */

/* Hooks of the protocol engine: log and count, then hand over to the send
 * path's hooks below. */
void netdev_wg_events_session_ready(void *aux, struct wg_peer *peer);
void netdev_wg_events_handshake_failed(void *aux, struct wg_peer *peer);

/* Finds expired sessions and changed endpoints, at most once per
 * NETDEV_WG_EVENTS_SCAN_MS; when to call it next. */
void netdev_wg_events_run(struct netdev_wireguard *wg);
long long int netdev_wg_events_next_scan(const struct netdev_wireguard *wg);

/* Number of peers with a session now. */
size_t netdev_wg_events_peers_up(const struct netdev_wireguard *wg);

/* Carrier: the port has a socket and a private key. */
bool netdev_wg_events_carrier(const struct netdev_wireguard *wg);

/* netdev-wireguard-tx.c: bridge to peer. */

/* Sends a batch from the bridge through transmit queue 'txq', taking the
 * port's mutex for the parts that need it (the caller holds neither it nor
 * another thread's 'txq'). */
void netdev_wg_tx_send(struct netdev_wireguard *wg, struct netdev_wg_txq *txq,
                       struct dp_packet_batch *batch);

/* Hooks of the protocol engine (struct wg_device_hooks): a peer got a
 * session (its queued packets leave), or its handshake gave up (they are
 * dropped). */
void netdev_wg_tx_session_ready(void *aux, struct wg_peer *peer);
void netdev_wg_tx_handshake_failed(void *aux, struct wg_peer *peer);

/* netdev-wireguard-rx.c: peer to bridge. */

void netdev_wg_rx_init(struct netdev_wireguard *wg);
void netdev_wg_rx_destroy(struct netdev_wireguard *wg);

/* Makes sure receive queues 0 to n - 1 exist (before the sockets spread
 * datagrams over them). */
void netdev_wg_rx_add_queues(struct netdev_wireguard *wg, int n);

/* Sets the number of queues the datapath polls to 'n', removing the
 * others (the datapath has closed them; packets still in their rings to
 * the bridge are counted as dropped). */
void netdev_wg_rx_set_n_rxq(struct netdev_wireguard *wg, int n);

/* Adds what the receive queues counted to 'stats' (rx_packets, rx_bytes)
 * and 'o'. */
void netdev_wg_rx_add_counts(const struct netdev_wireguard *wg,
                             struct netdev_stats *stats,
                             struct netdev_wg_offload_stats *o);

/* Reads the sockets of queue 'qid' unless packets still wait there for the
 * bridge, and fills 'batch' with at most NETDEV_MAX_BURST packets.
 * Returns 0 or EAGAIN.  Takes the port's lock only for what needs it (a
 * handshake, a new session, a roaming peer, a destination the queue has
 * not resolved within NETDEV_WG_RX_RESOLVED_MS): a round of data messages
 * to known destinations runs without it. */
int netdev_wg_rx_recv(struct netdev_wireguard *wg, int qid,
                      struct dp_packet_batch *batch)
    OVS_EXCLUDED(wg->mutex);

/* Wakes the poll loop when queue 'qid' has something to read. */
void netdev_wg_rx_wait(struct netdev_wireguard *wg, int qid);

/* Main thread: handles up to NETDEV_WG_HS_PER_RUN of the handshake
 * messages PMD threads left for it; true if more wait. */
bool netdev_wg_rx_handshakes(struct netdev_wireguard *wg);

/* netdev-wireguard-keys.c: key material (see the rule at the top of
 * that file). */

/* Gives the device the private key of 'cfg', the configuration about to
 * be applied, if it differs from the one in force. */
void netdev_wg_keys_apply(struct netdev_wireguard *wg,
                          const struct wg_config *cfg);

/* Logs the key file errors of 'cfg' that are new. */
void netdev_wg_keys_log_errors(const struct netdev_wireguard *wg,
                               const struct wg_config *cfg);

/* Rereads the port's key files and applies the keys that could be read,
 * describing the outcome in 'out'. */
void netdev_wg_keys_reload(struct netdev_wireguard *wg, struct ds *out);

/* Adds why key files are not in use to 'smap'. */
void netdev_wg_keys_status(const struct netdev_wireguard *wg,
                           struct smap *smap);

/* netdev-wireguard-stats.c: per-port counters. */

/* Adds 'n' to a counter that only one thread writes (a queue's, a send
 * batch's): a plain load and store do, atomic for its readers. */
void netdev_wg_counter_add(atomic_uint64_t *c, uint64_t n);
uint64_t netdev_wg_counter_get(const atomic_uint64_t *c);

/* Counts one 'c' (a drop reason: the caller counts the packet in 'stats'
 * too); a drop reason is also logged, rate-limited per reason. */
void netdev_wg_count(struct netdev_wireguard *wg, enum netdev_wg_counter c);
void netdev_wg_count_n(struct netdev_wireguard *wg, enum netdev_wg_counter c,
                       uint64_t n);

/* Counts outcome 'rx' of wg_device_receive() for a datagram from 'src',
 * logging a drop (rate-limited per reason). */
void netdev_wg_count_rx(struct netdev_wireguard *wg, enum wg_device_rx rx,
                        const struct sockaddr *src);

/* The counters as custom statistics (netdev class get_custom_stats()). */
void netdev_wg_get_custom_stats(const struct netdev_wireguard *wg,
                                struct netdev_custom_stats *stats);

/* netdev-wireguard-peers.c. */

/* Configuration parts (netdev-wireguard-config.c). */

/* Advertises TSO and checksum offload once userspace-tso is on. */
void netdev_wg_apply_offloads(struct netdev_wireguard *wg);

/* Sets the port's own addresses of 'cfg'; on error, says why in '*errp'. */
int netdev_wg_apply_addresses(struct netdev_wireguard *wg,
                              const struct wg_config *cfg, char **errp);

/* Puts back the addresses of the configuration last applied. */
void netdev_wg_restore_addresses(struct netdev_wireguard *wg);

/* The smallest inner MTU allowed with the database peers of 'cfg' and the
 * addresses the layer-2 adapter holds. */
int netdev_wg_min_mtu(const struct netdev_wireguard *wg,
                      const struct wg_config *cfg);

/* Fails a configuration 'cfg' that brings IPv6 to a port whose MTU is too
 * small for it. */
int netdev_wg_config_check_mtu(const struct netdev_wireguard *wg,
                               const struct wg_config *cfg, char **errp);

/* Makes the sessions the port's peers make from now on use the data-path
 * AEAD of 'cfg' ("aead", else the default), logged when it changes. */
void netdev_wg_apply_aead(struct netdev_wireguard *wg,
                          const struct wg_config *cfg);

/* Logs each peer of 'errors' that is newly left out. */
void netdev_wg_log_peer_errors(const struct netdev_wireguard *wg,
                               const struct smap *errors);

/* Per-peer port state. */
struct netdev_wg_peer *netdev_wg_peer_create(const char *name,
                                             const char *fingerprint);
void netdev_wg_peer_destroy(struct netdev_wireguard *wg,
                            struct netdev_wg_peer *np);

/* Brings the device's database-managed peers in line with 'cfg' (peers
 * whose options did not change keep their sessions); reasons for peers left
 * out go into cfg->peer_errors. */
void netdev_wg_apply_peers(struct netdev_wireguard *wg, struct wg_config *cfg);

/* Removes every peer of the device. */
void netdev_wg_peers_clear(struct netdev_wireguard *wg);

/* Removes the peer whose public key is that of private key 'priv', if any,
 * with its port state (a port cannot be its own peer). */
void netdev_wg_peer_remove_self(struct netdev_wireguard *wg,
                                const uint8_t priv[WG_KEY_LEN]);

/* Returns the port state of 'peer', creating it for a peer the UAPI
 * added. */
struct netdev_wg_peer *netdev_wg_peer_of(struct wg_peer *peer);

/* netdev-wireguard-dns.c: host-name endpoints (see the top of that
 * file). */

/* Gives 'np' the host-name endpoint 'host':'port' (NULL: none); the same
 * name and port keep their state. */
void netdev_wg_dns_set(struct netdev_wg_peer *np, const char *host,
                       uint16_t port);
void netdev_wg_dns_destroy(struct netdev_wg_peer *np);

/* Starts or polls a resolution of the name of 'np' ('peer''s port state)
 * when due; called at each scan of the peers. */
void netdev_wg_dns_run(struct netdev_wireguard *wg, struct wg_peer *peer,
                       struct netdev_wg_peer *np, long long int now);

/* The engine gave up a handshake with the peer of 'np': resolve its name
 * again at the next scan. */
void netdev_wg_dns_handshake_failed(struct netdev_wg_peer *np);

/* Adds "peer_error.NAME" for each name that does not resolve to 'smap'. */
void netdev_wg_dns_status(const struct netdev_wireguard *wg,
                          struct smap *smap);

/* netdev-wireguard-sock.c: sockets and the send batch. */

void netdev_wg_sock_init(struct netdev_wireguard *wg);
void netdev_wg_sock_destroy(struct netdev_wireguard *wg);

/* Opens, moves or keeps the sockets per 'cfg' (cfg->n_rxq per family).
 * Returns 0 or an errno value with a message in '*errp'. */
int netdev_wg_sock_apply(struct netdev_wireguard *wg,
                         const struct wg_config *cfg, char **errp);

/* Moves the sockets to UDP port 'port' (0: ephemeral).  Returns 0 or an
 * errno value. */
int netdev_wg_sock_set_listen_port(struct netdev_wireguard *wg, int port);

/* Resizes the message slots for inner MTU 'mtu'. */
void netdev_wg_sock_set_mtu(struct netdev_wireguard *wg, int mtu);

/* Adds what the port's send batches counted (struct netdev_wg_tx_counts)
 * to 'stats' and 'o'; the data messages one batch made. */
void netdev_wg_sock_add_counts(const struct netdev_wireguard *wg,
                               struct netdev_stats *stats,
                               struct netdev_wg_offload_stats *o);
uint64_t netdev_wg_sock_messages(const struct netdev_wg_tx *tx,
                                 uint64_t *unlocked);

/* Copies what sends without the port's lock read of its configuration
 * ('mtu', 'slot_size', the slots' kind, 'tso', 'configured') to where they
 * read it. */
void netdev_wg_sock_publish(struct netdev_wireguard *wg);

/* The sending socket for 'family' (AF_INET or AF_INET6), or NULL. */
struct udp_batch_sock *netdev_wg_sock_for(const struct netdev_wireguard *wg,
                                          int family);

/* Whether the port can send to an endpoint of 'family': a socket, or the
 * datapath underlay's address of that family.  The caller holds 'mutex'
 * or 'sock_rwlock' (read). */
bool netdev_wg_sock_can_send(const struct netdev_wireguard *wg, int family);

/* Puts the datapath underlay's companion 'ul' in place of the port's
 * sockets, which are closed, and returns the UDP port it is to use; or,
 * with 'ul' NULL, opens the sockets again (returns 0). */
uint16_t netdev_wg_sock_set_underlay(struct netdev_wireguard *wg,
                                     struct netdev_wg_ul *ul);

/* Sends the queued messages of the port's own batch and takes their slots
 * back. */
void netdev_wg_sock_flush(struct netdev_wireguard *wg);

/* Transmit queues: 'n' of them (creating or destroying, while nothing
 * sends); the slots of 'txq' made anew for the MTU and transport in force
 * (with 'mutex' held, 'txq' empty); sending what 'txq' has queued without
 * 'mutex', which returns how many datagrams the sockets did not take. */
void netdev_wg_sock_set_n_txq(struct netdev_wireguard *wg, int n);
void netdev_wg_sock_fit_txq(struct netdev_wireguard *wg,
                            struct netdev_wg_txq *txq);

/* Whether 'slots' are of the size and kind the port wants now. */
bool netdev_wg_sock_slots_fit(const struct netdev_wireguard *wg,
                              const struct tx_slots *slots);
size_t netdev_wg_sock_send_txq(struct netdev_wireguard *wg,
                               struct netdev_wg_txq *txq);

/* Engine hook: sends one handshake or cookie message at once. */
void netdev_wg_sock_send_control(void *aux, const struct sockaddr *dst,
                                 socklen_t dst_len, const void *msg,
                                 size_t len);

/* netdev-wireguard-bridge.c: what goes to the bridge. */

/* Offload information of a packet for the bridge: a coalesced
 * super-packet, and of which IP version. */
#define NETDEV_WG_META_TSO 1
#define NETDEV_WG_META_IPV6 2

void netdev_wg_bridge_init(struct netdev_wireguard *wg);
void netdev_wg_bridge_destroy(struct netdev_wireguard *wg);

/* Queues 'pkt' for the bridge in receive queue 'q' (dropping and counting
 * it if the queue is full).  Takes ownership. */
void netdev_wg_bridge_push_q(struct netdev_wireguard *wg,
                             struct netdev_wg_rxq *q, struct dp_packet *pkt);

/* The same for a frame the port makes itself: receive queue 0. */
void netdev_wg_bridge_push(struct netdev_wireguard *wg,
                           struct dp_packet *pkt);

/* Marks 'pkt' with offload 'meta' (NETDEV_WG_META_*); a super-packet is
 * to be cut into 'segsz' payload bytes per segment. */
void netdev_wg_bridge_set_offload(struct dp_packet *pkt, uint64_t meta,
                                  uint16_t segsz);

/* Queues a copy of the Ethernet frame 'frame'. */
void netdev_wg_bridge_frame(struct netdev_wireguard *wg, const void *frame,
                            size_t len);

/* Queues the packets the layer-2 adapter held until their neighbor became
 * known. */
void netdev_wg_bridge_flush_resolved(struct netdev_wireguard *wg);

/* Runs the layer-2 adapter's timers. */
void netdev_wg_bridge_run(struct netdev_wireguard *wg);


/* Rings of packets. */
void netdev_wg_ring_init(struct netdev_wg_ring *ring, size_t cap);
void netdev_wg_ring_destroy(struct netdev_wg_ring *ring);
bool netdev_wg_ring_push(struct netdev_wg_ring *ring, struct dp_packet *pkt);
struct dp_packet *netdev_wg_ring_peek(const struct netdev_wg_ring *ring);
struct dp_packet *netdev_wg_ring_pop(struct netdev_wg_ring *ring);
/* Moves the ring's first packets into the cleared 'batch', at most
 * NETDEV_MAX_BURST and all of the first one's source (pkt-pool.h), so that
 * the datapath frees the batch in one go. */
void netdev_wg_ring_pop_batch(struct netdev_wg_ring *ring,
                              struct dp_packet_batch *batch);

/* netdev-wireguard-uapi.c: the UAPI socket of a port. */

/* Starts, moves or keeps the port's UAPI socket per its configuration
 * ('wg->cfg'); called with no lock of ours held. */
void netdev_wg_uapi_update(struct netdev_wireguard *wg);

/* The same for a port being destroyed (OVS holds 'netdev_mutex'): its
 * socket is closed by the next netdev_wg_uapi_reap(), from the class's run
 * hook or before any port opens a socket, with neither held.  Returns true
 * if it closed any. */
void netdev_wg_uapi_stop_later(struct netdev_wireguard *wg);
bool netdev_wg_uapi_reap(void);
void netdev_wg_uapi_reap_wait(void);
void netdev_wg_uapi_run(struct netdev_wireguard *wg);
void netdev_wg_uapi_wait(struct netdev_wireguard *wg);

/* Adds the socket's path, or why it is not served, to 'smap'. */
void netdev_wg_uapi_status(const struct netdev_wireguard *wg,
                           struct smap *smap);

/* netdev-wireguard-appctl.c: registers "wireguard/show",
 * "wireguard/crypto" and "wireguard/reload-keys"; run and wait serve the
 * "wireguard/show" commands waiting for their turn, a slice per run, from
 * the class's run and wait hooks. */
void netdev_wg_appctl_register(void);
void netdev_wg_appctl_run(void);
void netdev_wg_appctl_wait(void);

#endif /* netdev-wireguard-private.h */
