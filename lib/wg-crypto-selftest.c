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
#include "wg-crypto-selftest.h"

#include <string.h>

#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "util.h"
#include "wg-crypto.h"

VLOG_DEFINE_THIS_MODULE(wg_crypto_selftest);

/* Vectors.  The key 80 81 ... 9f, the additional data and the plaintext
 * are shared by RFC 8439 section 2.8.2 and draft-irtf-cfrg-xchacha-03
 * appendix A.3.1. */

#define SUNSCREEN_LEN 114
static const char sunscreen[SUNSCREEN_LEN + 1] =
    "Ladies and Gentlemen of the class of '99: If I could offer you only "
    "one tip for the future, sunscreen would be it.";
static const char aead_ad_hex[] = "50515253c0c1c2c3c4c5c6c7";
static const char rfc8439_nonce_hex[] = "070000004041424344454647";
static const char rfc8439_sealed_hex[] =
    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
    "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
    "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
    "3ff4def08e4b7a9de576d26586cec64b6116"
    "1ae10b594f09e26a7e902ecbd0600691";
static const char xchacha_nonce_hex[] =
    "404142434445464748494a4b4c4d4e4f5051525354555657";
static const char xchacha_sealed_hex[] =
    "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
    "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
    "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
    "21f9664c97637da9768812f615c68b13b52e"
    "c0875924c1c7987947deafd8780acf49";

/* RFC 7693 appendix B: BLAKE2s-256("abc"). */
static const char blake2s_abc_hex[] =
    "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982";

/* Keyed BLAKE2s-256 of the empty message with key 00 01 ... 1f (the first
 * keyed answer of the BLAKE2 reference known-answer file). */
static const char blake2s_keyed_hex[] =
    "48a8997da407876b3d79c0d92325ad3b89cbb754d86ab71aee047ad345fd2c49";

/* HMAC-BLAKE2s with key 00 01 ... 1f of HMAC_MSG, computed with Python's
 * hmac and hashlib modules. */
#define HMAC_MSG "WireGuard self-test"
static const char hmac_blake2s_hex[] =
    "0623071091c5ae5affd1dd9702baa4f66bdea3846c27115c0c401efa1b1e8b1d";

/* RFC 7748 section 6.1. */
static const char x25519_alice_priv_hex[] =
    "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a";
static const char x25519_alice_pub_hex[] =
    "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a";
static const char x25519_bob_pub_hex[] =
    "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f";
static const char x25519_shared_hex[] =
    "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";

#define SEALED_LEN (SUNSCREEN_LEN + WG_AEAD_TAG_LEN)

/* Decodes exactly 'n' bytes of hex from 'hex' into 'out'. */
static void
unhex(const char *hex, uint8_t *out, size_t n)
{
    bool ok = strlen(hex) == 2 * n;

    for (size_t i = 0; ok && i < n; i++) {
        out[i] = hexits_value(hex + 2 * i, 2, &ok);
    }
    ovs_assert(ok);
}

/* True if the 'n' bytes at 'got' are the hex string 'hex'. */
static bool
equals_hex(const uint8_t *got, const char *hex, size_t n)
{
    uint8_t want[SEALED_LEN];

    ovs_assert(n <= sizeof want);
    unhex(hex, want, n);
    return !memcmp(got, want, n);
}

/* Key 00 01 ... 1f (base 0) or 80 81 ... 9f (base 0x80). */
static void
sequence_key(uint8_t key[WG_KEY_LEN], uint8_t base)
{
    for (int i = 0; i < WG_KEY_LEN; i++) {
        key[i] = base + i;
    }
}

/* Hashes. */

static bool
check_blake2s(void)
{
    uint8_t md[WG_HASH_LEN];

    return (wg_crypto_hash(md, "abc", 3, NULL, 0)
            && equals_hex(md, blake2s_abc_hex, sizeof md));
}

static bool
check_keyed_blake2s(void)
{
    uint8_t key[WG_KEY_LEN], md[WG_HASH_LEN];

    sequence_key(key, 0);
    return (wg_crypto_keyed_hash(md, sizeof md, key, sizeof key, NULL, 0)
            && equals_hex(md, blake2s_keyed_hex, sizeof md));
}

static bool
check_hmac_blake2s(void)
{
    uint8_t key[WG_KEY_LEN], mac[WG_HASH_LEN];

    sequence_key(key, 0);
    return (wg_crypto_hmac(mac, key, sizeof key, HMAC_MSG, strlen(HMAC_MSG))
            && equals_hex(mac, hmac_blake2s_hex, sizeof mac));
}

/* X25519. */

static bool
check_x25519(void)
{
    uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN], shared[WG_KEY_LEN];
    bool ok;

    unhex(x25519_alice_priv_hex, priv, sizeof priv);
    ok = (wg_crypto_public_key(pub, priv)
          && equals_hex(pub, x25519_alice_pub_hex, sizeof pub));
    unhex(x25519_bob_pub_hex, pub, sizeof pub);
    ok = (ok && wg_crypto_dh(shared, priv, pub)
          && equals_hex(shared, x25519_shared_hex, sizeof shared));
    wg_crypto_wipe(priv, sizeof priv);
    return ok;
}

/* ChaCha20-Poly1305 on a data-path key (struct wg_aead_key). */

/* Opens 'sealed' (SEALED_LEN bytes) with the RFC 8439 key, nonce and
 * additional data, after flipping bit 'flip_bit' of it unless it is
 * negative.  Returns true if it opened to the RFC's plaintext. */
static bool
rfc8439_open(const uint8_t *sealed, int flip_bit)
{
    uint8_t key[WG_KEY_LEN], nonce[WG_AEAD_NONCE_LEN], ad[12];
    uint8_t msg[SEALED_LEN], out[SEALED_LEN];
    struct wg_aead_key *k;
    bool ok;

    sequence_key(key, 0x80);
    unhex(rfc8439_nonce_hex, nonce, sizeof nonce);
    unhex(aead_ad_hex, ad, sizeof ad);
    memcpy(msg, sealed, sizeof msg);
    if (flip_bit >= 0) {
        msg[flip_bit / 8] ^= 1u << (flip_bit % 8);
    }
    k = wg_aead_key_create(key);
    ok = (k && wg_aead_open_nonce(k, nonce, out, msg, sizeof msg,
                                  ad, sizeof ad)
          && !memcmp(out, sunscreen, SUNSCREEN_LEN));
    wg_aead_key_destroy(k);
    return ok;
}

static bool
check_aead_seal(void)
{
    uint8_t key[WG_KEY_LEN], nonce[WG_AEAD_NONCE_LEN], ad[12];
    uint8_t sealed[SEALED_LEN];
    struct wg_aead_key *k;
    bool ok;

    sequence_key(key, 0x80);
    unhex(rfc8439_nonce_hex, nonce, sizeof nonce);
    unhex(aead_ad_hex, ad, sizeof ad);
    k = wg_aead_key_create(key);
    ok = (k && wg_aead_seal_nonce(k, nonce, sealed,
                                  (const uint8_t *) sunscreen, SUNSCREEN_LEN,
                                  ad, sizeof ad)
          && equals_hex(sealed, rfc8439_sealed_hex, sizeof sealed));
    wg_aead_key_destroy(k);
    return ok;
}

static bool
check_aead_open(void)
{
    uint8_t sealed[SEALED_LEN];

    unhex(rfc8439_sealed_hex, sealed, sizeof sealed);
    return rfc8439_open(sealed, -1);
}

static bool
check_aead_rejects_tag_bit(void)
{
    uint8_t sealed[SEALED_LEN];

    unhex(rfc8439_sealed_hex, sealed, sizeof sealed);
    return !rfc8439_open(sealed, 8 * (SEALED_LEN - 1) + 7);
}

static bool
check_aead_rejects_ciphertext_bit(void)
{
    uint8_t sealed[SEALED_LEN];

    unhex(rfc8439_sealed_hex, sealed, sizeof sealed);
    return !rfc8439_open(sealed, 8 * 40 + 3);
}

/* The one-shot form that handshake messages use, with WireGuard's counter
 * nonce: it must agree with the data-path key (already checked against the
 * RFC) and refuse a flipped tag bit. */
static bool
check_aead_once(void)
{
    const uint64_t counter = UINT64_C(0x0123456789abcdef);
    uint8_t key[WG_KEY_LEN], a[SEALED_LEN], b[SEALED_LEN], out[SEALED_LEN];
    struct wg_aead_key *k;
    bool ok;

    sequence_key(key, 0x80);
    k = wg_aead_key_create(key);
    ok = (k && wg_aead_seal(k, counter, a, (const uint8_t *) sunscreen,
                            SUNSCREEN_LEN, NULL, 0)
          && wg_crypto_aead_seal_once(key, counter, b,
                                      (const uint8_t *) sunscreen,
                                      SUNSCREEN_LEN, NULL, 0)
          && !memcmp(a, b, sizeof a)
          && wg_crypto_aead_open_once(key, counter, out, b, sizeof b,
                                      NULL, 0));
    b[sizeof b - 1] ^= 0x80;
    ok = ok && !wg_crypto_aead_open_once(key, counter, out, b, sizeof b,
                                         NULL, 0);
    wg_aead_key_destroy(k);
    return ok;
}

/* XChaCha20-Poly1305. */

static bool
check_xaead(void)
{
    uint8_t key[WG_KEY_LEN], nonce[WG_XAEAD_NONCE_LEN], ad[12];
    uint8_t sealed[SEALED_LEN], out[SEALED_LEN];
    bool ok;

    sequence_key(key, 0x80);
    unhex(xchacha_nonce_hex, nonce, sizeof nonce);
    unhex(aead_ad_hex, ad, sizeof ad);
    ok = (wg_crypto_xaead_seal(sealed, (const uint8_t *) sunscreen,
                               SUNSCREEN_LEN, ad, sizeof ad, nonce, key)
          && equals_hex(sealed, xchacha_sealed_hex, sizeof sealed)
          && wg_crypto_xaead_open(out, sealed, sizeof sealed, ad, sizeof ad,
                                  nonce, key)
          && !memcmp(out, sunscreen, SUNSCREEN_LEN));
    sealed[sizeof sealed - 1] ^= 0x01;
    return ok && !wg_crypto_xaead_open(out, sealed, sizeof sealed,
                                       ad, sizeof ad, nonce, key);
}

static const struct {
    const char *name;
    bool (*run)(void);
} checks[] = {
    { "BLAKE2s-256 (RFC 7693 appendix B)", check_blake2s },
    { "keyed BLAKE2s (BLAKE2 known answer)", check_keyed_blake2s },
    { "HMAC-BLAKE2s (known answer)", check_hmac_blake2s },
    { "X25519 (RFC 7748 section 6.1)", check_x25519 },
    { "ChaCha20-Poly1305 seal (RFC 8439 section 2.8.2)", check_aead_seal },
    { "ChaCha20-Poly1305 open (RFC 8439 section 2.8.2)", check_aead_open },
    { "ChaCha20-Poly1305 rejects a flipped tag bit",
      check_aead_rejects_tag_bit },
    { "ChaCha20-Poly1305 rejects a flipped ciphertext bit",
      check_aead_rejects_ciphertext_bit },
    { "ChaCha20-Poly1305 one-shot (handshake) form", check_aead_once },
    { "XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 A.3.1)", check_xaead },
};

size_t
wg_crypto_selftest_n_checks(void)
{
    return ARRAY_SIZE(checks);
}

const char *
wg_crypto_selftest_run(void)
{
    if (wg_crypto_init()) {
        return "crypto library initialization";
    }
    for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
        if (!checks[i].run()) {
            return checks[i].name;
        }
    }
    return NULL;
}

const char *
wg_crypto_selftest(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    static const char *failed;

    if (ovsthread_once_start(&once)) {
        failed = wg_crypto_selftest_run();
        if (failed) {
            VLOG_ERR("crypto self-test failed: %s; no wireguard port will "
                     "be created", failed);
        } else {
            VLOG_INFO("crypto self-test passed (%"PRIuSIZE" checks; %s)",
                      ARRAY_SIZE(checks), wg_crypto_describe());
        }
        ovsthread_once_done(&once);
    }
    return failed;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

const char *
wg_crypto_selftest_check_name_for_test(size_t i)
{
    return i < ARRAY_SIZE(checks) ? checks[i].name : NULL;
}
#endif
