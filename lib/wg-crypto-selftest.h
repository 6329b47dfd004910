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

#ifndef WG_CRYPTO_SELFTEST_H
#define WG_CRYPTO_SELFTEST_H 1

/* Known-answer self-test of the crypto this process actually uses.
 *
 * Runs every primitive of wg-crypto.h, through the same calls the protocol
 * makes, against published vectors: BLAKE2s (RFC 7693), keyed BLAKE2s and
 * HMAC-BLAKE2s, X25519 (RFC 7748), ChaCha20-Poly1305 (RFC 8439 section
 * 2.8.2: seal, open, and rejection with one tag bit and with one ciphertext
 * bit flipped, on the data-path keys and on the one-shot handshake form)
 * and XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03).  A library whose
 * AEAD leaves tags unwritten or unchecked fails it.
 *
 * The wireguard netdev class runs it once before any port comes up and
 * creates no port if it fails. */

#include <stddef.h>

/* Runs every check now.  Returns NULL if all pass, otherwise the name of the
 * first check that failed (a constant string). */
const char *wg_crypto_selftest_run(void);

/* Runs wg_crypto_selftest_run() once per process and logs the result;
 * later calls return the same result without running it again. */
const char *wg_crypto_selftest(void);

/* The number of checks. */
size_t wg_crypto_selftest_n_checks(void);

#ifdef WG_TEST_HOOKS
/* Test-only (test builds, wg-test-hooks.h): the name of check 'i', in the
 * order they run. */
const char *wg_crypto_selftest_check_name_for_test(size_t i);
#endif

#endif /* wg-crypto-selftest.h */
