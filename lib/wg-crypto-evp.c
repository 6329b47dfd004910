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
#include "wg-crypto-private.h"

#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "util.h"

/* OpenSSL contexts per thread, for the data path's keys (wg-crypto.c).
 *
 * A context serves one call at a time, so each thread keeps its own,
 * WG_CRYPTO_EVP_SLOTS per direction, each keyed for the key whose number
 * it holds and keyed again (EVP_CipherInit_ex2() with the new key) when
 * the slot serves another key.  A thread sealing to a few peers finds
 * their keys in place, and no thread waits for another, where one context
 * per key needed a lock around every seal and open.  A slot keeps its
 * key's schedule until it is keyed again or its thread exits, when the
 * context is freed (which clears it). */

#define WG_CRYPTO_EVP_SLOTS 8

struct wg_crypto_evp_thread {
    uint64_t id[2][WG_CRYPTO_EVP_SLOTS];    /* [enc][slot]; 0: unkeyed. */
    EVP_CIPHER_CTX *ctx[2][WG_CRYPTO_EVP_SLOTS];
};

static ovsthread_key_t wg_crypto_evp_key;
static atomic_uint64_t wg_crypto_evp_next_id = 1;

uint64_t
wg_crypto_evp_new_id(void)
{
    uint64_t id;

    atomic_add_relaxed(&wg_crypto_evp_next_id, 1, &id);
    return id;
}

static void
wg_crypto_evp_thread_free(void *t_)
{
    struct wg_crypto_evp_thread *t = t_;

    for (size_t enc = 0; enc < 2; enc++) {
        for (size_t i = 0; i < WG_CRYPTO_EVP_SLOTS; i++) {
            EVP_CIPHER_CTX_free(t->ctx[enc][i]);
        }
    }
    free(t);
}

/* The calling thread's contexts, allocated on first use. */
static struct wg_crypto_evp_thread *
wg_crypto_evp_thread_get(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;
    struct wg_crypto_evp_thread *t;

    if (ovsthread_once_start(&once)) {
        ovsthread_key_create(&wg_crypto_evp_key, wg_crypto_evp_thread_free);
        ovsthread_once_done(&once);
    }
    t = ovsthread_getspecific(wg_crypto_evp_key);
    if (!t) {
        t = xzalloc(sizeof *t);
        ovsthread_setspecific(wg_crypto_evp_key, t);
    }
    return t;
}

EVP_CIPHER_CTX *
wg_crypto_evp_ctx(uint64_t id, const uint8_t *key, const EVP_CIPHER *cipher,
                  bool enc)
{
    struct wg_crypto_evp_thread *t = wg_crypto_evp_thread_get();
    size_t slot = id % WG_CRYPTO_EVP_SLOTS;
    EVP_CIPHER_CTX **ctx = &t->ctx[enc][slot];

    if (t->id[enc][slot] != id) {
        t->id[enc][slot] = 0;
        if (!*ctx) {
            *ctx = EVP_CIPHER_CTX_new();
        }
        if (!*ctx
            || EVP_CipherInit_ex2(*ctx, cipher, key, NULL, enc, NULL) != 1) {
            return NULL;
        }
        t->id[enc][slot] = id;
    }
    return *ctx;
}
