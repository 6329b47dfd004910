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
#include "wg-crypto.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <sodium.h>

#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "util.h"
#include "wg-crypto-private.h"
#include "wg-test-hooks.h"
#ifdef WG_HAVE_IPSEC_MB
#include "wg-aead-ipsecmb.h"
#endif

VLOG_DEFINE_THIS_MODULE(wg_crypto);

/* Library objects fetched once by wg_crypto_init() and shared by every
 * thread (OpenSSL reference-counts them; creating contexts from them is
 * thread-safe).  'ok' is false if initialization failed.  The hash
 * functions keep theirs in wg-crypto-hash.c. */
static struct {
    bool ok;
    EVP_CIPHER *chacha;         /* ChaCha20-Poly1305. */
    enum wg_crypto_aead_backend backend;    /* For keys created next. */
} wg_crypto;

/* Per key, for the backend chosen when it was created, the key itself
 * (intel-ipsec-mb's jobs take the raw key, followed by the room the library
 * may read; OpenSSL contexts are keyed from it) and, for OpenSSL, the
 * number that names it in the threads' contexts (wg_crypto_evp_ctx()).
 * A key seals or opens on any number of threads at once.  The one-shot
 * forms for handshake messages use a key of their own on the stack with
 * its own context ('once'), on one thread. */
#ifdef WG_HAVE_IPSEC_MB
#define WG_AEAD_RAW_ROOM WG_AEAD_IPSECMB_KEY_ROOM
#else
#define WG_AEAD_RAW_ROOM WG_KEY_LEN
#endif
struct wg_aead_key {
    enum wg_crypto_aead_backend backend;
    uint64_t id;                /* OpenSSL: never 0, never reused. */
    EVP_CIPHER_CTX *once;       /* One-shot forms only. */
    uint8_t raw[WG_AEAD_RAW_ROOM];
};

/* Reports a library failure in 'what' (counted, logged, never data). */
static void
wg_crypto_log_failure(const char *what)
{
    wg_crypto_count_failure(what);
}

static bool
wg_crypto_aead_backend_works(enum wg_crypto_aead_backend backend)
{
    return (backend == WG_CRYPTO_AEAD_OPENSSL
#ifdef WG_HAVE_IPSEC_MB
            || (backend == WG_CRYPTO_AEAD_IPSECMB
                && wg_aead_ipsecmb_available())
#endif
            );
}

/* intel-ipsec-mb where it is built in and runs on this CPU, else OpenSSL. */
static enum wg_crypto_aead_backend
wg_crypto_aead_backend_best(void)
{
    return (wg_crypto_aead_backend_works(WG_CRYPTO_AEAD_IPSECMB)
            ? WG_CRYPTO_AEAD_IPSECMB : WG_CRYPTO_AEAD_OPENSSL);
}

static bool
wg_crypto_fetch_all(void)
{
    wg_crypto.chacha = EVP_CIPHER_fetch(NULL, "ChaCha20-Poly1305", NULL);
    return wg_crypto.chacha && wg_crypto_hash_init();
}

int
wg_crypto_init(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        if (sodium_init() < 0) {
            VLOG_ERR("libsodium initialization failed");
        } else if (!wg_crypto_fetch_all()) {
            wg_crypto_log_failure("fetching BLAKE2s and ChaCha20-Poly1305 "
                                  "from OpenSSL");
        } else {
            wg_crypto.ok = true;
            wg_crypto.backend = wg_crypto_aead_backend_best();
        }
        ovsthread_once_done(&once);
    }
    return wg_crypto.ok ? 0 : -1;
}

void
wg_crypto_log_config(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        const char *ia32cap = getenv("OPENSSL_ia32cap");

        VLOG_INFO("%s; %s; CPU features: %s%s",
                  OpenSSL_version(OPENSSL_VERSION), wg_crypto_describe(),
                  ia32cap ? "OPENSSL_ia32cap=" : "OpenSSL's own choice",
                  ia32cap ? ia32cap : "");
        ovsthread_once_done(&once);
    }
}

const char *
wg_crypto_describe(void)
{
    static char buf[128];

#ifdef WG_TEST_HOOKS
    if (wg_test_aead_broken()) {
        return "data-path ChaCha20-Poly1305: deliberately broken by a test "
               "hook";
    }
#endif
#ifdef WG_HAVE_IPSEC_MB
    if (wg_crypto.backend == WG_CRYPTO_AEAD_IPSECMB) {
        snprintf(buf, sizeof buf, "data-path ChaCha20-Poly1305: "
                 "intel-ipsec-mb %s, %s code", wg_aead_ipsecmb_version(),
                 wg_aead_ipsecmb_arch());
        return buf;
    }
#endif
    return "data-path ChaCha20-Poly1305: OpenSSL EVP";
}

const char *
wg_crypto_library_versions(void)
{
    static char buf[160];

    snprintf(buf, sizeof buf, "%s, libsodium %s%s%s",
             OpenSSL_version(OPENSSL_VERSION), sodium_version_string(),
#ifdef WG_HAVE_IPSEC_MB
             ", intel-ipsec-mb ", wg_aead_ipsecmb_version()
#else
             "", ""
#endif
             );
    return buf;
}

const char *
wg_crypto_aead_backend_name(enum wg_crypto_aead_backend backend)
{
    return backend == WG_CRYPTO_AEAD_IPSECMB ? "ipsec-mb" : "openssl";
}

bool
wg_crypto_aead_backend_from_name(const char *name,
                                 enum wg_crypto_aead_backend *backend)
{
    if (!strcmp(name, "openssl")) {
        *backend = WG_CRYPTO_AEAD_OPENSSL;
    } else if (!strcmp(name, "ipsec-mb")) {
        *backend = WG_CRYPTO_AEAD_IPSECMB;
    } else {
        return false;
    }
    return true;
}

bool
wg_crypto_aead_backend_usable(enum wg_crypto_aead_backend backend)
{
    return !wg_crypto_init() && wg_crypto_aead_backend_works(backend);
}

enum wg_crypto_aead_backend
wg_crypto_aead_default(void)
{
    return wg_crypto_init() ? WG_CRYPTO_AEAD_OPENSSL : wg_crypto.backend;
}

bool
wg_crypto_set_aead_backend(enum wg_crypto_aead_backend backend)
{
    if (wg_crypto_init() || !wg_crypto_aead_backend_works(backend)) {
        return false;
    }
    wg_crypto.backend = backend;
    return true;
}

static bool
wg_crypto_ready(void)
{
    return !wg_crypto_init();
}


/* X25519. */

void
wg_crypto_generate_private_key(uint8_t priv[WG_KEY_LEN])
{
    wg_crypto_random(priv, WG_KEY_LEN);
    priv[0] &= 248;
    priv[31] &= 127;
    priv[31] |= 64;
}

bool
wg_crypto_public_key(uint8_t pub[WG_KEY_LEN], const uint8_t priv[WG_KEY_LEN])
{
    (void) wg_crypto_init();
    if (sodium_is_zero(priv, WG_KEY_LEN) == 1
        || crypto_scalarmult_base(pub, priv) != 0
        || sodium_is_zero(pub, WG_KEY_LEN) == 1) {
        wg_crypto_wipe(pub, WG_KEY_LEN);
        return false;
    }
    return true;
}

bool
wg_crypto_dh(uint8_t out[WG_KEY_LEN], const uint8_t priv[WG_KEY_LEN],
             const uint8_t pub[WG_KEY_LEN])
{
    (void) wg_crypto_init();

    /* libsodium already fails on low-order points and on an all-zero
     * result; the explicit check keeps that guarantee whatever the
     * library version. */
    if (crypto_scalarmult(out, priv, pub) != 0
        || sodium_is_zero(out, WG_KEY_LEN) == 1) {
        wg_crypto_wipe(out, WG_KEY_LEN);
        return false;
    }
    return true;
}

/* ChaCha20-Poly1305. */

/* Returns a new cipher context keyed with 'key' for encryption ('enc') or
 * decryption, or NULL on failure.  Does not check that the library is
 * initialized: wg_crypto_init() itself uses it. */
static EVP_CIPHER_CTX *
wg_aead_ctx_create__(const uint8_t key[WG_KEY_LEN], bool enc)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

    if (!ctx || EVP_CipherInit_ex2(ctx, wg_crypto.chacha, key, NULL, enc,
                                   NULL) != 1) {
        wg_crypto_log_failure("ChaCha20-Poly1305 key setup");
        EVP_CIPHER_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

static EVP_CIPHER_CTX *
wg_aead_ctx_create(const uint8_t key[WG_KEY_LEN], bool enc)
{
    return wg_crypto_ready() ? wg_aead_ctx_create__(key, enc) : NULL;
}

/* The calling thread's context for 'k' in direction 'enc', keyed for it,
 * or NULL on library failure. */
static EVP_CIPHER_CTX *
wg_aead_thread_ctx(const struct wg_aead_key *k, bool enc)
{
    return (k->once ? k->once
            : wg_crypto_evp_ctx(k->id, k->raw, wg_crypto.chacha, enc));
}

static struct wg_aead_key *
wg_aead_key_create__(enum wg_crypto_aead_backend backend,
                     const uint8_t key[WG_KEY_LEN])
{
    struct wg_aead_key *k = xzalloc(sizeof *k);

    k->backend = backend;
    memcpy(k->raw, key, WG_KEY_LEN);
    if (k->backend == WG_CRYPTO_AEAD_OPENSSL) {
        k->id = wg_crypto_evp_new_id();
        /* Keyed once here, so that a key the library refuses fails now. */
        if (!wg_aead_thread_ctx(k, true) || !wg_aead_thread_ctx(k, false)) {
            wg_crypto_log_failure("ChaCha20-Poly1305 key setup");
            wg_aead_key_destroy(k);
            return NULL;
        }
    }
    return k;
}

struct wg_aead_key *
wg_aead_key_create(const uint8_t key[WG_KEY_LEN])
{
    return wg_aead_key_create_with(wg_crypto_aead_default(), key);
}

struct wg_aead_key *
wg_aead_key_create_with(enum wg_crypto_aead_backend backend,
                        const uint8_t key[WG_KEY_LEN])
{
    return (wg_crypto_ready() && wg_crypto_aead_backend_works(backend)
            ? wg_aead_key_create__(backend, key) : NULL);
}

void
wg_aead_key_destroy(struct wg_aead_key *k)
{
    if (k) {
        wg_crypto_wipe(k, sizeof *k);
        free(k);
    }
}

#ifdef WG_TEST_HOOKS
/* The defect that wg_test_break_aead() brings back: the text is copied
 * instead of encrypted, the tag is all zeros, and any tag opens. */
static bool
wg_aead_seal_broken(uint8_t *dst, const uint8_t *src, size_t len)
{
    memmove(dst, src, len);
    memset(dst + len, 0, WG_AEAD_TAG_LEN);
    return true;
}

static bool
wg_aead_open_broken(uint8_t *dst, const uint8_t *src, size_t pt_len)
{
    memmove(dst, src, pt_len);
    return true;
}
#else
#define wg_aead_seal_broken(DST, SRC, LEN) false
#define wg_aead_open_broken(DST, SRC, LEN) false
#endif

/* One message through OpenSSL's documented AEAD interface (EVP_EncryptInit
 * (3), "AEAD Interface"): the keyed context gets the message's nonce, the
 * additional data and the text go through the update call, and the final
 * call computes the tag or, when decrypting, checks the tag set before it.
 * Every call is checked for its exact success value, 1: a finish that
 * returns anything else is a failure, never a success. */

/* Runs 'len' bytes of 'src' through 'ctx' into 'dst': additional data when
 * 'dst' is NULL, the message otherwise. */
static bool
wg_aead_update(EVP_CIPHER_CTX *ctx, uint8_t *dst, const uint8_t *src,
               size_t len)
{
    int out_len = -1;

    return (!len
            || (EVP_CipherUpdate(ctx, dst, &out_len, src, len) == 1
                && out_len == (int) len));
}

/* Seals on 'ctx' (keyed for encryption); the tag goes to dst + len. */
static bool
wg_aead_seal__(EVP_CIPHER_CTX *ctx, const uint8_t nonce[WG_AEAD_NONCE_LEN],
               uint8_t *dst, const uint8_t *src, size_t len,
               const uint8_t *ad, size_t ad_len)
{
    int final_len = -1;

    return (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce) == 1
            && wg_aead_update(ctx, NULL, ad, ad_len)
            && wg_aead_update(ctx, dst, src, len)
            && EVP_EncryptFinal_ex(ctx, dst + len, &final_len) == 1
            && final_len == 0
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG,
                                   WG_AEAD_TAG_LEN, dst + len) == 1);
}

/* Opens on 'ctx' (keyed for decryption) the 'pt_len' bytes of ciphertext
 * at 'src' that the tag follows.  False if the tag does not verify. */
static bool
wg_aead_open__(EVP_CIPHER_CTX *ctx, const uint8_t nonce[WG_AEAD_NONCE_LEN],
               uint8_t *dst, const uint8_t *src, size_t pt_len,
               const uint8_t *ad, size_t ad_len)
{
    uint8_t tag[WG_AEAD_TAG_LEN];
    int final_len = -1;

    /* Copied first: a plaintext written in place must not overwrite it. */
    memcpy(tag, src + pt_len, sizeof tag);
    return (EVP_DecryptInit_ex(ctx, NULL, NULL, NULL, nonce) == 1
            && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG,
                                   WG_AEAD_TAG_LEN, tag) == 1
            && wg_aead_update(ctx, NULL, ad, ad_len)
            && wg_aead_update(ctx, dst, src, pt_len)
            && EVP_DecryptFinal_ex(ctx, dst + pt_len, &final_len) == 1
            && final_len == 0);
}

#ifdef WG_HAVE_IPSEC_MB
/* intel-ipsec-mb computes the tag but does not check it: the received tag
 * is compared here, in constant time. */
static bool
wg_aead_open_ipsecmb(const struct wg_aead_key *k,
                     const uint8_t nonce[WG_AEAD_NONCE_LEN], uint8_t *dst,
                     const uint8_t *src, size_t pt_len,
                     const uint8_t *ad, size_t ad_len)
{
    uint8_t tag[WG_AEAD_TAG_LEN], received[WG_AEAD_TAG_LEN];
    bool ok;

    /* Copied first: a plaintext written in place must not overwrite it. */
    memcpy(received, src + pt_len, sizeof received);
    ok = (wg_aead_ipsecmb_run(k->raw, nonce, false, dst, src, pt_len,
                              ad, ad_len, tag)
          && wg_crypto_equal(tag, received, sizeof tag));
    wg_crypto_wipe(tag, sizeof tag);
    return ok;
}
#endif

static bool
wg_aead_seal_backend(const struct wg_aead_key *k,
                     const uint8_t nonce[WG_AEAD_NONCE_LEN], uint8_t *dst,
                     const uint8_t *src, size_t len,
                     const uint8_t *ad, size_t ad_len)
{
#ifdef WG_HAVE_IPSEC_MB
    if (k->backend == WG_CRYPTO_AEAD_IPSECMB) {
        return wg_aead_ipsecmb_run(k->raw, nonce, true, dst, src, len,
                                   ad, ad_len, dst + len);
    }
#endif
    EVP_CIPHER_CTX *ctx = wg_aead_thread_ctx(k, true);

    return ctx && wg_aead_seal__(ctx, nonce, dst, src, len, ad, ad_len);
}

static bool
wg_aead_open_backend(const struct wg_aead_key *k,
                     const uint8_t nonce[WG_AEAD_NONCE_LEN], uint8_t *dst,
                     const uint8_t *src, size_t pt_len,
                     const uint8_t *ad, size_t ad_len)
{
#ifdef WG_HAVE_IPSEC_MB
    if (k->backend == WG_CRYPTO_AEAD_IPSECMB) {
        return wg_aead_open_ipsecmb(k, nonce, dst, src, pt_len, ad, ad_len);
    }
#endif
    EVP_CIPHER_CTX *ctx = wg_aead_thread_ctx(k, false);

    return ctx && wg_aead_open__(ctx, nonce, dst, src, pt_len, ad, ad_len);
}

bool
wg_aead_seal_nonce(struct wg_aead_key *k,
                   const uint8_t nonce[WG_AEAD_NONCE_LEN],
                   uint8_t *dst, const uint8_t *src, size_t len,
                   const uint8_t *ad, size_t ad_len)
{
    if (len > INT_MAX || ad_len > INT_MAX) {
        return false;
    }
    if (wg_test_aead_broken()) {
        return wg_aead_seal_broken(dst, src, len);
    }
    if (!wg_aead_seal_backend(k, nonce, dst, src, len, ad, ad_len)) {
        wg_crypto_log_failure("ChaCha20-Poly1305 encryption");
        return false;
    }
    return true;
}

bool
wg_aead_open_nonce(struct wg_aead_key *k,
                   const uint8_t nonce[WG_AEAD_NONCE_LEN],
                   uint8_t *dst, const uint8_t *src, size_t len,
                   const uint8_t *ad, size_t ad_len)
{
    size_t pt_len = len - WG_AEAD_TAG_LEN;

    if (len < WG_AEAD_TAG_LEN || pt_len > INT_MAX || ad_len > INT_MAX) {
        return false;
    }
    if (wg_test_aead_broken()) {
        return wg_aead_open_broken(dst, src, pt_len);
    }
    if (!wg_aead_open_backend(k, nonce, dst, src, pt_len, ad, ad_len)) {
        /* Expected under attack: the caller counts it, nothing is logged
         * here, and no unauthenticated plaintext stays in 'dst'. */
        wg_crypto_wipe(dst, pt_len);
        ERR_clear_error();
        return false;
    }
    return true;
}

/* WireGuard's nonce: 4 zero bytes, then 'counter' in little-endian. */
static void
wg_aead_counter_nonce(uint8_t nonce[WG_AEAD_NONCE_LEN], uint64_t counter)
{
    memset(nonce, 0, 4);
    for (int i = 0; i < 8; i++) {
        nonce[4 + i] = counter >> (8 * i);
    }
}

bool
wg_aead_seal(struct wg_aead_key *k, uint64_t counter,
             uint8_t *dst, const uint8_t *src, size_t len,
             const uint8_t *ad, size_t ad_len)
{
    uint8_t nonce[WG_AEAD_NONCE_LEN];

    wg_aead_counter_nonce(nonce, counter);
    return wg_aead_seal_nonce(k, nonce, dst, src, len, ad, ad_len);
}

/* Only a text without padding is sealed straight from 'src' (one call of
 * the library, from 'src' to 'dst'): one with padding is copied first, then
 * sealed in place, as every other way measured slower (see
 * Documentation/topics/performance.rst, "Encrypting from the packet"). */
bool
wg_aead_seal_padded(struct wg_aead_key *k, uint64_t counter, uint8_t *dst,
                    const uint8_t *src, size_t len, size_t pad_len)
{
    if (pad_len > WG_AEAD_PAD_MAX || len > INT_MAX - WG_AEAD_PAD_MAX) {
        return false;
    } else if (!pad_len) {
        return wg_aead_seal(k, counter, dst, src, len, NULL, 0);
    } else if (src != dst) {
        memcpy(dst, src, len);
    }
    memset(dst + len, 0, pad_len);
    return wg_aead_seal(k, counter, dst, dst, len + pad_len, NULL, 0);
}

bool
wg_aead_open(struct wg_aead_key *k, uint64_t counter,
             uint8_t *dst, const uint8_t *src, size_t len,
             const uint8_t *ad, size_t ad_len)
{
    uint8_t nonce[WG_AEAD_NONCE_LEN];

    wg_aead_counter_nonce(nonce, counter);
    return wg_aead_open_nonce(k, nonce, dst, src, len, ad, ad_len);
}

bool
wg_crypto_aead_seal_once(const uint8_t key[WG_KEY_LEN], uint64_t counter,
                         uint8_t *dst, const uint8_t *src, size_t len,
                         const uint8_t *ad, size_t ad_len)
{
    struct wg_aead_key k = { .once = wg_aead_ctx_create(key, true) };
    bool ok;

    ok = k.once && wg_aead_seal(&k, counter, dst, src, len, ad, ad_len);
    EVP_CIPHER_CTX_free(k.once);
    return ok;
}

bool
wg_crypto_aead_open_once(const uint8_t key[WG_KEY_LEN], uint64_t counter,
                         uint8_t *dst, const uint8_t *src, size_t len,
                         const uint8_t *ad, size_t ad_len)
{
    struct wg_aead_key k = { .once = wg_aead_ctx_create(key, false) };
    bool ok;

    ok = k.once && wg_aead_open(&k, counter, dst, src, len, ad, ad_len);
    EVP_CIPHER_CTX_free(k.once);
    return ok;
}

/* XChaCha20-Poly1305. */

bool
wg_crypto_xaead_seal(uint8_t *dst, const uint8_t *src, size_t len,
                     const uint8_t *ad, size_t ad_len,
                     const uint8_t nonce[WG_XAEAD_NONCE_LEN],
                     const uint8_t key[WG_KEY_LEN])
{
    if (wg_crypto_ready()
        && !wg_test_fault(WG_TEST_FAULT_XAEAD_SEAL)
        && !crypto_aead_xchacha20poly1305_ietf_encrypt_detached(
            dst, dst + len, NULL, src, len, ad, ad_len, NULL, nonce, key)) {
        return true;
    }
    wg_crypto_wipe(dst, len + WG_AEAD_TAG_LEN);
    wg_crypto_log_failure("XChaCha20-Poly1305 encryption");
    return false;
}

bool
wg_crypto_xaead_open(uint8_t *dst, const uint8_t *src, size_t len,
                     const uint8_t *ad, size_t ad_len,
                     const uint8_t nonce[WG_XAEAD_NONCE_LEN],
                     const uint8_t key[WG_KEY_LEN])
{
    size_t ct_len = len - WG_AEAD_TAG_LEN;

    (void) wg_crypto_init();
    return (len >= WG_AEAD_TAG_LEN
            && crypto_aead_xchacha20poly1305_ietf_decrypt_detached(
                dst, NULL, src, ct_len, src + ct_len, ad, ad_len, nonce,
                key) == 0);
}

/* Utilities. */

void
wg_crypto_random(void *buf, size_t len)
{
    (void) wg_crypto_init();
    randombytes_buf(buf, len);
}

bool
wg_crypto_equal(const void *a, const void *b, size_t len)
{
    return sodium_memcmp(a, b, len) == 0;
}

bool
wg_crypto_is_zero(const void *buf, size_t len)
{
    return sodium_is_zero(buf, len) == 1;
}

void
wg_crypto_wipe(void *buf, size_t len)
{
    sodium_memzero(buf, len);
}

void
wg_crypto_key_to_base64(char out[WG_KEY_B64_LEN],
                        const uint8_t key[WG_KEY_LEN])
{
    sodium_bin2base64(out, WG_KEY_B64_LEN, key, WG_KEY_LEN,
                      sodium_base64_VARIANT_ORIGINAL);
}

bool
wg_crypto_key_from_base64(uint8_t key[WG_KEY_LEN], const char *b64)
{
    size_t b64_len = b64 ? strlen(b64) : 0;
    size_t bin_len = 0;
    const char *end = NULL;

    /* libsodium rejects bad characters, misplaced padding and non-zero
     * trailing bits; the lengths pin the form to exactly 44 characters
     * that decode to 32 bytes. */
    if (b64_len != WG_KEY_B64_LEN - 1
        || sodium_base642bin(key, WG_KEY_LEN, b64, b64_len, NULL, &bin_len,
                             &end, sodium_base64_VARIANT_ORIGINAL)
        || bin_len != WG_KEY_LEN || end != b64 + b64_len) {
        wg_crypto_wipe(key, WG_KEY_LEN);
        return false;
    }
    return true;
}

void
wg_crypto_key_to_hex(char out[WG_KEY_HEX_LEN], const uint8_t key[WG_KEY_LEN])
{
    sodium_bin2hex(out, WG_KEY_HEX_LEN, key, WG_KEY_LEN);
}

bool
wg_crypto_key_from_hex(uint8_t key[WG_KEY_LEN], const char *hex)
{
    size_t hex_len = hex ? strlen(hex) : 0;
    size_t bin_len = 0;
    const char *end = NULL;

    if (hex_len != WG_KEY_HEX_LEN - 1
        || sodium_hex2bin(key, WG_KEY_LEN, hex, hex_len, NULL, &bin_len,
                          &end)
        || bin_len != WG_KEY_LEN || end != hex + hex_len) {
        wg_crypto_wipe(key, WG_KEY_LEN);
        return false;
    }
    return true;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

enum wg_crypto_aead_backend
wg_crypto_get_aead_backend_for_test(void)
{
    (void) wg_crypto_init();
    return wg_crypto.backend;
}
#endif
