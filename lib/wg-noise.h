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

#ifndef WG_NOISE_H
#define WG_NOISE_H 1

/* Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s as WireGuard uses it (whitepaper
 * section 5.4): creating and consuming handshake initiations and responses,
 * deriving transport keypairs, and the per-peer set of keypairs (current,
 * previous, next) with the responder's key confirmation.
 *
 * This layer owns no receiver indices: the caller allocates them and passes
 * them in; a keypair takes over its handshake's index and gives it back
 * through the keypairs' 'release_index' callback when destroyed.  MACs are
 * added and checked by wg-cookie. */

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "wg-crypto.h"
#include "wg-messages.h"
#include "wg-replay.h"

/* A device's static identity. */
struct wg_noise_identity {
    bool has_key;
    uint8_t static_private[WG_KEY_LEN];
    uint8_t static_public[WG_KEY_LEN];
};

enum wg_noise_state {
    WG_NOISE_ZEROED,
    WG_NOISE_CREATED_INITIATION,
    WG_NOISE_CONSUMED_INITIATION,
    WG_NOISE_CREATED_RESPONSE,
    WG_NOISE_CONSUMED_RESPONSE,
};

/* Per-peer handshake state. */
struct wg_noise_handshake {
    enum wg_noise_state state;
    uint32_t local_index;               /* 0: none held. */
    uint32_t remote_index;
    uint8_t remote_static[WG_KEY_LEN];
    uint8_t remote_ephemeral[WG_KEY_LEN];
    uint8_t precomputed_static_static[WG_KEY_LEN];
    bool static_static_valid;           /* DH(s, S) was not zero. */
    uint8_t preshared_key[WG_KEY_LEN];
    uint8_t ephemeral_private[WG_KEY_LEN];
    uint8_t hash[WG_HASH_LEN];
    uint8_t chaining_key[WG_HASH_LEN];
    uint8_t latest_timestamp[WG_TAI64N_LEN];
    long long int last_initiation_consumption_ms;
    bool consumed_any_initiation;
};

/* One transport session.  Its peer's struct wg_noise_keypairs holds one
 * reference; a sender sealing or a receiver opening outside the device's
 * lock holds another (wg_noise_keypair_ref(), or wg_noise_keypair_try_ref()
 * for a keypair found under RCU), so that the keys are wiped and freed a
 * grace period after the last one is dropped.  The keys, indices, birth and
 * role never change once the keypair is made.  Senders on any thread take
 * nonces with wg_noise_keypair_take_counters(); receivers on any thread
 * consult the replay window, which has its own lock as the kernel's has
 * (wg_noise_keypair_replay_accept()). */
struct wg_noise_keypair {
    struct ovs_refcount ref;
    struct wg_aead_key *send_key;
    struct wg_aead_key *recv_key;
    atomic_uint64_t send_counter;       /* Next nonce to use. */
    struct ovs_mutex replay_mutex;
    struct wg_replay replay OVS_GUARDED;  /* Under replay_mutex. */
    long long int birth_ms;
    uint32_t local_index;
    uint32_t remote_index;
    bool i_am_initiator;
    atomic_bool send_valid;             /* Becomes false, once. */
    atomic_bool recv_valid;             /* Becomes false, once. */
    bool stale;                         /* Made before our key changed
                                         * (under the device's lock). */
};

/* A peer's keypairs.  'next' is a responder's keypair awaiting
 * confirmation (the initiator's first data message).  'current' is what a
 * sender uses, also read without the device's lock, under RCU
 * (wg_noise_keypairs_current()); the others only under the lock. */
struct wg_noise_keypairs {
    OVSRCU_TYPE(struct wg_noise_keypair *) current;
    struct wg_noise_keypair *previous;
    struct wg_noise_keypair *next;
    void (*release_index)(void *aux, uint32_t index);
    void *release_aux;
    enum wg_crypto_aead_backend aead;   /* Of the sessions to come (the
                                         * owner sets it). */
    atomic_bool has_stale;              /* One of them is 'stale'. */
};

/* Outcome of consuming a handshake message. */
enum wg_noise_result {
    WG_NOISE_OK,
    WG_NOISE_ERR_AUTH,          /* AEAD or DH failed. */
    WG_NOISE_ERR_UNKNOWN_PEER,  /* Initiation's static key is no peer. */
    WG_NOISE_ERR_REPLAY,        /* Timestamp not newer than the last one. */
    WG_NOISE_ERR_FLOOD,         /* Initiations too close together. */
    WG_NOISE_ERR_STATE,         /* Message not expected in this state. */
};

/* Keypair references (thread-safe).  try_ref() takes one on a keypair read
 * under RCU, unless its last reference is already gone (false). */
void wg_noise_keypair_ref(struct wg_noise_keypair *kp);
bool wg_noise_keypair_try_ref(struct wg_noise_keypair *kp);
void wg_noise_keypair_unref(struct wg_noise_keypair *kp);

/* The keypair a sender uses now, or NULL: safe on any thread under RCU
 * (valid until the calling thread quiesces) and under the device's lock. */
struct wg_noise_keypair *wg_noise_keypairs_current(
    const struct wg_noise_keypairs *kps);

/* Takes the next 'n' consecutive nonces of 'kp', the first in '*first',
 * on any thread: each one goes to one caller.  Returns false, taking none,
 * if fewer than 'n' are left before REJECT_AFTER_MESSAGES. */
bool wg_noise_keypair_take_counters(struct wg_noise_keypair *kp, size_t n,
                                    uint64_t *first);

/* Checks received 'counter' (authenticated) against 'kp''s replay window
 * and marks it seen, on any thread.  Returns false for a replay, a counter
 * too old for the window, or one at REJECT_AFTER_MESSAGES or beyond. */
bool wg_noise_keypair_replay_accept(struct wg_noise_keypair *kp,
                                    uint64_t counter);

/* The counter after the highest that 'kp' accepted, on any thread. */
uint64_t wg_noise_keypair_replay_greatest(struct wg_noise_keypair *kp);

/* 'kps''s current keypair if its receiver index is 'index', else NULL: safe
 * on any thread under RCU, like wg_noise_keypairs_current(). */
struct wg_noise_keypair *wg_noise_keypairs_current_for(
    const struct wg_noise_keypairs *kps, uint32_t index);

/* The next nonce 'kp' would give (a snapshot when senders run). */
uint64_t wg_noise_keypair_send_counter(const struct wg_noise_keypair *kp);

/* Identity. */

/* Sets 'id' from 'priv' (NULL clears it).  Returns false, clearing 'id',
 * if no valid public key results. */
bool wg_noise_identity_set(struct wg_noise_identity *id,
                           const uint8_t priv[WG_KEY_LEN]);

/* Wipes 'id'. */
void wg_noise_identity_clear(struct wg_noise_identity *id);

/* Handshake. */

/* Initializes 'hs' for a peer with public key 'remote_static' and computes
 * the static-static DH under 'id'. */
void wg_noise_handshake_init(struct wg_noise_handshake *hs,
                             const struct wg_noise_identity *id,
                             const uint8_t remote_static[WG_KEY_LEN]);

/* Recomputes the static-static DH after 'id' changed.  Returns whether it
 * is usable (not zero). */
bool wg_noise_handshake_precompute(struct wg_noise_handshake *hs,
                                   const struct wg_noise_identity *id);

/* Sets (or with NULL clears) the preshared key. */
void wg_noise_handshake_set_psk(struct wg_noise_handshake *hs,
                                const uint8_t psk[WG_KEY_LEN]);

/* Wipes the ephemeral state (ephemeral key, hash, chaining key, indices)
 * and returns to WG_NOISE_ZEROED.  Keys, the replay timestamp and the flood
 * clock stay.  The caller must have released 'local_index' first. */
void wg_noise_handshake_clear(struct wg_noise_handshake *hs);

/* Wipes everything in 'hs'. */
void wg_noise_handshake_destroy(struct wg_noise_handshake *hs);

/* Writes a TAI64N timestamp for 'wall', its nanoseconds rounded down to a
 * multiple of WG_TAI64N_NSEC_GRANULARITY. */
void wg_noise_tai64n(uint8_t out[WG_TAI64N_LEN], const struct timespec *wall);

/* Initiator: fills 'msg' except its MACs, using 'local_index' as sender.
 * Returns false (and leaves 'hs' zeroed) on a DH failure. */
bool wg_noise_create_initiation(struct wg_msg_initiation *msg,
                                struct wg_noise_handshake *hs,
                                const struct wg_noise_identity *id,
                                uint32_t local_index,
                                const struct timespec *wall);

/* Finds the handshake state of the peer whose static public key is
 * 'remote_static', or returns NULL. */
typedef struct wg_noise_handshake *wg_noise_lookup_func(
    void *aux, const uint8_t remote_static[WG_KEY_LEN]);

/* Responder: authenticates 'msg' (MACs already checked), finds the peer
 * through 'lookup' and, on success, stores the new state in its handshake,
 * returned in '*hsp'.  Nothing changes on failure. */
enum wg_noise_result wg_noise_consume_initiation(
    const struct wg_msg_initiation *msg, const struct wg_noise_identity *id,
    wg_noise_lookup_func *lookup, void *aux, long long int now_ms,
    struct wg_noise_handshake **hsp);

/* Responder: fills 'msg' except its MACs.  'hs' must be in state
 * WG_NOISE_CONSUMED_INITIATION. */
bool wg_noise_create_response(struct wg_msg_response *msg,
                              struct wg_noise_handshake *hs,
                              const struct wg_noise_identity *id,
                              uint32_t local_index);

/* Initiator: authenticates 'msg' against 'hs' (found by the receiver
 * index).  Nothing changes on failure. */
enum wg_noise_result wg_noise_consume_response(
    const struct wg_msg_response *msg, struct wg_noise_handshake *hs,
    const struct wg_noise_identity *id);

/* Keypairs. */

/* Derives the transport keypair from a completed handshake (state
 * CREATED_RESPONSE or CONSUMED_RESPONSE), moves the handshake's local index
 * to it, wipes the handshake and installs the keypair in 'kps' (current
 * for the initiator, next for the responder).  Returns the new keypair or
 * NULL if 'hs' was in no such state. */
struct wg_noise_keypair *wg_noise_begin_session(
    struct wg_noise_handshake *hs, struct wg_noise_keypairs *kps,
    long long int now_ms);

/* Key confirmation: if 'kp' is the pending 'next' keypair, makes it
 * current (the current one becomes previous) and returns true. */
bool wg_noise_keypairs_confirm(struct wg_noise_keypairs *kps,
                               struct wg_noise_keypair *kp);

/* Returns the keypair of 'kps' whose local index is 'index', or NULL. */
struct wg_noise_keypair *wg_noise_keypairs_find(
    const struct wg_noise_keypairs *kps, uint32_t index);

/* Destroys all keypairs of 'kps', wiping them and releasing indices. */
void wg_noise_keypairs_clear(struct wg_noise_keypairs *kps);

/* After our own key changed: 'kps''s keypairs send no more (the next
 * message needs a handshake with the new key) but still receive, as the
 * peer may go on sending on them until it learns the new key.  They are
 * 'stale' until wg_noise_keypairs_drop_stale() forgets them. */
void wg_noise_keypairs_identity_changed(struct wg_noise_keypairs *kps);

/* Whether 'kps' holds stale keypairs (any thread). */
bool wg_noise_keypairs_has_stale(const struct wg_noise_keypairs *kps);

/* Called when 'kp', one of 'kps', authenticated a message: if 'kp' is of
 * our key of the moment, the peer has moved to it, and the stale keypairs
 * are forgotten (none of their messages is accepted afterwards). */
void wg_noise_keypairs_drop_stale(struct wg_noise_keypairs *kps,
                                  const struct wg_noise_keypair *kp);

/* True if 'kp' may encrypt at 'now_ms' (valid, younger than
 * REJECT_AFTER_TIME, counter below REJECT_AFTER_MESSAGES). */
bool wg_noise_keypair_can_send(const struct wg_noise_keypair *kp,
                               long long int now_ms);

/* Same for decryption; also marks 'kp' invalid for receiving once it is
 * not. */
bool wg_noise_keypair_can_receive(struct wg_noise_keypair *kp,
                                  long long int now_ms);

#endif /* wg-noise.h */
