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

#ifndef WG_CRYPTO_H
#define WG_CRYPTO_H 1

/* The one seam between the WireGuard engine and its crypto libraries.
 *
 * The data-path ChaCha20-Poly1305 runs on intel-ipsec-mb where it is built
 * in (wg-aead-ipsecmb.h) or on OpenSSL 3 libcrypto (cipher contexts per
 * thread, keyed again only when a thread's slot serves another key, so that
 * no lock is taken); OpenSSL also provides the handshake's
 * ChaCha20-Poly1305, BLAKE2s-256, keyed BLAKE2s and HMAC-BLAKE2s.
 * libsodium provides X25519, XChaCha20-Poly1305 (cookies), randomness,
 * constant-time comparison and secure wiping.  Libraries are called only
 * through their documented API, every result checked against its exact
 * success value.  No primitive is implemented here by hand.
 *
 * Nothing in this file touches OVS packets; every function works on plain
 * buffers.  None of these functions logs key material. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/compiler.h"

#define WG_KEY_LEN 32           /* X25519 keys, symmetric keys. */
#define WG_HASH_LEN 32          /* BLAKE2s-256 output. */
#define WG_AEAD_TAG_LEN 16      /* Poly1305 tag. */
#define WG_AEAD_NONCE_LEN 12    /* ChaCha20-Poly1305 (RFC 8439) nonce. */
#define WG_XAEAD_NONCE_LEN 24   /* XChaCha20-Poly1305 nonce. */

/* Initializes the libraries.  Returns 0 on success, -1 if libsodium cannot
 * start or OpenSSL lacks BLAKE2s or ChaCha20-Poly1305.  Safe to call more
 * than once; every other function may assume it succeeded. */
int wg_crypto_init(void);

/* Logs, once per process, which OpenSSL does the bulk crypto: its version,
 * wg_crypto_describe() and the CPU features it was told to use
 * (OPENSSL_ia32cap). */
void wg_crypto_log_config(void);

/* The versions of the libraries in use, as they report them at run time. */
const char *wg_crypto_library_versions(void);

/* A one-line description of the data-path AEAD in use (backend, library
 * version, CPU code).  Not thread-safe. */
const char *wg_crypto_describe(void);

/* Data-path ChaCha20-Poly1305 (struct wg_aead_key) backends.  Handshake
 * messages (the one-shot forms below) always use OpenSSL. */
enum wg_crypto_aead_backend {
    WG_CRYPTO_AEAD_OPENSSL,     /* OpenSSL EVP; in every build. */
    WG_CRYPTO_AEAD_IPSECMB,     /* intel-ipsec-mb job API (x86-64 builds
                                 * with libipsec-mb); the default where it
                                 * is built in and runs. */
};

/* Chooses the backend of the keys created from now on (existing keys keep
 * theirs).  Returns false, changing nothing, if 'backend' is not in this
 * build or cannot run on this CPU. */
bool wg_crypto_set_aead_backend(enum wg_crypto_aead_backend backend);

#ifdef WG_TEST_HOOKS
/* Test-only (test builds, wg-test-hooks.h): the backend of new keys. */
enum wg_crypto_aead_backend wg_crypto_get_aead_backend_for_test(void);
#endif

/* "openssl" or "ipsec-mb". */
const char *wg_crypto_aead_backend_name(enum wg_crypto_aead_backend);

/* Stores in '*backend' the backend named 'name' ("openssl" or "ipsec-mb").
 * Returns false for any other name. */
bool wg_crypto_aead_backend_from_name(const char *name,
                                      enum wg_crypto_aead_backend *backend);

/* Whether 'backend' is in this build and runs on this CPU. */
bool wg_crypto_aead_backend_usable(enum wg_crypto_aead_backend backend);

/* The backend of the keys that wg_aead_key_create() makes: the best this
 * build and CPU have, unless wg_crypto_set_aead_backend() chose another. */
enum wg_crypto_aead_backend wg_crypto_aead_default(void);

/* Hashing (wg-crypto-hash.c).  Each function returns true on success.  On
 * a library failure it returns false with its output wiped, counts the
 * failure (coverage counter wg_crypto_failure) and logs it: the caller
 * must abandon what it was computing (fail closed), never use the output.
 * The same holds for every other function here that returns bool. */

/* out = BLAKE2s-256(a || b).  'b' may be NULL when 'b_len' is 0. */
OVS_WARN_UNUSED_RESULT
bool wg_crypto_hash(uint8_t out[WG_HASH_LEN], const void *a, size_t a_len,
                    const void *b, size_t b_len);

/* out = keyed BLAKE2s(key, data) truncated/parameterized to 'out_len' bytes
 * (1..32), as WireGuard's MAC(key, input) with out_len 16.  'key_len' is
 * 1..32. */
OVS_WARN_UNUSED_RESULT
bool wg_crypto_keyed_hash(uint8_t *out, size_t out_len,
                          const uint8_t *key, size_t key_len,
                          const void *data, size_t data_len);

/* out = HMAC-BLAKE2s(key, data) (OpenSSL's HMAC with BLAKE2S-256: block
 * size 64, 32-byte output). */
OVS_WARN_UNUSED_RESULT
bool wg_crypto_hmac(uint8_t out[WG_HASH_LEN],
                    const uint8_t *key, size_t key_len,
                    const void *data, size_t data_len);

/* WireGuard's KDF_n (HKDF with HMAC-BLAKE2s): t0 = HMAC(key, input),
 * t1 = HMAC(t0, 0x1), t2 = HMAC(t0, t1 || 0x2), t3 = HMAC(t0, t2 || 0x3).
 * Writes t1, t2, t3 to the non-null outputs among 'out1', 'out2', 'out3'
 * (an output is computed only if it or a later one is requested).
 * Intermediate values are wiped; on failure every requested output is
 * wiped too. */
OVS_WARN_UNUSED_RESULT
bool wg_crypto_kdf(uint8_t out1[WG_HASH_LEN], uint8_t out2[WG_HASH_LEN],
                   uint8_t out3[WG_HASH_LEN],
                   const uint8_t key[WG_HASH_LEN],
                   const void *input, size_t input_len);

/* X25519 (libsodium). */

/* Fills 'priv' with a fresh clamped private key. */
void wg_crypto_generate_private_key(uint8_t priv[WG_KEY_LEN]);

/* Computes the public key for 'priv'.  Returns false for a private key
 * whose public key would be invalid (e.g. all zeros). */
bool wg_crypto_public_key(uint8_t pub[WG_KEY_LEN],
                          const uint8_t priv[WG_KEY_LEN]);

/* out = X25519(priv, pub).  Returns false, with 'out' zeroed, when the
 * result is all zeros (low-order or otherwise invalid public key). */
bool wg_crypto_dh(uint8_t out[WG_KEY_LEN], const uint8_t priv[WG_KEY_LEN],
                  const uint8_t pub[WG_KEY_LEN]);

/* ChaCha20-Poly1305 on the data path, one reusable key object per key. */

struct wg_aead_key;

/* Creates a cipher context for 'key'.  Returns NULL only on allocation or
 * library failure.  The caller's copy of 'key' is not retained. */
struct wg_aead_key *wg_aead_key_create(const uint8_t key[WG_KEY_LEN]);

/* The same with 'backend' (which must be usable, see above) rather than
 * the default. */
struct wg_aead_key *wg_aead_key_create_with(
    enum wg_crypto_aead_backend backend, const uint8_t key[WG_KEY_LEN]);

/* Wipes and frees 'k' (NULL is allowed). */
void wg_aead_key_destroy(struct wg_aead_key *k);

/* Encrypts 'len' bytes from 'src' to 'dst' ('dst' == 'src' is allowed) and
 * appends the 16-byte tag at dst + len.  'nonce' is the full 12-byte RFC 8439
 * nonce.  Returns false on library failure. */
bool wg_aead_seal_nonce(struct wg_aead_key *k,
                        const uint8_t nonce[WG_AEAD_NONCE_LEN],
                        uint8_t *dst, const uint8_t *src, size_t len,
                        const uint8_t *ad, size_t ad_len);

/* Decrypts 'len' bytes (ciphertext plus 16-byte tag, len >= 16) from 'src'
 * to 'dst' (in place allowed), writing len - 16 bytes.  Returns false if the
 * tag does not verify; then the len - 16 bytes at 'dst' are zeros. */
bool wg_aead_open_nonce(struct wg_aead_key *k,
                        const uint8_t nonce[WG_AEAD_NONCE_LEN],
                        uint8_t *dst, const uint8_t *src, size_t len,
                        const uint8_t *ad, size_t ad_len);

/* Same as above with WireGuard's nonce: 32 zero bits followed by the
 * little-endian 64-bit 'counter'. */
bool wg_aead_seal(struct wg_aead_key *k, uint64_t counter,
                  uint8_t *dst, const uint8_t *src, size_t len,
                  const uint8_t *ad, size_t ad_len);
bool wg_aead_open(struct wg_aead_key *k, uint64_t counter,
                  uint8_t *dst, const uint8_t *src, size_t len,
                  const uint8_t *ad, size_t ad_len);

/* Seals the text of a WireGuard data message: the 'len' bytes at 'src'
 * followed by 'pad_len' zero bytes (at most WG_AEAD_PAD_MAX), with counter
 * nonce 'counter' and no additional data, writing len + pad_len bytes of
 * ciphertext to 'dst' and the 16-byte tag after them.  'src' is either
 * 'dst' (in place: the padding is zeroed there, then all is sealed) or
 * apart from the len + pad_len + 16 bytes at 'dst' and only read: a text
 * without padding is then sealed straight from 'src' into 'dst' (a packet
 * becomes its message without first being copied into the message buffer),
 * one with padding is copied to 'dst' and sealed there.  The ciphertext and
 * tag are the same bytes either way.  Returns false on library failure or a
 * 'pad_len' out of range. */
#define WG_AEAD_PAD_MAX 15
bool wg_aead_seal_padded(struct wg_aead_key *k, uint64_t counter,
                         uint8_t *dst, const uint8_t *src, size_t len,
                         size_t pad_len);

/* One-shot forms for handshake messages (key used once). */
bool wg_crypto_aead_seal_once(const uint8_t key[WG_KEY_LEN], uint64_t counter,
                              uint8_t *dst, const uint8_t *src, size_t len,
                              const uint8_t *ad, size_t ad_len);
bool wg_crypto_aead_open_once(const uint8_t key[WG_KEY_LEN], uint64_t counter,
                              uint8_t *dst, const uint8_t *src, size_t len,
                              const uint8_t *ad, size_t ad_len);

/* XChaCha20-Poly1305 (libsodium), for cookie replies.  Same buffer
 * conventions as wg_aead_seal()/wg_aead_open(); a failed seal wipes
 * 'len' + 16 bytes at 'dst'. */
OVS_WARN_UNUSED_RESULT
bool wg_crypto_xaead_seal(uint8_t *dst, const uint8_t *src, size_t len,
                          const uint8_t *ad, size_t ad_len,
                          const uint8_t nonce[WG_XAEAD_NONCE_LEN],
                          const uint8_t key[WG_KEY_LEN]);
bool wg_crypto_xaead_open(uint8_t *dst, const uint8_t *src, size_t len,
                          const uint8_t *ad, size_t ad_len,
                          const uint8_t nonce[WG_XAEAD_NONCE_LEN],
                          const uint8_t key[WG_KEY_LEN]);

/* Utilities (libsodium). */

/* Fills 'buf' with 'len' cryptographically random bytes. */
void wg_crypto_random(void *buf, size_t len);


/* Constant-time comparison of 'len' bytes: true if equal. */
bool wg_crypto_equal(const void *a, const void *b, size_t len);

/* Constant-time check that 'len' bytes are all zero. */
bool wg_crypto_is_zero(const void *buf, size_t len);

/* Overwrites 'len' bytes at 'buf' with zeros in a way the compiler cannot
 * elide. */
void wg_crypto_wipe(void *buf, size_t len);

/* Base64 of a 32-byte key (44 characters plus NUL), and back.  Returns false
 * on malformed input. */
#define WG_KEY_B64_LEN 45
void wg_crypto_key_to_base64(char out[WG_KEY_B64_LEN],
                             const uint8_t key[WG_KEY_LEN]);
bool wg_crypto_key_from_base64(uint8_t key[WG_KEY_LEN], const char *b64);

/* Hex form, as the UAPI protocol uses (64 characters plus NUL). */
#define WG_KEY_HEX_LEN 65
void wg_crypto_key_to_hex(char out[WG_KEY_HEX_LEN],
                          const uint8_t key[WG_KEY_LEN]);
bool wg_crypto_key_from_hex(uint8_t key[WG_KEY_LEN], const char *hex);

#endif /* wg-crypto.h */
