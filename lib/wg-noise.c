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

/* Noise_IKpsk2 for WireGuard.  Notation follows the whitepaper: C is the
 * chaining key, H the hash, k a temporary key; e/s are ephemeral/static
 * keys, lower case private, upper case public (Ei, Sr...). */

/* C0 = HASH(CONSTRUCTION) and H0 = HASH(C0 || IDENTIFIER), computed once. */
static uint8_t initial_chaining_key[WG_HASH_LEN];
static uint8_t initial_hash[WG_HASH_LEN];

static bool
noise_init_constants(void)
{
    static bool done;

    if (!done) {
        done = (wg_crypto_hash(initial_chaining_key, WG_NOISE_CONSTRUCTION,
                               strlen(WG_NOISE_CONSTRUCTION), NULL, 0)
                && wg_crypto_hash(initial_hash, initial_chaining_key,
                                  WG_HASH_LEN, WG_NOISE_IDENTIFIER,
                                  strlen(WG_NOISE_IDENTIFIER)));
    }
    return done;
}

/* Working state of one handshake computation, kept on the stack and
 * committed to the peer's handshake only once everything verified. */
struct noise_state {
    uint8_t c[WG_HASH_LEN];             /* Chaining key. */
    uint8_t h[WG_HASH_LEN];             /* Handshake hash. */
    uint8_t k[WG_KEY_LEN];              /* Current AEAD key. */
};

static void
noise_state_wipe(struct noise_state *st)
{
    wg_crypto_wipe(st, sizeof *st);
}

/* Every step below returns false when the crypto fails (wg-crypto.h): the
 * caller then abandons the whole handshake, never continuing with a wiped
 * (all-zero) chaining key, hash or key. */

/* C = C0; H = HASH(H0 || responder's static public key). */
static bool
noise_state_start(struct noise_state *st,
                  const uint8_t responder_static[WG_KEY_LEN])
{
    memset(st, 0, sizeof *st);
    if (!noise_init_constants()) {
        return false;
    }
    memcpy(st->c, initial_chaining_key, WG_HASH_LEN);
    return wg_crypto_hash(st->h, initial_hash, WG_HASH_LEN,
                          responder_static, WG_KEY_LEN);
}

/* H = HASH(H || data). */
static bool
mix_hash(struct noise_state *st, const void *data, size_t len)
{
    uint8_t h[WG_HASH_LEN];

    if (!wg_crypto_hash(h, st->h, WG_HASH_LEN, data, len)) {
        return false;
    }
    memcpy(st->h, h, WG_HASH_LEN);
    return true;
}

/* C = KDF1(C, input), or (C, k) = KDF2(C, input) if 'with_key'. */
static bool
mix_kdf(struct noise_state *st, const void *input, size_t len,
        bool with_key)
{
    uint8_t c[WG_HASH_LEN];
    bool ok = wg_crypto_kdf(c, with_key ? st->k : NULL, NULL, st->c,
                            input, len);

    if (ok) {
        memcpy(st->c, c, WG_HASH_LEN);
    }
    wg_crypto_wipe(c, sizeof c);
    return ok;
}

/* C = KDF1(C, input). */
static bool
mix_chain(struct noise_state *st, const void *input, size_t len)
{
    return mix_kdf(st, input, len, false);
}

/* (C, k) = KDF2(C, input). */
static bool
mix_key(struct noise_state *st, const void *input, size_t len)
{
    return mix_kdf(st, input, len, true);
}

/* A public ephemeral key enters both C and H. */
static bool
mix_ephemeral(struct noise_state *st, const uint8_t pub[WG_KEY_LEN])
{
    return mix_chain(st, pub, WG_KEY_LEN) && mix_hash(st, pub, WG_KEY_LEN);
}

/* DH(priv, pub) into C, and into k as well if 'with_key'.  Fails on a zero
 * (low-order) result. */
static bool
mix_dh(struct noise_state *st, const uint8_t priv[WG_KEY_LEN],
       const uint8_t pub[WG_KEY_LEN], bool with_key)
{
    uint8_t dh[WG_KEY_LEN];
    bool ok;

    if (!wg_crypto_dh(dh, priv, pub)) {
        return false;
    }
    ok = mix_kdf(st, dh, sizeof dh, with_key);
    wg_crypto_wipe(dh, sizeof dh);
    return ok;
}

/* (C, tau, k) = KDF3(C, Q); H = HASH(H || tau). */
static bool
mix_psk(struct noise_state *st, const uint8_t psk[WG_KEY_LEN])
{
    uint8_t c[WG_HASH_LEN], tau[WG_HASH_LEN];
    bool ok = wg_crypto_kdf(c, tau, st->k, st->c, psk, WG_KEY_LEN);

    if (ok) {
        memcpy(st->c, c, WG_HASH_LEN);
        ok = mix_hash(st, tau, sizeof tau);
    }
    wg_crypto_wipe(c, sizeof c);
    wg_crypto_wipe(tau, sizeof tau);
    return ok;
}

/* dst = AEAD(k, 0, src, H); H = HASH(H || dst). */
static bool
seal_and_hash(struct noise_state *st, uint8_t *dst, const uint8_t *src,
              size_t len)
{
    if (!wg_crypto_aead_seal_once(st->k, 0, dst, src, len,
                                  st->h, WG_HASH_LEN)) {
        return false;
    }
    return mix_hash(st, dst, len + WG_AEAD_TAG_LEN);
}

/* dst = AEAD-open(k, 0, src, H); H = HASH(H || src). */
static bool
open_and_hash(struct noise_state *st, uint8_t *dst, const uint8_t *src,
              size_t sealed_len)
{
    if (!wg_crypto_aead_open_once(st->k, 0, dst, src, sealed_len,
                                  st->h, WG_HASH_LEN)) {
        return false;
    }
    return mix_hash(st, src, sealed_len);
}

/* A fresh ephemeral key pair. */
static bool
new_ephemeral(uint8_t priv[WG_KEY_LEN], uint8_t pub[WG_KEY_LEN])
{
    wg_crypto_generate_private_key(priv);
    return wg_crypto_public_key(pub, priv);
}

/* Identity. */

bool
wg_noise_identity_set(struct wg_noise_identity *id,
                      const uint8_t priv[WG_KEY_LEN])
{
    wg_noise_identity_clear(id);
    if (!priv || !wg_crypto_public_key(id->static_public, priv)) {
        wg_noise_identity_clear(id);
        return !priv;
    }
    memcpy(id->static_private, priv, WG_KEY_LEN);
    id->has_key = true;
    return true;
}

void
wg_noise_identity_clear(struct wg_noise_identity *id)
{
    wg_crypto_wipe(id, sizeof *id);
}

/* Handshake state. */

void
wg_noise_handshake_init(struct wg_noise_handshake *hs,
                        const struct wg_noise_identity *id,
                        const uint8_t remote_static[WG_KEY_LEN])
{
    memset(hs, 0, sizeof *hs);
    memcpy(hs->remote_static, remote_static, WG_KEY_LEN);
    wg_noise_handshake_precompute(hs, id);
}

bool
wg_noise_handshake_precompute(struct wg_noise_handshake *hs,
                              const struct wg_noise_identity *id)
{
    hs->static_static_valid =
        id->has_key && wg_crypto_dh(hs->precomputed_static_static,
                                    id->static_private, hs->remote_static);
    if (!hs->static_static_valid) {
        wg_crypto_wipe(hs->precomputed_static_static, WG_KEY_LEN);
    }
    return hs->static_static_valid;
}

void
wg_noise_handshake_set_psk(struct wg_noise_handshake *hs,
                           const uint8_t psk[WG_KEY_LEN])
{
    if (psk) {
        memcpy(hs->preshared_key, psk, WG_KEY_LEN);
    } else {
        wg_crypto_wipe(hs->preshared_key, WG_KEY_LEN);
    }
}

void
wg_noise_handshake_clear(struct wg_noise_handshake *hs)
{
    wg_crypto_wipe(hs->ephemeral_private, WG_KEY_LEN);
    wg_crypto_wipe(hs->remote_ephemeral, WG_KEY_LEN);
    wg_crypto_wipe(hs->hash, WG_HASH_LEN);
    wg_crypto_wipe(hs->chaining_key, WG_HASH_LEN);
    hs->local_index = 0;
    hs->remote_index = 0;
    hs->state = WG_NOISE_ZEROED;
}

void
wg_noise_handshake_destroy(struct wg_noise_handshake *hs)
{
    wg_crypto_wipe(hs, sizeof *hs);
}

void
wg_noise_tai64n(uint8_t out[WG_TAI64N_LEN], const struct timespec *wall)
{
    uint64_t sec = htobe64(WG_TAI64_EPOCH_OFFSET + (uint64_t) wall->tv_sec);
    uint32_t nsec = wall->tv_nsec;

    nsec = htobe32(nsec - nsec % WG_TAI64N_NSEC_GRANULARITY);
    memcpy(out, &sec, sizeof sec);
    memcpy(out + sizeof sec, &nsec, sizeof nsec);
}

/* Initiation (whitepaper 5.4.2). */

/* Commits the initiator's state after building an initiation. */
static void
initiator_commit(struct wg_noise_handshake *hs, const struct noise_state *st,
                 uint32_t local_index)
{
    memcpy(hs->hash, st->h, WG_HASH_LEN);
    memcpy(hs->chaining_key, st->c, WG_HASH_LEN);
    hs->local_index = local_index;
    hs->remote_index = 0;
    hs->state = WG_NOISE_CREATED_INITIATION;
}

bool
wg_noise_create_initiation(struct wg_msg_initiation *msg,
                           struct wg_noise_handshake *hs,
                           const struct wg_noise_identity *id,
                           uint32_t local_index,
                           const struct timespec *wall)
{
    uint8_t timestamp[WG_TAI64N_LEN];
    struct noise_state st;
    bool ok = false;

    wg_noise_handshake_clear(hs);
    if (!id->has_key || !hs->static_static_valid) {
        return false;
    }
    msg->type = htole32(WG_MSG_INITIATION);
    msg->sender = htole32(local_index);
    if (!noise_state_start(&st, hs->remote_static)) {
        goto out;
    }

    /* e */
    if (!new_ephemeral(hs->ephemeral_private, msg->ephemeral)
        || !mix_ephemeral(&st, msg->ephemeral)) {
        goto out;
    }

    /* es */
    if (!mix_dh(&st, hs->ephemeral_private, hs->remote_static, true)) {
        goto out;
    }

    /* s */
    if (!seal_and_hash(&st, msg->encrypted_static, id->static_public,
                       WG_KEY_LEN)) {
        goto out;
    }

    /* ss */
    if (!mix_key(&st, hs->precomputed_static_static, WG_KEY_LEN)) {
        goto out;
    }

    /* {t} */
    wg_noise_tai64n(timestamp, wall);
    if (!seal_and_hash(&st, msg->encrypted_timestamp, timestamp,
                       sizeof timestamp)) {
        goto out;
    }
    initiator_commit(hs, &st, local_index);
    ok = true;

out:
    if (!ok) {
        wg_noise_handshake_clear(hs);
    }
    noise_state_wipe(&st);
    return ok;
}

/* Decrypted content of an initiation, before it is committed. */
struct initiation_content {
    struct noise_state st;
    uint8_t initiator_static[WG_KEY_LEN];
    uint8_t timestamp[WG_TAI64N_LEN];
};

/* e, es, s: authenticates the initiator's static key. */
static bool
consume_initiation_static(const struct wg_msg_initiation *msg,
                          const struct wg_noise_identity *id,
                          struct initiation_content *ic)
{
    if (!noise_state_start(&ic->st, id->static_public)) {
        return false;
    }

    /* e */
    if (!mix_ephemeral(&ic->st, msg->ephemeral)) {
        return false;
    }

    /* es */
    if (!mix_dh(&ic->st, id->static_private, msg->ephemeral, true)) {
        return false;
    }

    /* s */
    return open_and_hash(&ic->st, ic->initiator_static,
                         msg->encrypted_static,
                         sizeof msg->encrypted_static);
}

/* ss, {t}: authenticates the timestamp under the peer's static-static DH. */
static bool
consume_initiation_timestamp(const struct wg_msg_initiation *msg,
                             const struct wg_noise_handshake *hs,
                             struct initiation_content *ic)
{
    if (!hs->static_static_valid) {
        return false;
    }

    /* ss */
    if (!mix_key(&ic->st, hs->precomputed_static_static, WG_KEY_LEN)) {
        return false;
    }

    /* {t} */
    return open_and_hash(&ic->st, ic->timestamp, msg->encrypted_timestamp,
                         sizeof msg->encrypted_timestamp);
}

/* Replay and flood protection for initiations from one peer. */
static enum wg_noise_result
check_initiation_fresh(const struct wg_noise_handshake *hs,
                       const uint8_t timestamp[WG_TAI64N_LEN],
                       long long int now_ms)
{
    if (memcmp(timestamp, hs->latest_timestamp, WG_TAI64N_LEN) <= 0) {
        return WG_NOISE_ERR_REPLAY;
    }
    if (hs->consumed_any_initiation
        && now_ms - hs->last_initiation_consumption_ms
           < WG_MIN_INITIATION_CONSUME_INTERVAL_MS) {
        return WG_NOISE_ERR_FLOOD;
    }
    return WG_NOISE_OK;
}

/* Stores a verified initiation as the responder's handshake state. */
static void
responder_commit(struct wg_noise_handshake *hs,
                 const struct wg_msg_initiation *msg,
                 const struct initiation_content *ic, long long int now_ms)
{
    uint32_t local_index = hs->local_index;

    /* The caller still holds 'local_index' and replaces it when it
     * creates the response. */
    wg_noise_handshake_clear(hs);
    hs->local_index = local_index;
    memcpy(hs->remote_ephemeral, msg->ephemeral, WG_KEY_LEN);
    memcpy(hs->latest_timestamp, ic->timestamp, WG_TAI64N_LEN);
    memcpy(hs->hash, ic->st.h, WG_HASH_LEN);
    memcpy(hs->chaining_key, ic->st.c, WG_HASH_LEN);
    hs->remote_index = le32toh(msg->sender);
    hs->last_initiation_consumption_ms = now_ms;
    hs->consumed_any_initiation = true;
    hs->state = WG_NOISE_CONSUMED_INITIATION;
}

enum wg_noise_result
wg_noise_consume_initiation(const struct wg_msg_initiation *msg,
                            const struct wg_noise_identity *id,
                            wg_noise_lookup_func *lookup, void *aux,
                            long long int now_ms,
                            struct wg_noise_handshake **hsp)
{
    struct initiation_content ic;
    struct wg_noise_handshake *hs = NULL;
    enum wg_noise_result result = WG_NOISE_ERR_AUTH;

    if (!id->has_key || !consume_initiation_static(msg, id, &ic)) {
        goto out;
    }
    hs = lookup(aux, ic.initiator_static);
    if (!hs) {
        result = WG_NOISE_ERR_UNKNOWN_PEER;
        goto out;
    }
    if (!consume_initiation_timestamp(msg, hs, &ic)) {
        goto out;
    }
    result = check_initiation_fresh(hs, ic.timestamp, now_ms);
    if (result == WG_NOISE_OK) {
        responder_commit(hs, msg, &ic, now_ms);
    }

out:
    *hsp = result == WG_NOISE_OK ? hs : NULL;
    wg_crypto_wipe(&ic, sizeof ic);
    return result;
}

/* Response (whitepaper 5.4.3). */

bool
wg_noise_create_response(struct wg_msg_response *msg,
                         struct wg_noise_handshake *hs,
                         const struct wg_noise_identity *id OVS_UNUSED,
                         uint32_t local_index)
{
    struct noise_state st;
    bool ok = false;

    if (hs->state != WG_NOISE_CONSUMED_INITIATION) {
        return false;
    }
    memcpy(st.c, hs->chaining_key, WG_HASH_LEN);
    memcpy(st.h, hs->hash, WG_HASH_LEN);
    msg->type = htole32(WG_MSG_RESPONSE);
    msg->sender = htole32(local_index);
    msg->receiver = htole32(hs->remote_index);

    /* e */
    if (!new_ephemeral(hs->ephemeral_private, msg->ephemeral)
        || !mix_ephemeral(&st, msg->ephemeral)) {
        goto out;
    }

    /* ee, se */
    if (!mix_dh(&st, hs->ephemeral_private, hs->remote_ephemeral, false)
        || !mix_dh(&st, hs->ephemeral_private, hs->remote_static, false)) {
        goto out;
    }

    /* psk */
    if (!mix_psk(&st, hs->preshared_key)) {
        goto out;
    }

    /* {} */
    if (!seal_and_hash(&st, msg->encrypted_nothing, msg->encrypted_nothing,
                       0)) {
        goto out;
    }
    memcpy(hs->hash, st.h, WG_HASH_LEN);
    memcpy(hs->chaining_key, st.c, WG_HASH_LEN);
    hs->local_index = local_index;
    hs->state = WG_NOISE_CREATED_RESPONSE;
    ok = true;

out:
    if (!ok) {
        wg_noise_handshake_clear(hs);
    }
    noise_state_wipe(&st);
    return ok;
}

enum wg_noise_result
wg_noise_consume_response(const struct wg_msg_response *msg,
                          struct wg_noise_handshake *hs,
                          const struct wg_noise_identity *id)
{
    uint8_t nothing[1];
    struct noise_state st;
    bool ok = false;

    if (hs->state != WG_NOISE_CREATED_INITIATION || !id->has_key) {
        return WG_NOISE_ERR_STATE;
    }
    memcpy(st.c, hs->chaining_key, WG_HASH_LEN);
    memcpy(st.h, hs->hash, WG_HASH_LEN);

    /* e */
    if (!mix_ephemeral(&st, msg->ephemeral)) {
        goto out;
    }

    /* ee, se */
    if (!mix_dh(&st, hs->ephemeral_private, msg->ephemeral, false)
        || !mix_dh(&st, id->static_private, msg->ephemeral, false)) {
        goto out;
    }

    /* psk */
    if (!mix_psk(&st, hs->preshared_key)) {
        goto out;
    }

    /* {} */
    if (!open_and_hash(&st, nothing, msg->encrypted_nothing,
                       sizeof msg->encrypted_nothing)) {
        goto out;
    }
    memcpy(hs->remote_ephemeral, msg->ephemeral, WG_KEY_LEN);
    memcpy(hs->hash, st.h, WG_HASH_LEN);
    memcpy(hs->chaining_key, st.c, WG_HASH_LEN);
    hs->remote_index = le32toh(msg->sender);
    hs->state = WG_NOISE_CONSUMED_RESPONSE;
    ok = true;

out:
    noise_state_wipe(&st);
    return ok ? WG_NOISE_OK : WG_NOISE_ERR_AUTH;
}
