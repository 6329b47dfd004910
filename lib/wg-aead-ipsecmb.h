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

#ifndef WG_AEAD_IPSECMB_H
#define WG_AEAD_IPSECMB_H 1

/* ChaCha20-Poly1305 (RFC 8439) through intel-ipsec-mb's job API, for
 * wg-crypto's data path only (wg-crypto.c is its one caller).
 *
 * Each thread that seals or opens gets its own IMB_MGR, allocated on first
 * use with init_mb_mgr_auto() choosing the CPU code, and freed when the
 * thread exits.  A message is one job, submitted with the checked
 * IMB_SUBMIT_JOB() and accepted only with status IMB_STATUS_COMPLETED.
 *
 * The library computes the Poly1305 tag in both directions and never
 * compares it: wg_aead_ipsecmb_run() writes the tag it computed to 'tag',
 * and when decrypting the caller must compare it with the received one in
 * constant time and discard (wipe) the plaintext on mismatch. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes the library may read at a key.  Its vector code loads more than the
 * 32 key bytes: the AVX2 ChaCha20 of 1.3 loads 32 bytes at key + 16, which
 * faulted for a key that ended 16 bytes before an unmapped page (found by
 * fuzz-wg-device under ASan).  Every key given to wg_aead_ipsecmb_run()
 * lives in a buffer this large. */
#define WG_AEAD_IPSECMB_KEY_ROOM 64

/* True if this CPU and library give a usable manager (checked once). */
bool wg_aead_ipsecmb_available(void);

/* The CPU code the calling thread's manager uses ("AVX512", "AVX2",
 * "AVX", "SSE", "no AESNI"), or "unavailable". */
const char *wg_aead_ipsecmb_arch(void);

/* The library's version string. */
const char *wg_aead_ipsecmb_version(void);

/* Runs ChaCha20-Poly1305 over 'len' bytes from 'src' to 'dst' ('dst' ==
 * 'src' is allowed) with the 32-byte key at the start of 'key' (a buffer of
 * WG_AEAD_IPSECMB_KEY_ROOM bytes), the 12-byte 'nonce' and 'ad_len' bytes of
 * additional data, encrypting if 'encrypt' else decrypting, and
 * writes the 16-byte tag computed over the ciphertext to 'tag'.  Returns
 * false if the library refused the job (then 'dst' and 'tag' are
 * unspecified). */
bool wg_aead_ipsecmb_run(const uint8_t key[WG_AEAD_IPSECMB_KEY_ROOM],
                         const uint8_t nonce[12],
                         bool encrypt, uint8_t *dst, const uint8_t *src,
                         size_t len, const uint8_t *ad, size_t ad_len,
                         uint8_t tag[16]);

#endif /* wg-aead-ipsecmb.h */
