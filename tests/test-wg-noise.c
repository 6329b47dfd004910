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
#include "wg-cookie.h"
#include "wgtest.h"

/* Unit tests of the Noise_IKpsk2 layer (wg-noise) and of mac1/mac2/cookie
 * replies (wg-cookie), checked against an independent, step-by-step
 * computation of the whitepaper's formulas written here with literal label
 * strings and published initial values, so that a wrong constant in the
 * engine cannot pass by agreeing with itself. */

/* Published values: C0 = HASH(CONSTRUCTION), H0 = HASH(C0 || IDENTIFIER). */

static const char initial_chaining_key_hex[] =
    "60e26daef327efc02ec335e2a025d2d016eb4206f87277f52d38d1988b78cd36";
static const char initial_hash_hex[] =
    "2211b361081ac566691243db458ad5322d9c6c662293e8b70ee19c65ba079ef3";

/* The keypair a sender of 'kps' would use. */
static struct wg_noise_keypair *
cur(const struct wg_noise_keypairs *kps)
{
    return wg_noise_keypairs_current(kps);
}

struct test_party {
    struct wg_noise_identity id;
    struct wg_noise_handshake hs;       /* State towards the other party. */
    struct wg_noise_keypairs kps;
};

static int released_indices;

static void
count_release(void *aux OVS_UNUSED, uint32_t index OVS_UNUSED)
{
    released_indices++;
}

static void
party_init(struct test_party *p)
{
    uint8_t priv[WG_KEY_LEN];

    memset(p, 0, sizeof *p);
    wg_crypto_generate_private_key(priv);
    WGTEST_CHECK(wg_noise_identity_set(&p->id, priv));
    p->kps.release_index = count_release;
}

/* Makes 'a' and 'b' peers of each other, with 'psk_a'/'psk_b' (NULL: no
 * PSK). */
static void
parties_pair(struct test_party *a, struct test_party *b,
             const uint8_t *psk_a, const uint8_t *psk_b)
{
    wg_noise_handshake_init(&a->hs, &a->id, b->id.static_public);
    wg_noise_handshake_init(&b->hs, &b->id, a->id.static_public);
    WGTEST_CHECK(a->hs.static_static_valid && b->hs.static_static_valid);
    wg_noise_handshake_set_psk(&a->hs, psk_a);
    wg_noise_handshake_set_psk(&b->hs, psk_b);
}

static struct test_party *lookup_target;

static struct wg_noise_handshake *
lookup_one(void *aux OVS_UNUSED, const uint8_t key[WG_KEY_LEN])
{
    if (lookup_target
        && !memcmp(key, lookup_target->hs.remote_static, WG_KEY_LEN)) {
        return &lookup_target->hs;
    }
    return NULL;
}

static void
wall_at(struct timespec *ts, time_t sec, long nsec)
{
    ts->tv_sec = sec;
    ts->tv_nsec = nsec;
}

/* Constants and formats. */

static void
test_noise_constants(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t c0[WG_HASH_LEN], h0[WG_HASH_LEN], expect[WG_HASH_LEN];

    wg_crypto_init();
    WGTEST_CHECK(wg_crypto_hash(c0, WG_NOISE_CONSTRUCTION,
                                strlen(WG_NOISE_CONSTRUCTION),
                                NULL, 0));
    wgtest_unhex(initial_chaining_key_hex, expect, sizeof expect);
    WGTEST_CHECK_MEM(c0, expect, WG_HASH_LEN);
    WGTEST_CHECK(wg_crypto_hash(h0, c0, sizeof c0, WG_NOISE_IDENTIFIER,
                                strlen(WG_NOISE_IDENTIFIER)));
    wgtest_unhex(initial_hash_hex, expect, sizeof expect);
    WGTEST_CHECK_MEM(h0, expect, WG_HASH_LEN);
    WGTEST_CHECK(!strcmp(WG_LABEL_MAC1, "mac1----"));
    WGTEST_CHECK(!strcmp(WG_LABEL_COOKIE, "cookie--"));

    WGTEST_CHECK(sizeof(struct wg_msg_initiation) == 148);
    WGTEST_CHECK(sizeof(struct wg_msg_response) == 92);
    WGTEST_CHECK(sizeof(struct wg_msg_cookie_reply) == 64);
    WGTEST_CHECK(sizeof(struct wg_msg_data) == 16);

    WGTEST_CHECK(WG_REKEY_AFTER_MESSAGES == UINT64_C(1) << 60);
    WGTEST_CHECK(WG_REJECT_AFTER_MESSAGES == UINT64_MAX - (1u << 13) + 63);
    WGTEST_CHECK(WG_REKEY_AFTER_TIME_MS == 120 * 1000);
    WGTEST_CHECK(WG_REJECT_AFTER_TIME_MS == 180 * 1000);
    WGTEST_CHECK(WG_REKEY_ATTEMPT_TIME_MS == 90 * 1000);
    WGTEST_CHECK(WG_REKEY_TIMEOUT_MS == 5 * 1000);
    WGTEST_CHECK(WG_REKEY_TIMEOUT_JITTER_MAX_MS == 333);
    WGTEST_CHECK(WG_KEEPALIVE_TIMEOUT_MS == 10 * 1000);
    WGTEST_CHECK(WG_REKEY_ON_RECEIVE_AFTER_TIME_MS == 165 * 1000);
    WGTEST_CHECK(WG_ZERO_KEYS_AFTER_TIME_MS == 540 * 1000);
    WGTEST_CHECK(WG_COOKIE_SECRET_MAX_AGE_MS == 120 * 1000);
    WGTEST_CHECK(WG_MAX_TIMER_HANDSHAKES == 18);
    WGTEST_CHECK(WG_MESSAGE_PADDING_MULTIPLE == 16);
    printf("constants ok\n");
}
WGTEST_REGISTER("noise-constants", test_noise_constants);

static void
test_noise_tai64n(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct {
        time_t sec;
        long nsec;
        const char *hex;
    } cases[] = {
        { 0, 0, "400000000000000a 00000000" },
        { 1, 16777215, "400000000000000b 00000000" },
        { 1, 16777216, "400000000000000b 01000000" },
        { 1700000000, 123456789, "400000006553f10a 07000000" },
        { 1700000000, 999999999, "400000006553f10a 3b000000" },
    };
    uint8_t got[WG_TAI64N_LEN], expect[WG_TAI64N_LEN];
    struct timespec ts;

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        wall_at(&ts, cases[i].sec, cases[i].nsec);
        wg_noise_tai64n(got, &ts);
        WGTEST_CHECK(wgtest_unhex(cases[i].hex, expect, sizeof expect)
                     == WG_TAI64N_LEN);
        WGTEST_CHECK_MEM(got, expect, WG_TAI64N_LEN);
    }
    printf("%zu timestamps ok\n", ARRAY_SIZE(cases));
}
WGTEST_REGISTER("noise-tai64n", test_noise_tai64n);

/* Independent reference computation of a handshake, as the responder sees
 * it, straight from the whitepaper's formulas. */
struct ref {
    uint8_t c[WG_HASH_LEN];
    uint8_t h[WG_HASH_LEN];
    uint8_t k[WG_KEY_LEN];
};

static void
ref_mix_hash(struct ref *r, const void *data, size_t len)
{
    WGTEST_CHECK(wg_crypto_hash(r->h, r->h, WG_HASH_LEN, data, len));
}

static void
ref_kdf2(struct ref *r, const void *input, size_t len)
{
    uint8_t c[WG_HASH_LEN];

    WGTEST_CHECK(wg_crypto_kdf(c, r->k, NULL, r->c, input, len));
    memcpy(r->c, c, sizeof c);
}

static void
ref_dh2(struct ref *r, const uint8_t priv[WG_KEY_LEN],
        const uint8_t pub[WG_KEY_LEN], bool with_key)
{
    uint8_t dh[WG_KEY_LEN], c[WG_HASH_LEN];

    WGTEST_CHECK(wg_crypto_dh(dh, priv, pub));
    if (with_key) {
        ref_kdf2(r, dh, sizeof dh);
    } else {
        WGTEST_CHECK(wg_crypto_kdf(c, NULL, NULL, r->c, dh, sizeof dh));
        memcpy(r->c, c, sizeof c);
    }
}

static void
ref_ephemeral(struct ref *r, const uint8_t e[WG_KEY_LEN])
{
    uint8_t c[WG_HASH_LEN];

    WGTEST_CHECK(wg_crypto_kdf(c, NULL, NULL, r->c, e, WG_KEY_LEN));
    memcpy(r->c, c, sizeof c);
    ref_mix_hash(r, e, WG_KEY_LEN);
}

/* Checks initiation 'msg' from 'i' to 'r_' with timestamp 'wall', leaving
 * the reference state after {t} in 'ref'. */
static void
ref_check_initiation(struct ref *ref, const struct wg_msg_initiation *msg,
                     const struct test_party *i, const struct test_party *r_,
                     const struct timespec *wall)
{
    uint8_t plain[WG_KEY_LEN], ts[WG_TAI64N_LEN], key[WG_KEY_LEN];
    uint8_t mac[WG_MAC_LEN];

    WGTEST_CHECK(le32toh(msg->type) == 1);
    wgtest_unhex(initial_chaining_key_hex, ref->c, sizeof ref->c);
    wgtest_unhex(initial_hash_hex, ref->h, sizeof ref->h);
    ref_mix_hash(ref, r_->id.static_public, WG_KEY_LEN);
    ref_ephemeral(ref, msg->ephemeral);
    ref_dh2(ref, r_->id.static_private, msg->ephemeral, true);
    WGTEST_CHECK(wg_crypto_aead_open_once(ref->k, 0, plain,
                                          msg->encrypted_static, 48,
                                          ref->h, WG_HASH_LEN));
    WGTEST_CHECK_MEM(plain, i->id.static_public, WG_KEY_LEN);
    ref_mix_hash(ref, msg->encrypted_static, 48);
    ref_dh2(ref, r_->id.static_private, i->id.static_public, true);
    WGTEST_CHECK(wg_crypto_aead_open_once(ref->k, 0, plain,
                                          msg->encrypted_timestamp, 28,
                                          ref->h, WG_HASH_LEN));
    wg_noise_tai64n(ts, wall);
    WGTEST_CHECK_MEM(plain, ts, WG_TAI64N_LEN);
    ref_mix_hash(ref, msg->encrypted_timestamp, 28);

    /* mac1 = MAC(HASH("mac1----" || Sr), msg[0:116]), if present. */
    if (!wg_crypto_is_zero(msg->macs.mac1, WG_MAC_LEN)) {
        WGTEST_CHECK(wg_crypto_hash(key, "mac1----", 8, r_->id.static_public,
                                    WG_KEY_LEN));
        WGTEST_CHECK(wg_crypto_keyed_hash(mac, WG_MAC_LEN, key, WG_KEY_LEN,
                                          msg, 116));
        WGTEST_CHECK_MEM(mac, msg->macs.mac1, WG_MAC_LEN);
    }
}

/* Continues 'ref' over response 'msg' with the initiator's secrets and
 * derives the transport keys (t_send of the initiator, t_recv). */
static void
ref_check_response(struct ref *ref, const struct wg_msg_response *msg,
                   const uint8_t e_priv[WG_KEY_LEN],
                   const struct test_party *i, const uint8_t *psk,
                   uint8_t t_send[WG_KEY_LEN], uint8_t t_recv[WG_KEY_LEN])
{
    uint8_t zero_psk[WG_KEY_LEN] = { 0 };
    uint8_t c[WG_HASH_LEN], tau[WG_HASH_LEN], nothing[1];

    WGTEST_CHECK(le32toh(msg->type) == 2);
    ref_ephemeral(ref, msg->ephemeral);
    ref_dh2(ref, e_priv, msg->ephemeral, false);
    ref_dh2(ref, i->id.static_private, msg->ephemeral, false);
    WGTEST_CHECK(wg_crypto_kdf(c, tau, ref->k, ref->c, psk ? psk : zero_psk,
                               WG_KEY_LEN));
    memcpy(ref->c, c, sizeof c);
    ref_mix_hash(ref, tau, sizeof tau);
    WGTEST_CHECK(wg_crypto_aead_open_once(ref->k, 0, nothing,
                                          msg->encrypted_nothing, 16,
                                          ref->h, WG_HASH_LEN));
    WGTEST_CHECK(wg_crypto_kdf(t_send, t_recv, NULL, ref->c, "", 0));
}

/* Seals a probe with 'key' (one-shot) and opens it with 'kp''s receive
 * key, and the other way round with the send key. */
static void
check_transport_keys(struct wg_noise_keypair *kp,
                     const uint8_t peer_send[WG_KEY_LEN],
                     const uint8_t peer_recv[WG_KEY_LEN])
{
    uint8_t buf[32 + WG_AEAD_TAG_LEN], out[32];
    static const char probe[32] = "transport key probe, 32 bytes..";

    WGTEST_CHECK(wg_crypto_aead_seal_once(peer_send, 7, buf,
                                          (const uint8_t *) probe, 32,
                                          NULL, 0));
    WGTEST_CHECK(wg_aead_open(kp->recv_key, 7, out, buf, sizeof buf,
                              NULL, 0));
    WGTEST_CHECK_MEM(out, probe, 32);
    WGTEST_CHECK(wg_aead_seal(kp->send_key, 9, buf, (const uint8_t *) probe,
                              32, NULL, 0));
    WGTEST_CHECK(wg_crypto_aead_open_once(peer_recv, 9, out, buf,
                                          sizeof buf, NULL, 0));
    WGTEST_CHECK_MEM(out, probe, 32);
}

/* One full handshake from 'i' to 'r'.  Returns the initiator's result of
 * consuming the response. */
static enum wg_noise_result
run_handshake(struct test_party *i, struct test_party *r, const uint8_t *psk,
              long long int now, const struct timespec *wall)
{
    struct wg_msg_initiation init;
    struct wg_msg_response resp;
    struct wg_noise_handshake *hs;
    uint8_t e_priv[WG_KEY_LEN], t_send[WG_KEY_LEN], t_recv[WG_KEY_LEN];
    static uint32_t counter = 0x1000;
    uint32_t i_index = ++counter, r_index = ++counter;
    struct ref ref;
    enum wg_noise_result result;

    memset(&init, 0, sizeof init);
    WGTEST_CHECK(wg_noise_create_initiation(&init, &i->hs, &i->id, i_index,
                                            wall));
    WGTEST_CHECK(i->hs.state == WG_NOISE_CREATED_INITIATION);
    WGTEST_CHECK(le32toh(init.sender) == i_index);
    ref_check_initiation(&ref, &init, i, r, wall);

    lookup_target = r;
    WGTEST_CHECK(wg_noise_consume_initiation(&init, &r->id, lookup_one, NULL,
                                             now, &hs) == WG_NOISE_OK);
    WGTEST_CHECK(hs == &r->hs && r->hs.remote_index == i_index);
    WGTEST_CHECK(wg_noise_create_response(&resp, &r->hs, &r->id, r_index));
    WGTEST_CHECK(le32toh(resp.receiver) == i_index);

    memcpy(e_priv, i->hs.ephemeral_private, WG_KEY_LEN);
    result = wg_noise_consume_response(&resp, &i->hs, &i->id);
    if (result != WG_NOISE_OK) {
        return result;
    }
    ref_check_response(&ref, &resp, e_priv, i, psk, t_send, t_recv);
    WGTEST_CHECK(wg_noise_begin_session(&i->hs, &i->kps, now));
    WGTEST_CHECK(wg_noise_begin_session(&r->hs, &r->kps, now));
    WGTEST_CHECK(i->hs.state == WG_NOISE_ZEROED);
    WGTEST_CHECK(wg_crypto_is_zero(i->hs.chaining_key, WG_HASH_LEN));
    WGTEST_CHECK(wg_crypto_is_zero(i->hs.ephemeral_private, WG_KEY_LEN));
    WGTEST_CHECK(wg_crypto_is_zero(r->hs.hash, WG_HASH_LEN));

    /* Responder receives with the initiator's send key, and so on. */
    check_transport_keys(r->kps.next, t_send, t_recv);
    WGTEST_CHECK(cur(&i->kps)->local_index == i_index);
    WGTEST_CHECK(cur(&i->kps)->remote_index == r_index);
    WGTEST_CHECK(r->kps.next->local_index == r_index);
    WGTEST_CHECK(r->kps.next->remote_index == i_index);
    return WG_NOISE_OK;
}

static void
parties_destroy(struct test_party *a, struct test_party *b)
{
    wg_noise_keypairs_clear(&a->kps);
    wg_noise_keypairs_clear(&b->kps);
}

static void
test_noise_handshake(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t psk[WG_KEY_LEN] = { 1, 2, 3, 4, 5 };
    struct test_party a, b;
    struct timespec wall;

    wg_crypto_init();
    party_init(&a);
    party_init(&b);
    wall_at(&wall, 1700000000, 0);

    parties_pair(&a, &b, NULL, NULL);
    WGTEST_CHECK(run_handshake(&a, &b, NULL, 1000, &wall) == WG_NOISE_OK);
    parties_destroy(&a, &b);

    parties_pair(&a, &b, psk, psk);
    wall.tv_sec++;
    WGTEST_CHECK(run_handshake(&a, &b, psk, 2000, &wall) == WG_NOISE_OK);
    parties_destroy(&a, &b);

    /* PSK on one side only, or different: the response fails. */
    parties_pair(&a, &b, NULL, psk);
    wall.tv_sec++;
    WGTEST_CHECK(run_handshake(&a, &b, NULL, 3000, &wall)
                 == WG_NOISE_ERR_AUTH);
    WGTEST_CHECK(a.hs.state == WG_NOISE_CREATED_INITIATION);
    WGTEST_CHECK(!cur(&a.kps));
    parties_destroy(&a, &b);
    printf("handshakes ok\n");
}
WGTEST_REGISTER("noise-handshake", test_noise_handshake);

static void
test_noise_replay_flood(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_msg_initiation first, second, third;
    struct wg_noise_handshake *hs;
    struct test_party a, b;
    struct timespec wall;
    long long int now = 50000;

    wg_crypto_init();
    party_init(&a);
    party_init(&b);
    parties_pair(&a, &b, NULL, NULL);
    lookup_target = &b;
    wall_at(&wall, 1700000000, 0);

    WGTEST_CHECK(wg_noise_create_initiation(&first, &a.hs, &a.id, 1, &wall));
    WGTEST_CHECK(wg_noise_consume_initiation(&first, &b.id, lookup_one, NULL,
                                             now, &hs) == WG_NOISE_OK);
    /* The same message again, even much later: replay. */
    WGTEST_CHECK(wg_noise_consume_initiation(&first, &b.id, lookup_one, NULL,
                                             now + 60000, &hs)
                 == WG_NOISE_ERR_REPLAY);
    WGTEST_CHECK(!hs);

    /* Same timestamp granule (< 2^24 ns later): also a replay. */
    wall.tv_nsec = 16000000;
    WGTEST_CHECK(wg_noise_create_initiation(&second, &a.hs, &a.id, 2,
                                            &wall));
    WGTEST_CHECK(wg_noise_consume_initiation(&second, &b.id, lookup_one,
                                             NULL, now + 60000, &hs)
                 == WG_NOISE_ERR_REPLAY);

    /* Newer timestamp but within 20 ms of the last consumption: flood. */
    wall.tv_sec++;
    WGTEST_CHECK(wg_noise_create_initiation(&third, &a.hs, &a.id, 3, &wall));
    WGTEST_CHECK(wg_noise_consume_initiation(&third, &b.id, lookup_one, NULL,
                                             now + 19, &hs)
                 == WG_NOISE_ERR_FLOOD);
    WGTEST_CHECK(b.hs.remote_index == 1);
    WGTEST_CHECK(wg_noise_consume_initiation(&third, &b.id, lookup_one, NULL,
                                             now + 20, &hs) == WG_NOISE_OK);
    WGTEST_CHECK(b.hs.remote_index == 3);

    /* Unknown initiator; corrupted static; low-order ephemeral. */
    wall.tv_sec++;
    WGTEST_CHECK(wg_noise_create_initiation(&first, &a.hs, &a.id, 4, &wall));
    lookup_target = NULL;
    WGTEST_CHECK(wg_noise_consume_initiation(&first, &b.id, lookup_one, NULL,
                                             now + 100, &hs)
                 == WG_NOISE_ERR_UNKNOWN_PEER);
    lookup_target = &b;
    second = first;
    second.encrypted_static[3] ^= 1;
    WGTEST_CHECK(wg_noise_consume_initiation(&second, &b.id, lookup_one,
                                             NULL, now + 100, &hs)
                 == WG_NOISE_ERR_AUTH);
    second = first;
    memset(second.ephemeral, 0, WG_KEY_LEN);
    WGTEST_CHECK(wg_noise_consume_initiation(&second, &b.id, lookup_one,
                                             NULL, now + 100, &hs)
                 == WG_NOISE_ERR_AUTH);
    second = first;
    second.encrypted_timestamp[0] ^= 1;
    WGTEST_CHECK(wg_noise_consume_initiation(&second, &b.id, lookup_one,
                                             NULL, now + 100, &hs)
                 == WG_NOISE_ERR_AUTH);
    WGTEST_CHECK(b.hs.remote_index == 3);
    WGTEST_CHECK(wg_noise_consume_initiation(&first, &b.id, lookup_one, NULL,
                                             now + 100, &hs) == WG_NOISE_OK);
    printf("replay and flood protection ok\n");
}
WGTEST_REGISTER("noise-replay-flood", test_noise_replay_flood);

static void
test_noise_low_order(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    /* Points of small order on Curve25519 (and zero). */
    static const char *const points[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    };
    struct test_party a;
    struct wg_msg_initiation msg;
    struct timespec wall;

    wg_crypto_init();
    party_init(&a);
    wall_at(&wall, 1700000000, 0);
    for (size_t i = 0; i < ARRAY_SIZE(points); i++) {
        uint8_t pub[WG_KEY_LEN];

        wgtest_unhex(points[i], pub, sizeof pub);
        wg_noise_handshake_init(&a.hs, &a.id, pub);
        WGTEST_CHECK(!a.hs.static_static_valid);
        WGTEST_CHECK(!wg_noise_create_initiation(&msg, &a.hs, &a.id, 1,
                                                 &wall));
        WGTEST_CHECK(a.hs.state == WG_NOISE_ZEROED);
    }
    printf("%zu low-order keys rejected\n", ARRAY_SIZE(points));
}
WGTEST_REGISTER("noise-low-order", test_noise_low_order);

static void
test_noise_keypairs(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_noise_keypair *k1, *k2, *k3;
    struct test_party a, b;
    uint32_t k2_index;
    struct timespec wall;

    wg_crypto_init();
    party_init(&a);
    party_init(&b);
    parties_pair(&a, &b, NULL, NULL);
    wall_at(&wall, 1700000000, 0);
    released_indices = 0;

    /* Initiator: new keypairs go straight to current, older to previous. */
    WGTEST_CHECK(run_handshake(&a, &b, NULL, 0, &wall) == WG_NOISE_OK);
    k1 = cur(&a.kps);
    WGTEST_CHECK(k1->i_am_initiator && !a.kps.previous && !a.kps.next);
    /* Responder: next, until confirmed by the first received data. */
    WGTEST_CHECK(!cur(&b.kps) && b.kps.next && !b.kps.next->i_am_initiator);
    WGTEST_CHECK(!wg_noise_keypairs_confirm(&b.kps, NULL));
    k2 = b.kps.next;
    k2_index = k2->local_index;
    WGTEST_CHECK(wg_noise_keypairs_confirm(&b.kps, k2));
    WGTEST_CHECK(cur(&b.kps) == k2 && !b.kps.next && !b.kps.previous);
    WGTEST_CHECK(!wg_noise_keypairs_confirm(&b.kps, k2));

    wall.tv_sec++;
    WGTEST_CHECK(run_handshake(&a, &b, NULL, 1000, &wall) == WG_NOISE_OK);
    WGTEST_CHECK(a.kps.previous == k1 && cur(&a.kps) != k1);
    WGTEST_CHECK(cur(&b.kps) == k2 && b.kps.next);
    k3 = b.kps.next;
    WGTEST_CHECK(wg_noise_keypairs_find(&b.kps, k3->local_index) == k3);
    WGTEST_CHECK(wg_noise_keypairs_find(&b.kps, k2->local_index) == k2);
    WGTEST_CHECK(!wg_noise_keypairs_find(&b.kps, 0));
    WGTEST_CHECK(wg_noise_keypairs_confirm(&b.kps, k3));
    WGTEST_CHECK(cur(&b.kps) == k3 && b.kps.previous == k2);
    WGTEST_CHECK(released_indices == 0);

    /* Third round: the oldest keypairs go away, releasing their index. */
    wall.tv_sec++;
    WGTEST_CHECK(run_handshake(&a, &b, NULL, 2000, &wall) == WG_NOISE_OK);
    WGTEST_CHECK(released_indices == 2);        /* a's k1, b's k2. */
    WGTEST_CHECK(!wg_noise_keypairs_find(&b.kps, k2_index));
    WGTEST_CHECK(cur(&b.kps) == k3 && !b.kps.previous && b.kps.next);
    parties_destroy(&a, &b);
    WGTEST_CHECK(released_indices == 2 + 2 + 2);
    printf("keypair rotation ok\n");
}
WGTEST_REGISTER("noise-keypairs", test_noise_keypairs);

static void
test_noise_expiry(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_noise_keypair *kp;
    struct test_party a, b;
    struct timespec wall;
    long long int t0 = 7000;

    wg_crypto_init();
    party_init(&a);
    party_init(&b);
    parties_pair(&a, &b, NULL, NULL);
    wall_at(&wall, 1700000000, 0);
    WGTEST_CHECK(run_handshake(&a, &b, NULL, t0, &wall) == WG_NOISE_OK);
    kp = cur(&a.kps);

    WGTEST_CHECK(!wg_noise_keypair_can_send(NULL, t0));
    WGTEST_CHECK(wg_noise_keypair_can_send(kp, t0));
    WGTEST_CHECK(wg_noise_keypair_can_send(kp, t0 + 179999));
    WGTEST_CHECK(!wg_noise_keypair_can_send(kp, t0 + 180000));
    atomic_store_relaxed(&kp->send_counter, WG_REJECT_AFTER_MESSAGES - 1);
    WGTEST_CHECK(wg_noise_keypair_can_send(kp, t0));
    atomic_store_relaxed(&kp->send_counter, WG_REJECT_AFTER_MESSAGES);
    WGTEST_CHECK(!wg_noise_keypair_can_send(kp, t0));

    WGTEST_CHECK(wg_noise_keypair_can_receive(kp, t0 + 179999));
    WGTEST_CHECK(!wg_noise_keypair_can_receive(kp, t0 + 180000));
    WGTEST_CHECK(!wg_noise_keypair_can_receive(kp, t0));  /* Sticky. */

    kp = b.kps.next;
    WGTEST_CHECK(wg_noise_keypair_replay_accept(kp,
                                                WG_REJECT_AFTER_MESSAGES - 1));
    WGTEST_CHECK(!wg_noise_keypair_can_receive(kp, t0));
    parties_destroy(&a, &b);
    printf("keypair expiry ok\n");
}
WGTEST_REGISTER("noise-expiry", test_noise_expiry);
