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

#ifndef WG_DEVICE_PRIVATE_H
#define WG_DEVICE_PRIVATE_H 1

/* Internals shared by the files of the device: wg-device.c (clocks,
 * identity, load, peers: the core, which calls none of the others),
 * wg-device-tx.c (transmit), wg-device-handshake.c (handshake and cookie
 * messages received), wg-device-rx.c (the receive dispatch and data
 * messages) and wg-device-timers.c (timers, on top).  Not for users of
 * the engine. */

#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "wg-cookie.h"
#include "wg-device.h"
#include "wg-noise.h"
#include "wg-peer.h"

struct wg_allowedips;
struct wg_ratelimiter;

struct wg_device {
    struct wg_device_hooks hooks;
    void *aux;
    bool clock_frozen;          /* See wg_device_clock_freeze(). */
    long long int frozen_now_ms;

    struct wg_noise_identity identity;
    struct wg_cookie_checker cookie_checker;

    struct hmap peers_by_key;           /* struct wg_peer by 'key_node'. */
    struct ovs_list peers;              /* struct wg_peer by 'list_node'. */
    struct wg_index_table indices;
    struct wg_endpoint_table endpoints;
    struct heap due_peers;              /* struct wg_peer by 'due_node',
                                         * by next deadline. */
    long long int run_asked_ms;         /* A run asked for by then
                                         * (defer_initiation()), or
                                         * WG_TIMER_OFF. */
    uint64_t n_peer_timer_runs;         /* Peers whose timers a run ran. */
    struct wg_allowedips *allowedips;
    struct wg_ratelimiter *ratelimiter;

    atomic_uint mtu;                    /* Read by unlocked senders. */
    enum wg_crypto_aead_backend aead;   /* Of the peers' next sessions. */
    unsigned int rx_n_classes;          /* wg_device_set_rx_classes(). */
    bool defer_initiations;             /* See wg_device_set_deferred(). */
    bool in_run;                        /* Within wg_device_run(). */
    struct ovs_list initiations_wanted; /* struct wg_peer by 'wanted_node'. */
    unsigned int rx_next_class;         /* Of the next peer added. */
    uint64_t rekey_after_messages;      /* WG_REKEY_AFTER_MESSAGES, or a
                                         * test's lower threshold. */
    struct wg_device_peer_walk ss_walk; /* Peers whose static-static DH a
                                         * key change left to the runs
                                         * (wg-device.c), or not started; */
    long long int ss_next_ms;           /* the next slice is due then. */

    /* Senders and receivers without the lock
     * (wg_device_encrypt_begin_unlocked(), wg_device_decrypt_end_unlocked())
     * leave their peers' counters and timers to wg_device_run(), which
     * takes them in every WG_DEVICE_SYNC_MS while there are any. */
    atomic_bool unlocked_work;          /* Since 'last_sync_ms'. */
    long long int last_sync_ms;

    /* Handshakes started for forgotten sessions in the current second. */
    long long int forgotten_window_start_ms;
    unsigned int forgotten_window_handshakes;

    /* Handshake load (see wg_device_is_under_load()). */
    bool forced_under_load;
    bool load_seen;                     /* 'last_under_load_ms' is valid. */
    long long int last_under_load_ms;
    long long int load_window_start_ms;
    unsigned int load_window_handshakes;
};

/* What one wg_device_run() does at most (wg-device-timers.c): peers whose
 * timers it runs (each may send an initiation, three X25519) and deferred
 * initiations it sends. */
#define WG_DEVICE_TIMERS_PER_RUN 64
#define WG_DEVICE_INITIATIONS_PER_RUN 64

/* When 'peer''s earliest timer is due, as its place among the due peers
 * says, and how to set it there. */
long long int wg_device_peer_due_ms(const struct wg_peer *peer);
void wg_device_peer_set_due(struct wg_peer *peer, long long int when);

/* Received handshake and cookie messages (wg-device-handshake.c), for
 * the receive dispatch of wg-device-rx.c: each returns the message's
 * outcome, with the peer in 'out' when there is one. */
typedef enum wg_device_rx wg_device_rx_handshake_func(
    struct wg_device *dev, const struct sockaddr *src, socklen_t src_len,
    const uint8_t *buf, size_t len, long long int now,
    struct wg_device_rx_result *out);
wg_device_rx_handshake_func wg_device_rx_initiation, wg_device_rx_response;
enum wg_device_rx wg_device_rx_cookie_reply(struct wg_device *dev,
                                            const uint8_t *buf,
                                            long long int now,
                                            struct wg_device_rx_result *out);

/* Bookkeeping common to every authenticated packet from 'peer' from 'src'
 * at 'now' (its endpoint, its timers). */
void wg_device_authenticated_from(struct wg_peer *peer,
                                  const struct sockaddr *src,
                                  socklen_t src_len, long long int now);

/* Counts one handshake message (initiation or response) received at 'now'
 * towards the load window. */
void wg_device_count_handshake(struct wg_device *dev, long long int now);

/* Takes in what senders without the lock did for 'peer' since the last
 * time: its counters, and the timers their messages set. */
void wg_device_peer_sync(struct wg_peer *peer);

/* Records, on any thread, what a run of messages received from
 * 'run->peer' without the lock did, for wg_device_peer_sync(). */
void wg_device_note_received_unlocked(struct wg_device *dev,
                                      const struct wg_device_rx_run *run);

/* Wall clock of 'dev'. */
void wg_device_wall_clock(const struct wg_device *dev, struct timespec *ts);

/* Sends 'msg' to the endpoint of 'peer' through the 'send' hook, counting
 * it in the peer's tx bytes.  Does nothing without endpoint. */
void wg_device_send_to_peer(struct wg_device *dev, struct wg_peer *peer,
                            const void *msg, size_t len);

/* Sends a handshake initiation to 'peer' if allowed (rate limit, key,
 * endpoint).  'is_retry' keeps the retransmission count.  Returns 0 or an
 * errno value as wg_device_peer_initiate(). */
int wg_device_send_initiation(struct wg_device *dev, struct wg_peer *peer,
                              bool is_retry);

/* Static-static DH after a key change, computed in slices by the runs
 * (wg-device.c).  wg_device_peer_static_ready() makes sure 'peer' has its
 * secret for the device's identity, computing it now if no slice has yet
 * (false: the device has no key).  wg_device_static_run() computes it for
 * at most 'max' more peers of the walk, if a slice is due at 'now', and
 * returns whether some are left.  wg_device_static_due() is when the next
 * slice is due, LLONG_MAX if none is left. */
#define WG_DEVICE_SS_PER_RUN 32
#define WG_DEVICE_SS_PACE_MS 2      /* Between two slices. */
bool wg_device_peer_static_ready(struct wg_device *dev, struct wg_peer *peer);
bool wg_device_static_run(struct wg_device *dev, size_t max,
                          long long int now);
long long int wg_device_static_due(const struct wg_device *dev);

/* Calls the 'session_ready' hook for 'peer'. */
void wg_device_session_ready(struct wg_device *dev, struct wg_peer *peer);

#endif /* wg-device-private.h */
