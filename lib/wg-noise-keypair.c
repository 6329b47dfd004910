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
#include "wg-noise.h"

#include <endian.h>
#include <string.h>
#include "util.h"

/* Keypairs (whitepaper 5.4.5 and 6): the session a finished handshake
 * derives (wg_noise_begin_session()), its place among a peer's previous,
 * current and next keypairs, its references, nonces and replay window.
 * Built on the handshake of wg-noise.c, which never calls it. */

void
wg_noise_keypair_ref(struct wg_noise_keypair *kp)
{
    ovs_refcount_ref(&kp->ref);
}

bool
wg_noise_keypair_try_ref(struct wg_noise_keypair *kp)
{
    return ovs_refcount_try_ref_rcu(&kp->ref);
}

/* Wipes and frees 'kp', a grace period after its last reference went:
 * a thread that read it under RCU may still be looking at it until then. */
static void
keypair_free(struct wg_noise_keypair *kp)
{
    wg_aead_key_destroy(kp->send_key);
    wg_aead_key_destroy(kp->recv_key);
    ovs_mutex_destroy(&kp->replay_mutex);
    wg_crypto_wipe(kp, sizeof *kp);
    free(kp);
}

void
wg_noise_keypair_unref(struct wg_noise_keypair *kp)
{
    if (kp && ovs_refcount_unref(&kp->ref) == 1) {
        ovsrcu_postpone(keypair_free, kp);
    }
}

struct wg_noise_keypair *
wg_noise_keypairs_current(const struct wg_noise_keypairs *kps)
{
    return ovsrcu_get(struct wg_noise_keypair *, &kps->current);
}

bool
wg_noise_keypair_take_counters(struct wg_noise_keypair *kp, size_t n,
                               uint64_t *first)
{
    /* Compare-and-swap, not an add: senders that keep trying past the
     * limit must never wrap the counter around to nonces already used. */
    atomic_read_relaxed(&kp->send_counter, first);
    do {
        if (*first >= WG_REJECT_AFTER_MESSAGES
            || WG_REJECT_AFTER_MESSAGES - *first < n) {
            return false;
        }
    } while (!atomic_compare_exchange_weak_relaxed(&kp->send_counter,
                                                   first, *first + n));
    return true;
}

uint64_t
wg_noise_keypair_send_counter(const struct wg_noise_keypair *kp)
{
    uint64_t counter;

    atomic_read_relaxed(&CONST_CAST(struct wg_noise_keypair *,
                                    kp)->send_counter, &counter);
    return counter;
}

/* Makes 'kp' the keypair that senders use from now on. */
static void
set_current(struct wg_noise_keypairs *kps, struct wg_noise_keypair *kp)
{
    ovsrcu_set(&kps->current, kp);
}

/* Takes 'kp' out of 'kps' (its index is free at once) and drops its
 * reference.  'kp' itself is left as it is: receivers without the device's
 * lock may still read it. */
static void
keypair_destroy(struct wg_noise_keypairs *kps, struct wg_noise_keypair *kp)
{
    if (kp) {
        if (kp->local_index && kps->release_index) {
            kps->release_index(kps->release_aux, kp->local_index);
        }
        wg_noise_keypair_unref(kp);
    }
}

/* (Tsend, Trecv) from the final chaining key, as keys of backend 'aead';
 * the initiator sends with the first key, the responder with the
 * second. */
static struct wg_noise_keypair *
derive_keypair(const struct wg_noise_handshake *hs, bool initiator,
               enum wg_crypto_aead_backend aead, long long int now_ms)
{
    uint8_t t1[WG_KEY_LEN], t2[WG_KEY_LEN];
    struct wg_noise_keypair *kp;

    if (!wg_crypto_kdf(t1, t2, NULL, hs->chaining_key, "", 0)) {
        return NULL;            /* Never keys from a wiped (zero) output. */
    }
    kp = xzalloc(sizeof *kp);
    ovs_refcount_init(&kp->ref);
    atomic_init(&kp->send_counter, 0);
    kp->send_key = wg_aead_key_create_with(aead, initiator ? t1 : t2);
    kp->recv_key = wg_aead_key_create_with(aead, initiator ? t2 : t1);
    wg_crypto_wipe(t1, sizeof t1);
    wg_crypto_wipe(t2, sizeof t2);
    if (!kp->send_key || !kp->recv_key) {
        wg_aead_key_destroy(kp->send_key);
        wg_aead_key_destroy(kp->recv_key);
        free(kp);
        return NULL;
    }
    ovs_mutex_init(&kp->replay_mutex);
    wg_replay_init(&kp->replay);
    kp->birth_ms = now_ms;
    kp->i_am_initiator = initiator;
    atomic_init(&kp->send_valid, true);
    atomic_init(&kp->recv_valid, true);
    return kp;
}

/* The initiator may use its new keypair at once: current moves to
 * previous, unless an unconfirmed next exists, which takes that place. */
static void
install_as_initiator(struct wg_noise_keypairs *kps,
                     struct wg_noise_keypair *kp)
{
    struct wg_noise_keypair *old_previous = kps->previous;
    struct wg_noise_keypair *old_current = wg_noise_keypairs_current(kps);

    set_current(kps, kp);
    if (kps->next) {
        kps->previous = kps->next;
        kps->next = NULL;
        keypair_destroy(kps, old_current);
    } else {
        kps->previous = old_current;
    }
    keypair_destroy(kps, old_previous);
}

/* The responder must wait for confirmation: the new keypair becomes next,
 * replacing any earlier next, and the previous one goes away. */
static void
install_as_responder(struct wg_noise_keypairs *kps,
                     struct wg_noise_keypair *kp)
{
    keypair_destroy(kps, kps->next);
    kps->next = kp;
    keypair_destroy(kps, kps->previous);
    kps->previous = NULL;
}

struct wg_noise_keypair *
wg_noise_begin_session(struct wg_noise_handshake *hs,
                       struct wg_noise_keypairs *kps, long long int now_ms)
{
    struct wg_noise_keypair *kp;
    bool initiator;

    if (hs->state != WG_NOISE_CREATED_RESPONSE
        && hs->state != WG_NOISE_CONSUMED_RESPONSE) {
        return NULL;
    }
    initiator = hs->state == WG_NOISE_CONSUMED_RESPONSE;
    kp = derive_keypair(hs, initiator, kps->aead, now_ms);
    if (!kp) {
        return NULL;
    }
    kp->local_index = hs->local_index;
    kp->remote_index = hs->remote_index;
    hs->local_index = 0;
    wg_noise_handshake_clear(hs);
    if (initiator) {
        install_as_initiator(kps, kp);
    } else {
        install_as_responder(kps, kp);
    }
    return kp;
}

bool
wg_noise_keypairs_confirm(struct wg_noise_keypairs *kps,
                          struct wg_noise_keypair *kp)
{
    if (!kp || kp != kps->next) {
        return false;
    }
    keypair_destroy(kps, kps->previous);
    kps->previous = wg_noise_keypairs_current(kps);
    set_current(kps, kp);
    kps->next = NULL;
    return true;
}

/* Whether 'kp' (possibly NULL) is the keypair of receiver index 'index'
 * (never 0). */
static bool
keypair_has_index(const struct wg_noise_keypair *kp, uint32_t index)
{
    return kp && index && kp->local_index == index;
}

struct wg_noise_keypair *
wg_noise_keypairs_find(const struct wg_noise_keypairs *kps, uint32_t index)
{
    struct wg_noise_keypair *candidates[3] = {
        wg_noise_keypairs_current(kps), kps->previous, kps->next
    };

    for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
        if (keypair_has_index(candidates[i], index)) {
            return candidates[i];
        }
    }
    return NULL;
}

void
wg_noise_keypairs_clear(struct wg_noise_keypairs *kps)
{
    struct wg_noise_keypair *current = wg_noise_keypairs_current(kps);

    set_current(kps, NULL);
    keypair_destroy(kps, current);
    keypair_destroy(kps, kps->previous);
    keypair_destroy(kps, kps->next);
    kps->previous = kps->next = NULL;
    atomic_store_relaxed(&kps->has_stale, false);
}

/* Marks 'kp' (possibly NULL) stale, sending no more; true if it exists. */
static bool
keypair_make_stale(struct wg_noise_keypair *kp)
{
    if (kp) {
        kp->stale = true;
        atomic_store_relaxed(&kp->send_valid, false);
    }
    return kp != NULL;
}

void
wg_noise_keypairs_identity_changed(struct wg_noise_keypairs *kps)
{
    bool any = keypair_make_stale(wg_noise_keypairs_current(kps));

    any = keypair_make_stale(kps->previous) || any;
    any = keypair_make_stale(kps->next) || any;
    atomic_store_relaxed(&kps->has_stale, any);
}

bool
wg_noise_keypairs_has_stale(const struct wg_noise_keypairs *kps)
{
    bool has_stale;

    atomic_read_relaxed(&CONST_CAST(struct wg_noise_keypairs *,
                                    kps)->has_stale, &has_stale);
    return has_stale;
}

/* Destroys '*kpp' if it is stale. */
static void
drop_if_stale(struct wg_noise_keypairs *kps, struct wg_noise_keypair **kpp)
{
    if (*kpp && (*kpp)->stale) {
        keypair_destroy(kps, *kpp);
        *kpp = NULL;
    }
}

void
wg_noise_keypairs_drop_stale(struct wg_noise_keypairs *kps,
                             const struct wg_noise_keypair *kp)
{
    struct wg_noise_keypair *current = wg_noise_keypairs_current(kps);

    if (kp->stale || !wg_noise_keypairs_has_stale(kps)) {
        return;
    }
    drop_if_stale(kps, &kps->previous);
    drop_if_stale(kps, &kps->next);
    if (current && current->stale) {
        set_current(kps, NULL);
        keypair_destroy(kps, current);
    }
    atomic_store_relaxed(&kps->has_stale, false);
}

bool
wg_noise_keypair_can_send(const struct wg_noise_keypair *kp,
                          long long int now_ms)
{
    bool valid = false;

    if (kp) {
        atomic_read_relaxed(&CONST_CAST(struct wg_noise_keypair *,
                                        kp)->send_valid, &valid);
    }
    return (valid
            && now_ms - kp->birth_ms < WG_REJECT_AFTER_TIME_MS
            && (wg_noise_keypair_send_counter(kp)
                < WG_REJECT_AFTER_MESSAGES));
}

uint64_t
wg_noise_keypair_replay_greatest(struct wg_noise_keypair *kp)
{
    uint64_t greatest;

    ovs_mutex_lock(&kp->replay_mutex);
    greatest = kp->replay.greatest;
    ovs_mutex_unlock(&kp->replay_mutex);
    return greatest;
}

bool
wg_noise_keypair_can_receive(struct wg_noise_keypair *kp,
                             long long int now_ms)
{
    bool valid;

    atomic_read_relaxed(&kp->recv_valid, &valid);
    if (valid && now_ms - kp->birth_ms >= WG_REJECT_AFTER_TIME_MS) {
        atomic_store_relaxed(&kp->recv_valid, false);
        valid = false;
    }
    return valid;
}

/* wg_noise_keypair_replay_accept() under the window's lock (a leaf: no
 * other lock is taken while it is held). */
static bool
replay_accept_locked(struct wg_noise_keypair *kp, uint64_t counter)
    OVS_REQUIRES(kp->replay_mutex)
{
    bool fresh = wg_replay_check_and_update(&kp->replay, counter,
                                            WG_REJECT_AFTER_MESSAGES);

    /* The last counter a keypair may take ends its receiving, as its age
     * does (wg_noise_keypair_can_receive()). */
    if (kp->replay.greatest >= WG_REJECT_AFTER_MESSAGES) {
        atomic_store_relaxed(&kp->recv_valid, false);
    }
    return fresh;
}

bool
wg_noise_keypair_replay_accept(struct wg_noise_keypair *kp, uint64_t counter)
{
    bool fresh;

    ovs_mutex_lock(&kp->replay_mutex);
    fresh = replay_accept_locked(kp, counter);
    ovs_mutex_unlock(&kp->replay_mutex);
    return fresh;
}

struct wg_noise_keypair *
wg_noise_keypairs_current_for(const struct wg_noise_keypairs *kps,
                              uint32_t index)
{
    struct wg_noise_keypair *kp = wg_noise_keypairs_current(kps);

    return keypair_has_index(kp, index) ? kp : NULL;
}
