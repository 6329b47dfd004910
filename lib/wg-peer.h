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

#ifndef WG_PEER_H
#define WG_PEER_H 1

/* Peer objects and the receiver-index table.
 *
 * A peer groups all per-peer protocol state (handshake, keypairs, cookie,
 * timers, endpoint, statistics), so that a lock per peer can be added later
 * without reshuffling.  The index table maps the random 32-bit receiver
 * indices we hand out (one per pending handshake and per keypair) to their
 * peer.  This header is internal to the engine (wg-device.c and tests);
 * users of the engine see struct wg_peer as opaque through wg-device.h. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include "cmap.h"
#include "heap.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "wg-cookie.h"
#include "wg-noise.h"
#include "wg-timers.h"

/* Receiver indices in use.  Index 0 is never handed out.  Changed under
 * the device's lock; wg_peer_index_lookup() also runs without it, under
 * RCU. */
struct wg_index_table {
    struct cmap map;            /* Contains struct wg_index_entry. */
};

/* Peers by endpoint (address and port), so that a message no session
 * explains can still be tied to the peer it came from. */
struct wg_endpoint_table {
    struct hmap map;            /* Contains struct wg_peer by endpoint. */
};

/* An endpoint as senders without the device's lock read it. */
struct wg_peer_addr {
    struct sockaddr_storage ss;
    socklen_t len;
};

struct wg_peer {
    struct hmap_node key_node;          /* In the device's map by key. */
    struct ovs_list list_node;          /* In the device's list. */
    struct wg_index_table *indices;     /* The device's index table. */
    uint8_t public_key[WG_KEY_LEN];
    bool has_psk;

    /* Protocol state. */
    struct wg_noise_handshake handshake;
    struct wg_noise_keypairs keypairs;
    struct wg_cookie_maker cookie;
    struct wg_timers timers;

    /* In the device's heap of peers by when their timers are due (never
     * after their next deadline: see wg_device_run()); in a run's list of
     * due peers while their timers fire. */
    struct heap_node due_node;
    struct heap *due_heap;
    struct ovs_list due_run_node;

    /* Where to send: the source of the latest authenticated packet, and a
     * copy of it for senders without the device's lock (RCU, NULL when
     * there is none: wg_peer_endpoint_copy()). */
    struct sockaddr_storage endpoint;
    socklen_t endpoint_len;             /* 0: no endpoint. */
    OVSRCU_TYPE(struct wg_peer_addr *) endpoint_rcu;
    struct hmap_node endpoint_node;     /* In 'endpoints' if it has one. */
    struct wg_endpoint_table *endpoints;

    /* Statistics. */
    struct timespec last_handshake;     /* Wall clock. */
    uint64_t rx_bytes;
    uint64_t tx_bytes;
    uint64_t rx_packets;
    uint64_t tx_packets;

    /* What senders and receivers without the device's lock did since the
     * device last took it in (wg_device_peer_sync(), with the lock): their
     * messages and bytes, and when (0: not since), for the timers. */
    atomic_uint64_t unlocked_tx_bytes;
    atomic_uint64_t unlocked_tx_packets;
    atomic_llong unlocked_first_data_ms;    /* First data message sent. */
    atomic_llong unlocked_last_ms;          /* Latest message sent. */
    atomic_uint64_t unlocked_rx_bytes;
    atomic_uint64_t unlocked_rx_packets;
    atomic_llong unlocked_rx_first_data_ms; /* First data received. */
    atomic_llong unlocked_rx_last_ms;       /* Latest message received. */

    /* A handshake initiation deferred to wg_device_run(), if in the
     * device's 'initiations_wanted'. */
    bool initiation_wanted;
    struct ovs_list wanted_node;

    /* Receive steering: the lowest byte of each index of the peer is
     * 'rx_class' modulo 'rx_n_classes' (1: any index). */
    uint16_t rx_class;
    uint16_t rx_n_classes;

    void *user_data;
};

/* Index table. */

/* Initializes an empty table. */
void wg_peer_index_table_init(struct wg_index_table *t);

/* Frees all entries of 't'. */
void wg_peer_index_table_destroy(struct wg_index_table *t);

/* Allocates a fresh random nonzero index for 'peer', of the peer's receive
 * steering class. */
uint32_t wg_peer_index_alloc(struct wg_index_table *t, struct wg_peer *peer);

/* Releases 'index' (0 is ignored). */
void wg_peer_index_free(struct wg_index_table *t, uint32_t index);

/* Returns the peer holding 'index', or NULL. */
struct wg_peer *wg_peer_index_lookup(const struct wg_index_table *t,
                                     uint32_t index);

/* Number of indices in use. */
size_t wg_peer_index_count(const struct wg_index_table *t);

/* Endpoint table. */

void wg_peer_endpoint_table_init(struct wg_endpoint_table *t);

/* Destroys 't', which must be empty (its peers destroyed first). */
void wg_peer_endpoint_table_destroy(struct wg_endpoint_table *t);

/* Returns a peer whose endpoint is 'sa', or NULL. */
struct wg_peer *wg_peer_endpoint_lookup(const struct wg_endpoint_table *t,
                                        const struct sockaddr *sa,
                                        socklen_t len);

/* Peers. */

/* Creates a peer with public key 'pub' for identity 'id', drawing indices
 * from 't' and listed in 'endpoints' by its endpoint once it has one.
 * Returns NULL if 'pub' is all zeros. */
struct wg_peer *wg_peer_create(const uint8_t pub[WG_KEY_LEN],
                               const struct wg_noise_identity *id,
                               struct wg_index_table *t,
                               struct wg_endpoint_table *endpoints);

/* Wipes all secrets of 'peer' and releases its indices at once; frees it a
 * grace period later (OVS RCU), as a thread that found it under RCU (an
 * allowed-IPs lookup) may still read it until then. */
void wg_peer_destroy(struct wg_peer *peer);

/* Releases the handshake's index and wipes its ephemeral state. */
void wg_peer_clear_handshake(struct wg_peer *peer);

/* Clears the handshake and destroys every keypair. */
void wg_peer_clear_sessions(struct wg_peer *peer);

/* Releases the handshake's index, if any, and allocates a new one for the
 * next handshake message. */
uint32_t wg_peer_new_handshake_index(struct wg_peer *peer);

/* Sets or (with NULL) clears the endpoint.  Returns false for an address
 * family other than AF_INET/AF_INET6 or a short 'len'. */
bool wg_peer_set_endpoint(struct wg_peer *peer, const struct sockaddr *sa,
                          socklen_t len);

/* Copies the endpoint of 'peer' into '*ss' and '*len' and returns true, or
 * returns false if it has none.  Safe on any thread under RCU. */
bool wg_peer_endpoint_copy(const struct wg_peer *peer,
                           struct sockaddr_storage *ss, socklen_t *len);

/* Whether 'sa' is the endpoint of 'peer' (the same address and port), on
 * any thread under RCU. */
bool wg_peer_endpoint_is(const struct wg_peer *peer,
                         const struct sockaddr *sa, socklen_t len);

/* Roaming: makes 'sa' the endpoint if it differs.  Returns true if it
 * changed. */
bool wg_peer_update_endpoint(struct wg_peer *peer, const struct sockaddr *sa,
                             socklen_t len);

/* Formats a short printable name of 'peer' (start of its base64 key) in
 * 'buf' and returns 'buf'. */
#define WG_PEER_NAME_LEN 12
const char *wg_peer_name(const struct wg_peer *peer,
                         char buf[WG_PEER_NAME_LEN]);

#endif /* wg-peer.h */
