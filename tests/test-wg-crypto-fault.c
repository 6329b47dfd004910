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

/* Failure injection into the crypto seam (wg-test-hooks.h): every hash,
 * keyed hash, HMAC (so every KDF step) and XChaCha20-Poly1305 seal that
 * fails must make its caller give up.  Checked on the primitives, on every
 * such call of a handshake between two devices, on MAC1 and on the cookie
 * reply: nothing is accepted and no all-zero key is ever installed. */

#include <config.h>

#include <string.h>

#include "test-wg-pair.h"
#include "util.h"
#include "wg-cookie.h"
#include "wg-crypto.h"
#include "wg-noise.h"
#include "wg-peer.h"
#include "wg-test-hooks.h"
#include "wgtest.h"

/* Each primitive fails once when armed: false, output wiped; the next call
 * works again and gives the reference result. */
static bool
run_primitive(enum wg_test_fault f, uint8_t out[WG_HASH_LEN + 16])
{
    static const uint8_t key[WG_KEY_LEN] = { 1, 2, 3 };
    static const uint8_t nonce[WG_XAEAD_NONCE_LEN] = { 4 };

    memset(out, 0xa5, WG_HASH_LEN + 16);
    switch (f) {
    case WG_TEST_FAULT_HASH:
        return wg_crypto_hash(out, "abc", 3, "def", 3);
    case WG_TEST_FAULT_KEYED_HASH:
        return wg_crypto_keyed_hash(out, 16, key, sizeof key, "abc", 3);
    case WG_TEST_FAULT_HMAC:
        return wg_crypto_kdf(out, NULL, NULL, key, "abc", 3);
    case WG_TEST_FAULT_XAEAD_SEAL:
        return wg_crypto_xaead_seal(out, key, 16, NULL, 0, nonce, key);
    case WG_TEST_N_FAULTS:
    default:
        OVS_NOT_REACHED();
    }
}

static void
test_fault_primitives(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t zeros[WG_HASH_LEN + 16];

    for (int f = 0; f < WG_TEST_N_FAULTS; f++) {
        uint8_t ref[WG_HASH_LEN + 16], out[WG_HASH_LEN + 16];
        size_t len = f == WG_TEST_FAULT_KEYED_HASH ? 16 : WG_HASH_LEN;

        WGTEST_CHECK(run_primitive(f, ref));
        wg_test_fault_arm(f, 0);
        WGTEST_CHECK(!run_primitive(f, out));
        WGTEST_CHECK(!wg_test_fault_pending());
        WGTEST_CHECK(!memcmp(out, zeros, len));
        WGTEST_CHECK(run_primitive(f, out));
        WGTEST_CHECK(!memcmp(out, ref, sizeof out));
        printf("%s: failure returned, output wiped\n", wg_test_fault_name(f));
    }
}
WGTEST_REGISTER("crypto-fault-primitives", test_fault_primitives);

/* True if 'k' is the all-zero key: it seals like a key made from zeros. */
static bool
is_zero_key(struct wg_aead_key *k)
{
    static const uint8_t zero[WG_KEY_LEN];
    struct wg_aead_key *z = wg_aead_key_create(zero);
    uint8_t a[32] = { 0 }, b[32] = { 0 };

    WGTEST_CHECK(z && k);
    WGTEST_CHECK(wg_aead_seal(k, 7, a, a, 16, NULL, 0));
    WGTEST_CHECK(wg_aead_seal(z, 7, b, b, 16, NULL, 0));
    wg_aead_key_destroy(z);
    return !memcmp(a, b, sizeof a);
}

static void
check_no_zero_keys(const struct wgpair_node *node)
{
    const struct wg_noise_keypairs *kps = &node->peer->keypairs;
    struct wg_noise_keypair *all[] = {
        wg_noise_keypairs_current(kps), kps->previous, kps->next
    };

    for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
        if (all[i]) {
            WGTEST_CHECK(!is_zero_key(all[i]->send_key));
            WGTEST_CHECK(!is_zero_key(all[i]->recv_key));
        }
    }
}

/* One handshake in which call 'skip' + 1 of 'f' fails.  Returns false if
 * the handshake has fewer such calls (then it must have succeeded). */
static bool
faulty_handshake(enum wg_test_fault f, unsigned int skip)
{
    struct wgpair p;
    bool fired;

    wgpair_init(&p, NULL, NULL);
    wg_test_fault_arm(f, skip);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    wgpair_deliver(&p);
    fired = !wg_test_fault_pending();
    wg_test_fault_disarm();
    check_no_zero_keys(&p.node[0]);
    check_no_zero_keys(&p.node[1]);
    if (fired) {
        /* Abandoned: no session, nothing delivered. */
        WGTEST_CHECK(!wg_device_peer_has_session(p.node[0].dev,
                                                 p.node[0].peer));
        WGTEST_CHECK(!p.node[0].session_ready && !p.node[1].session_ready);
        WGTEST_CHECK(p.node[1].last_inner_len == 0);
    } else {
        WGTEST_CHECK(p.node[1].last_inner_len == 100);
    }
    wgpair_destroy(&p);
    return fired;
}

static void
test_fault_handshake(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const enum wg_test_fault faults[] = {
        WG_TEST_FAULT_HASH, WG_TEST_FAULT_KEYED_HASH, WG_TEST_FAULT_HMAC,
    };

    for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
        unsigned int n = 0;

        while (faulty_handshake(faults[i], n)) {
            n++;
        }
        WGTEST_CHECK(n > 0);
        printf("%s: each of %u calls in a handshake fails it\n",
               wg_test_fault_name(faults[i]), n);
    }
}
WGTEST_REGISTER("crypto-fault-handshake", test_fault_handshake);

/* An initiation whose MAC1 is all zeros must not pass when the responder
 * cannot compute MAC1 (a wiped result would compare equal). */
static void
test_fault_mac1(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg init;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    p.hold = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    init = wgpair_take(&p, 0);
    memset(&init.data[WG_MSG_MAC1_OFFSET(init.len)], 0, WG_MAC_LEN);
    wg_test_fault_arm(WG_TEST_FAULT_KEYED_HASH, 0);
    WGTEST_CHECK(wgpair_inject(&p, &init) == WG_DEVICE_DROP_BAD_MAC1);
    WGTEST_CHECK(!wg_test_fault_pending());
    WGTEST_CHECK(!p.n_msgs && !p.node[1].rx[WG_DEVICE_RX_HANDSHAKE]);
    wgpair_destroy(&p);
    printf("zero MAC1 with a failing keyed hash: bad-mac1\n");
}
WGTEST_REGISTER("crypto-fault-mac1", test_fault_mac1);

/* Under load, a cookie reply that cannot be sealed is not sent, and the
 * initiation is counted as a crypto failure. */
static void
test_fault_cookie(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wg_device_set_under_load_for_test(p.node[1].dev, true);
    wg_test_fault_arm(WG_TEST_FAULT_XAEAD_SEAL, 0);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 60) == WG_DEVICE_TX_NO_SESSION);
    wgpair_deliver(&p);
    WGTEST_CHECK(!wg_test_fault_pending());
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_DROP_CRYPTO] == 1);
    WGTEST_CHECK(wgpair_sent(&p, 1, WG_MSG_COOKIE_REPLY) == 0);
    WGTEST_CHECK(!p.node[0].rx[WG_DEVICE_RX_COOKIE_STORED]);
    wgpair_destroy(&p);
    printf("unsealable cookie reply: not sent, counted\n");
}
WGTEST_REGISTER("crypto-fault-cookie", test_fault_cookie);
