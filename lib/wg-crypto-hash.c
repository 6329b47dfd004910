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

/* The hash functions of wg-crypto.h: BLAKE2s-256, keyed BLAKE2s,
 * HMAC-BLAKE2s and WireGuard's KDF, all on OpenSSL 3 (EVP_MD "BLAKE2S-256",
 * EVP_MAC "BLAKE2SMAC" and EVP_MAC "HMAC" with that digest).  Each function
 * returns true only if every library call returned its exact success
 * value; on a failure it wipes its output, counts the failure
 * (wg_crypto_failure) and logs it, and the caller must abandon what it was
 * computing.  This file calls no other file of lib/ except the test hooks,
 * so that wg-crypto.c can check these objects at start-up. */

#include <config.h>
#include "wg-crypto.h"
#include "wg-crypto-private.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <string.h>

#include "coverage.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "wg-test-hooks.h"

VLOG_DEFINE_THIS_MODULE(wg_crypto_hash);

COVERAGE_DEFINE(wg_crypto_failure);

/* Library objects fetched once and shared by every thread (OpenSSL
 * reference-counts them; creating contexts from them is thread-safe). */
static struct {
    bool ok;
    EVP_MD *blake2s;            /* BLAKE2S-256. */
    EVP_MAC *blake2s_mac;       /* BLAKE2SMAC (keyed BLAKE2s). */
    EVP_MAC *hmac;              /* HMAC, used with BLAKE2S-256. */
} wg_hash;

static struct vlog_rate_limit wg_hash_rl = VLOG_RATE_LIMIT_INIT(5, 5);

void
wg_crypto_count_failure(const char *what)
{
    unsigned long err = ERR_peek_last_error();

    COVERAGE_INC(wg_crypto_failure);
    VLOG_ERR_RL(&wg_hash_rl, "%s failed: %s", what,
                err ? ERR_reason_error_string(err) : "unknown error");
    ERR_clear_error();
}

/* Wipes 'len' bytes of 'out' after a failure in 'what' and returns false. */
static bool
wg_hash_fail(void *out, size_t len, const char *what)
{
    OPENSSL_cleanse(out, len);
    wg_crypto_count_failure(what);
    return false;
}

bool
wg_crypto_hash_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        wg_hash.blake2s = EVP_MD_fetch(NULL, "BLAKE2S-256", NULL);
        wg_hash.blake2s_mac = EVP_MAC_fetch(NULL, "BLAKE2SMAC", NULL);
        wg_hash.hmac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_HMAC, NULL);
        wg_hash.ok = (wg_hash.blake2s && wg_hash.blake2s_mac && wg_hash.hmac
                      && EVP_MD_get_size(wg_hash.blake2s) == WG_HASH_LEN);
        ovsthread_once_done(&once);
    }
    return wg_hash.ok;
}

bool
wg_crypto_hash(uint8_t out[WG_HASH_LEN], const void *a, size_t a_len,
               const void *b, size_t b_len)
{
    EVP_MD_CTX *ctx = wg_crypto_hash_init() ? EVP_MD_CTX_new() : NULL;
    unsigned int out_len = 0;
    bool ok = (ctx
               && !wg_test_fault(WG_TEST_FAULT_HASH)
               && EVP_DigestInit_ex2(ctx, wg_hash.blake2s, NULL) == 1
               && (!a_len || EVP_DigestUpdate(ctx, a, a_len) == 1)
               && (!b_len || EVP_DigestUpdate(ctx, b, b_len) == 1)
               && EVP_DigestFinal_ex(ctx, out, &out_len) == 1
               && out_len == WG_HASH_LEN);

    EVP_MD_CTX_free(ctx);       /* OpenSSL clears the hash state. */
    return ok || wg_hash_fail(out, WG_HASH_LEN, "BLAKE2s");
}

/* Runs the MAC 'ctx' (initialized) over 'a' and 'b' into exactly 'out_len'
 * bytes of 'out'. */
static bool
wg_hash_mac_run(EVP_MAC_CTX *ctx, uint8_t *out, size_t out_len,
                const void *a, size_t a_len, const void *b, size_t b_len)
{
    size_t written = 0;

    return ((!a_len || EVP_MAC_update(ctx, a, a_len) == 1)
            && (!b_len || EVP_MAC_update(ctx, b, b_len) == 1)
            && EVP_MAC_final(ctx, out, &written, out_len) == 1
            && written == out_len);
}

bool
wg_crypto_keyed_hash(uint8_t *out, size_t out_len,
                     const uint8_t *key, size_t key_len,
                     const void *data, size_t data_len)
{
    EVP_MAC_CTX *ctx = NULL;
    size_t size = out_len;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
        OSSL_PARAM_construct_end(),
    };
    bool ok = (out_len >= 1 && out_len <= WG_HASH_LEN
               && key_len >= 1 && key_len <= WG_KEY_LEN
               && wg_crypto_hash_init()
               && !wg_test_fault(WG_TEST_FAULT_KEYED_HASH)
               && (ctx = EVP_MAC_CTX_new(wg_hash.blake2s_mac)) != NULL
               && EVP_MAC_init(ctx, key, key_len, params) == 1
               && wg_hash_mac_run(ctx, out, out_len, data, data_len,
                                  NULL, 0));

    EVP_MAC_CTX_free(ctx);      /* OpenSSL clears the key and state. */
    return ok || wg_hash_fail(out, out_len, "keyed BLAKE2s");
}

/* out = HMAC-BLAKE2s(key, a || b), OpenSSL's HMAC over its BLAKE2s-256. */
static bool
wg_hash_hmac2(uint8_t out[WG_HASH_LEN], const uint8_t *key, size_t key_len,
              const void *a, size_t a_len, const void *b, size_t b_len)
{
    static const uint8_t no_key[1];
    char digest[] = "BLAKE2S-256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    EVP_MAC_CTX *ctx = NULL;
    bool ok = (wg_crypto_hash_init()
               && !wg_test_fault(WG_TEST_FAULT_HMAC)
               && (ctx = EVP_MAC_CTX_new(wg_hash.hmac)) != NULL
               && EVP_MAC_init(ctx, key_len ? key : no_key, key_len,
                               params) == 1
               && wg_hash_mac_run(ctx, out, WG_HASH_LEN, a, a_len,
                                  b, b_len));

    EVP_MAC_CTX_free(ctx);      /* OpenSSL clears the key and state. */
    return ok || wg_hash_fail(out, WG_HASH_LEN, "HMAC-BLAKE2s");
}

bool
wg_crypto_hmac(uint8_t out[WG_HASH_LEN],
               const uint8_t *key, size_t key_len,
               const void *data, size_t data_len)
{
    return wg_hash_hmac2(out, key, key_len, data, data_len, NULL, 0);
}

/* Writes t1, t2, t3 of the KDF keyed with 't0' to the non-null 'outs'. */
static bool
wg_hash_kdf_expand(uint8_t *outs[3], int n, const uint8_t t0[WG_HASH_LEN])
{
    uint8_t t[WG_HASH_LEN];
    bool ok = true;

    for (int i = 0; ok && i < n; i++) {
        uint8_t ctr = i + 1;

        /* t_i = HMAC(t0, t_{i-1} || i), with an empty t_0 for i = 1. */
        ok = wg_hash_hmac2(t, t0, WG_HASH_LEN, t, i ? sizeof t : 0,
                           &ctr, 1);
        if (ok && outs[i]) {
            memcpy(outs[i], t, sizeof t);
        }
    }
    OPENSSL_cleanse(t, sizeof t);
    return ok;
}

bool
wg_crypto_kdf(uint8_t out1[WG_HASH_LEN], uint8_t out2[WG_HASH_LEN],
              uint8_t out3[WG_HASH_LEN],
              const uint8_t key[WG_HASH_LEN],
              const void *input, size_t input_len)
{
    uint8_t *outs[3] = { out1, out2, out3 };
    int n = out3 ? 3 : out2 ? 2 : out1 ? 1 : 0;
    uint8_t t0[WG_HASH_LEN];
    bool ok;

    ok = (wg_crypto_hmac(t0, key, WG_HASH_LEN, input, input_len)
          && wg_hash_kdf_expand(outs, n, t0));
    OPENSSL_cleanse(t0, sizeof t0);
    for (int i = 0; !ok && i < 3; i++) {
        if (outs[i]) {
            OPENSSL_cleanse(outs[i], WG_HASH_LEN);
        }
    }
    return ok;
}
