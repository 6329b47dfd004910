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

#ifndef WG_CRYPTO_PRIVATE_H
#define WG_CRYPTO_PRIVATE_H 1

/* Between the files of the crypto seam (wg-crypto.c, wg-crypto-hash.c,
 * wg-crypto-evp.c); nothing else includes this header. */

#include <stdbool.h>
#include <stdint.h>

#include <openssl/evp.h>

/* Fetches the hash and MAC objects from OpenSSL, once.  Returns false if
 * OpenSSL lacks BLAKE2s-256, keyed BLAKE2s or HMAC. */
bool wg_crypto_hash_init(void);

/* Counts a library failure in 'what' (coverage counter wg_crypto_failure),
 * logs it (rate-limited, never data) and clears OpenSSL's error queue of
 * this thread. */
void wg_crypto_count_failure(const char *what);

/* OpenSSL contexts per thread (wg-crypto-evp.c).  A key that seals or opens
 * through them is named by a number from wg_crypto_evp_new_id() (never 0,
 * never given twice). */
uint64_t wg_crypto_evp_new_id(void);

/* The calling thread's context for direction 'enc' (else decryption) of
 * the key named 'id', whose 32 bytes are 'key', of cipher 'cipher': keyed
 * for it, or NULL on library failure.  The context serves until the
 * thread's next call. */
EVP_CIPHER_CTX *wg_crypto_evp_ctx(uint64_t id, const uint8_t *key,
                                  const EVP_CIPHER *cipher, bool enc);

#endif /* wg-crypto-private.h */
