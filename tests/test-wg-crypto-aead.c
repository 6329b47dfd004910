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

#include <sodium.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "util.h"
#include "wg-crypto-selftest.h"
#include "wg-test-hooks.h"
#ifdef WG_HAVE_IPSEC_MB
#include "wg-aead-ipsecmb.h"
#endif
#include "wgtest.h"

/* Known answers and round trips for the AEAD constructions, and a seal
 * micro-benchmark.  Sources:
 *   - RFC 8439 (ChaCha20-Poly1305): section 2.8.2 and Appendix A.5.
 *   - draft-irtf-cfrg-xchacha-03 Appendix A.3.1 (XChaCha20-Poly1305).
 * libsodium's own RFC 8439 implementation serves as a second reference for
 * WireGuard's counter nonce. */

static void
init(void)
{
    WGTEST_CHECK(!wg_crypto_init());
}

/* ChaCha20-Poly1305 and XChaCha20-Poly1305. */

static const char *const sunscreen =
    "Ladies and Gentlemen of the class of '99: If I could offer you only "
    "one tip for the future, sunscreen would be it.";

/* Key 80 81 ... 9f, shared by RFC 8439 2.8.2 and the XChaCha draft. */
static void
key_80(uint8_t key[WG_KEY_LEN])
{
    for (int i = 0; i < WG_KEY_LEN; i++) {
        key[i] = 0x80 + i;
    }
}

/* Checks that opening 'len' bytes of 'sealed' fails once each of one byte
 * of ciphertext (if any), of AD and of the tag is flipped. */
static void
check_tamper(struct wg_aead_key *k, const uint8_t nonce[WG_AEAD_NONCE_LEN],
             const uint8_t *sealed, size_t len,
             const uint8_t *ad, size_t ad_len)
{
    uint8_t buf[512], ad2[64], out[512];

    ovs_assert(len <= sizeof buf && ad_len <= sizeof ad2 && ad_len > 0);
    memcpy(buf, sealed, len);
    memcpy(ad2, ad, ad_len);
    WGTEST_CHECK(wg_aead_open_nonce(k, nonce, out, buf, len, ad2, ad_len));

    if (len > WG_AEAD_TAG_LEN) {
        buf[0] ^= 0x01;
        WGTEST_CHECK(!wg_aead_open_nonce(k, nonce, out, buf, len,
                                         ad2, ad_len));
        buf[0] ^= 0x01;
    }
    ad2[ad_len - 1] ^= 0x80;
    WGTEST_CHECK(!wg_aead_open_nonce(k, nonce, out, buf, len, ad2, ad_len));
    ad2[ad_len - 1] ^= 0x80;
    buf[len - 1] ^= 0x10;
    WGTEST_CHECK(!wg_aead_open_nonce(k, nonce, out, buf, len, ad2, ad_len));
    buf[len - 1] ^= 0x10;
    WGTEST_CHECK(!wg_aead_open_nonce(k, nonce, out, buf, len - 1,
                                     ad2, ad_len));
    WGTEST_CHECK(!wg_aead_open_nonce(k, nonce, out, buf, WG_AEAD_TAG_LEN - 1,
                                     ad2, ad_len));
    WGTEST_CHECK(wg_aead_open_nonce(k, nonce, out, buf, len, ad2, ad_len));
}

/* RFC 8439 section 2.8.2. */
static void
test_aead_rfc8439_282(void)
{
    static const char *const expected =
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
        "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
        "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
        "3ff4def08e4b7a9de576d26586cec64b6116"
        "1ae10b594f09e26a7e902ecbd0600691";
    size_t len = strlen(sunscreen);
    uint8_t key[WG_KEY_LEN], nonce[WG_AEAD_NONCE_LEN], ad[12];
    uint8_t sealed[256], opened[256];
    struct wg_aead_key *k;

    key_80(key);
    wgtest_unhex("07000000 4041424344454647", nonce, sizeof nonce);
    wgtest_unhex("50515253c0c1c2c3c4c5c6c7", ad, sizeof ad);
    k = wg_aead_key_create(key);
    WGTEST_CHECK(k != NULL);

    WGTEST_CHECK(wg_aead_seal_nonce(k, nonce, sealed,
                                    (const uint8_t *) sunscreen, len,
                                    ad, sizeof ad));
    WGTEST_CHECK_HEX(sealed, len + WG_AEAD_TAG_LEN, expected);
    WGTEST_CHECK(wg_aead_open_nonce(k, nonce, opened, sealed,
                                    len + WG_AEAD_TAG_LEN, ad, sizeof ad));
    WGTEST_CHECK_MEM(opened, sunscreen, len);
    check_tamper(k, nonce, sealed, len + WG_AEAD_TAG_LEN, ad, sizeof ad);
    wg_aead_key_destroy(k);
}

/* RFC 8439 Appendix A.5.  Its nonce 00000000 0102030405060708 is
 * WireGuard's nonce for counter 0x0807060504030201. */
static void
test_aead_rfc8439_a5(void)
{
    static const char *const ct =
        "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
        "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
        "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
        "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
        "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
        "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
        "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
        "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
        "a6ad5cb4022b02709b"
        "eead9d67890cbb22392336fea1851f38";
    static const char *const pt =
        "Internet-Drafts are draft documents valid for a maximum of six "
        "months and may be updated, replaced, or obsoleted by other "
        "documents at any time. It is inappropriate to use Internet-Drafts "
        "as reference material or to cite them other than as "
        "/\xe2\x80\x9cwork in progress./\xe2\x80\x9d";
    const uint64_t counter = UINT64_C(0x0807060504030201);
    uint8_t key[WG_KEY_LEN], nonce[WG_AEAD_NONCE_LEN], ad[12];
    uint8_t sealed[512], buf[512];
    size_t pt_len = strlen(pt);
    size_t len = wgtest_unhex(ct, sealed, sizeof sealed);
    struct wg_aead_key *k;

    WGTEST_CHECK(pt_len == 265 && len == pt_len + WG_AEAD_TAG_LEN);
    wgtest_unhex("1c9240a5eb55d38af333888604f6b5f047"
          "3917c1402b80099dca5cbc207075c0", key, sizeof key);
    wgtest_unhex("000000000102030405060708", nonce, sizeof nonce);
    wgtest_unhex("f33388860000000000004e91", ad, sizeof ad);
    k = wg_aead_key_create(key);
    WGTEST_CHECK(k != NULL);

    WGTEST_CHECK(wg_aead_open_nonce(k, nonce, buf, sealed, len,
                                    ad, sizeof ad));
    WGTEST_CHECK_MEM(buf, pt, pt_len);

    /* The same through WireGuard's counter nonce, in place. */
    memcpy(buf, sealed, len);
    WGTEST_CHECK(wg_aead_open(k, counter, buf, buf, len, ad, sizeof ad));
    WGTEST_CHECK_MEM(buf, pt, pt_len);
    WGTEST_CHECK(wg_aead_seal(k, counter, buf, buf, pt_len, ad, sizeof ad));
    WGTEST_CHECK_MEM(buf, sealed, len);
    WGTEST_CHECK(wg_crypto_aead_open_once(key, counter, buf, sealed, len,
                                          ad, sizeof ad));
    WGTEST_CHECK_MEM(buf, pt, pt_len);
    WGTEST_CHECK(wg_crypto_aead_seal_once(key, counter, buf,
                                          (const uint8_t *) pt, pt_len,
                                          ad, sizeof ad));
    WGTEST_CHECK_MEM(buf, sealed, len);

    WGTEST_CHECK(!wg_aead_open(k, counter + 1, buf, sealed, len,
                               ad, sizeof ad));
    WGTEST_CHECK(!wg_crypto_aead_open_once(key, counter - 1, buf, sealed, len,
                                           ad, sizeof ad));
    check_tamper(k, nonce, sealed, len, ad, sizeof ad);
    wg_aead_key_destroy(k);
}

/* One round trip of 'len' bytes, out of place and in place, checked against
 * libsodium's RFC 8439 implementation with the same nonce. */
static void
aead_round_trip(struct wg_aead_key *k, const uint8_t key[WG_KEY_LEN],
                size_t len, uint64_t counter)
{
    uint8_t pt[2048], sealed[2048 + WG_AEAD_TAG_LEN];
    uint8_t ref[2048 + WG_AEAD_TAG_LEN], buf[2048 + WG_AEAD_TAG_LEN];
    uint8_t ad[64], nonce[WG_AEAD_NONCE_LEN];
    size_t ad_len = wgtest_random() % (sizeof ad + 1);
    unsigned long long ref_len;

    wg_crypto_random(pt, len);
    wg_crypto_random(ad, ad_len);
    WGTEST_CHECK(wg_aead_seal(k, counter, sealed, pt, len, ad, ad_len));

    memset(nonce, 0, 4);
    for (int i = 0; i < 8; i++) {
        nonce[4 + i] = counter >> (8 * i);
    }
    crypto_aead_chacha20poly1305_ietf_encrypt(ref, &ref_len, pt, len,
                                              ad, ad_len, NULL, nonce, key);
    WGTEST_CHECK(ref_len == len + WG_AEAD_TAG_LEN);
    WGTEST_CHECK_MEM(sealed, ref, ref_len);

    memset(buf, 0, sizeof buf);
    WGTEST_CHECK(wg_aead_open(k, counter, buf, sealed, len + 16, ad, ad_len));
    WGTEST_CHECK_MEM(buf, pt, len);

    memcpy(buf, pt, len);
    WGTEST_CHECK(wg_aead_seal(k, counter, buf, buf, len, ad, ad_len));
    WGTEST_CHECK_MEM(buf, sealed, len + WG_AEAD_TAG_LEN);
    WGTEST_CHECK(wg_aead_open(k, counter, buf, buf, len + 16, ad, ad_len));
    WGTEST_CHECK_MEM(buf, pt, len);

    WGTEST_CHECK(!wg_aead_open(k, counter + 1, buf, sealed, len + 16,
                               ad, ad_len));
    WGTEST_CHECK(!wg_aead_open(k, counter ^ (UINT64_C(1) << 63), buf, sealed,
                               len + 16, ad, ad_len));
}

static void
test_aead_round_trip(void)
{
    uint8_t key[WG_KEY_LEN];
    struct wg_aead_key *k;

    wg_crypto_random(key, sizeof key);
    k = wg_aead_key_create(key);
    WGTEST_CHECK(k != NULL);
    for (size_t len = 0; len <= 2000; len++) {
        aead_round_trip(k, key, len, len * UINT64_C(0x9e3779b97f4a7c15));
    }
    wg_aead_key_destroy(k);
    wg_aead_key_destroy(NULL);
}

/* draft-irtf-cfrg-xchacha-03 Appendix A.3.1. */
static void
test_xaead(void)
{
    static const char *const expected =
        "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb"
        "731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
        "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff9"
        "21f9664c97637da9768812f615c68b13b52e"
        "c0875924c1c7987947deafd8780acf49";
    size_t len = strlen(sunscreen);
    uint8_t key[WG_KEY_LEN], nonce[WG_XAEAD_NONCE_LEN], ad[12];
    uint8_t sealed[256], buf[256];

    key_80(key);
    wgtest_unhex("404142434445464748494a4b4c4d4e4f5051525354555657",
          nonce, sizeof nonce);
    wgtest_unhex("50515253c0c1c2c3c4c5c6c7", ad, sizeof ad);

    WGTEST_CHECK(wg_crypto_xaead_seal(sealed, (const uint8_t *) sunscreen, len,
                                      ad, sizeof ad, nonce, key));
    WGTEST_CHECK_HEX(sealed, len + WG_AEAD_TAG_LEN, expected);
    WGTEST_CHECK(wg_crypto_xaead_open(buf, sealed, len + 16, ad, sizeof ad,
                                      nonce, key));
    WGTEST_CHECK_MEM(buf, sunscreen, len);

    memcpy(buf, sunscreen, len);
    WGTEST_CHECK(wg_crypto_xaead_seal(buf, buf, len, ad, sizeof ad, nonce,
                                      key));
    WGTEST_CHECK_MEM(buf, sealed, len + WG_AEAD_TAG_LEN);
    WGTEST_CHECK(wg_crypto_xaead_open(buf, buf, len + 16, ad, sizeof ad,
                                      nonce, key));
    WGTEST_CHECK_MEM(buf, sunscreen, len);

    sealed[5] ^= 1;
    WGTEST_CHECK(!wg_crypto_xaead_open(buf, sealed, len + 16, ad, sizeof ad,
                                       nonce, key));
    sealed[5] ^= 1;
    sealed[len + 15] ^= 1;
    WGTEST_CHECK(!wg_crypto_xaead_open(buf, sealed, len + 16, ad, sizeof ad,
                                       nonce, key));
    sealed[len + 15] ^= 1;
    nonce[23] ^= 1;
    WGTEST_CHECK(!wg_crypto_xaead_open(buf, sealed, len + 16, ad, sizeof ad,
                                       nonce, key));
    WGTEST_CHECK(!wg_crypto_xaead_open(buf, sealed, 15, ad, sizeof ad,
                                       nonce, key));
}

/* Every length 0..2048, at every misalignment 0..15 of source, destination
 * and additional data, sealed by the current backend: the same bytes as
 * OpenSSL, and each backend opens what the other sealed. */
static void
test_aead_against_openssl(void)
{
    enum wg_crypto_aead_backend backend
        = wg_crypto_get_aead_backend_for_test();
    uint8_t key[WG_KEY_LEN], ad[32 + 16];
    uint8_t *pt = xmalloc(2048 + 16), *a = xmalloc(2048 + 32 + 16);
    uint8_t *b = xmalloc(2048 + 32 + 16), *out = xmalloc(2048 + 16);
    struct wg_aead_key *k, *ref;

    wg_crypto_random(key, sizeof key);
    k = wg_aead_key_create(key);
    WGTEST_CHECK(wg_crypto_set_aead_backend(WG_CRYPTO_AEAD_OPENSSL));
    ref = wg_aead_key_create(key);
    WGTEST_CHECK(wg_crypto_set_aead_backend(backend));
    wg_crypto_random(ad, sizeof ad);
    for (size_t len = 0; len <= 2048; len++) {
        size_t off = len % 16, ad_off = (len / 16) % 16;
        size_t ad_len = len % 33;
        uint8_t *src = pt + (len * 7) % 16;

        wg_crypto_random(src, len);
        WGTEST_CHECK(wg_aead_seal(k, len, a + off, src, len, ad + ad_off,
                                  ad_len));
        WGTEST_CHECK(wg_aead_seal(ref, len, b, src, len, ad + ad_off,
                                  ad_len));
        WGTEST_CHECK_MEM(a + off, b, len + WG_AEAD_TAG_LEN);
        WGTEST_CHECK(wg_aead_open(k, len, out, b, len + WG_AEAD_TAG_LEN,
                                  ad + ad_off, ad_len));
        WGTEST_CHECK_MEM(out, src, len);
        WGTEST_CHECK(wg_aead_open(ref, len, a + off, a + off,
                                  len + WG_AEAD_TAG_LEN, ad + ad_off, ad_len));
        WGTEST_CHECK_MEM(a + off, src, len);
    }
    wg_aead_key_destroy(k);
    wg_aead_key_destroy(ref);
    free(pt);
    free(a);
    free(b);
    free(out);
}

/* OpenSSL keys on several threads at once, each thread sealing and
 * opening with more keys than it keeps contexts for, keys taking turns:
 * every message is libsodium's RFC 8439 seal of it, byte for byte (a
 * thread's context keyed for the wrong key, or shared by two threads,
 * gives other bytes), and opens again. */
#define AEAD_THREAD_KEYS 20
#define AEAD_THREADS 4
static struct wg_aead_key *aead_thread_keys[AEAD_THREAD_KEYS];
static uint8_t aead_thread_raw[AEAD_THREAD_KEYS][WG_KEY_LEN];

static void *
aead_thread_main(void *arg)
{
    uintptr_t t = (uintptr_t) arg;
    uint8_t pt[1500], a[1500 + 16], b[1500 + 16], nonce[12] = { 0 };

    for (size_t i = 0; i < 2000; i++) {
        size_t key = (i * 7 + t) % AEAD_THREAD_KEYS, len = (i * 13) % 1500;
        unsigned long long b_len;

        memset(pt, (int) (i + t), len);
        memcpy(nonce + 4, &i, sizeof i);
        WGTEST_CHECK(wg_aead_seal_nonce(aead_thread_keys[key], nonce, a, pt,
                                        len, NULL, 0));
        crypto_aead_chacha20poly1305_ietf_encrypt(
            b, &b_len, pt, len, NULL, 0, NULL, nonce, aead_thread_raw[key]);
        WGTEST_CHECK_MEM(a, b, len + WG_AEAD_TAG_LEN);
        WGTEST_CHECK(wg_aead_open_nonce(aead_thread_keys[key], nonce, a, a,
                                        len + WG_AEAD_TAG_LEN, NULL, 0));
        WGTEST_CHECK_MEM(a, pt, len);
    }
    return NULL;
}

static void
test_aead_threads(void)
{
    pthread_t threads[AEAD_THREADS];

    for (size_t i = 0; i < AEAD_THREAD_KEYS; i++) {
        wg_crypto_random(aead_thread_raw[i], WG_KEY_LEN);
        aead_thread_keys[i] = wg_aead_key_create(aead_thread_raw[i]);
        WGTEST_CHECK(aead_thread_keys[i] != NULL);
    }
    for (uintptr_t t = 0; t < AEAD_THREADS; t++) {
        threads[t] = ovs_thread_create("aead", aead_thread_main,
                                       (void *) t);
    }
    for (size_t t = 0; t < AEAD_THREADS; t++) {
        xpthread_join(threads[t], NULL);
    }
    for (size_t i = 0; i < AEAD_THREAD_KEYS; i++) {
        wg_aead_key_destroy(aead_thread_keys[i]);
    }
}

/* wg_aead_seal_padded() of the 'len' bytes at 'src' with 'pad_len' zeros
 * after them, apart from 'dst' and in place: both give libsodium's RFC 8439
 * seal of the padded text, byte for byte, the source stays as it was, no
 * byte past the tag is written, and the message opens to the padded
 * text. */
static void
check_seal_padded(struct wg_aead_key *k, const uint8_t key[WG_KEY_LEN],
                  const uint8_t *src, size_t len, size_t pad_len,
                  uint64_t counter)
{
    size_t total = len + pad_len + WG_AEAD_TAG_LEN;
    uint8_t text[2048 + 16], ref[2048 + 32], nonce[WG_AEAD_NONCE_LEN] = { 0 };
    uint8_t apart[2048 + 48], in_place[2048 + 48], copy[2048];
    unsigned long long ref_len;

    ovs_assert(len <= 2048 && pad_len <= WG_AEAD_PAD_MAX);
    memcpy(text, src, len);
    memset(text + len, 0, pad_len);
    for (int i = 0; i < 8; i++) {
        nonce[4 + i] = counter >> (8 * i);
    }
    crypto_aead_chacha20poly1305_ietf_encrypt(ref, &ref_len, text,
                                              len + pad_len, NULL, 0, NULL,
                                              nonce, key);
    WGTEST_CHECK(ref_len == total);
    memcpy(copy, src, len);

    memset(apart, 0xa5, sizeof apart);
    WGTEST_CHECK(wg_aead_seal_padded(k, counter, apart, src, len, pad_len));
    WGTEST_CHECK_MEM(apart, ref, total);
    WGTEST_CHECK(apart[total] == 0xa5 && apart[total + 15] == 0xa5);
    WGTEST_CHECK_MEM(src, copy, len);

    memset(in_place, 0xa5, sizeof in_place);
    memcpy(in_place, src, len);
    WGTEST_CHECK(wg_aead_seal_padded(k, counter, in_place, in_place, len,
                                     pad_len));
    WGTEST_CHECK_MEM(in_place, ref, total);
    WGTEST_CHECK(in_place[total] == 0xa5);

    WGTEST_CHECK(wg_aead_open(k, counter, in_place, apart, total, NULL, 0));
    WGTEST_CHECK_MEM(in_place, text, len + pad_len);
}

/* The texts of data messages: lengths a packet has, each with the padding
 * WireGuard gives it (to a multiple of 16, not past the MTU), at every
 * misalignment of the source; then every length up to 2048, with the
 * padding to a multiple of 16 and with another one (capped paddings are
 * shorter); and a padding too long is refused. */
static void
test_aead_seal_padded(void)
{
    static const struct {
        size_t len, pad_len;
    } cases[] = {
        { 0, 0 },               /* A keepalive. */
        { 1, 15 },
        { 15, 1 },
        { 16, 0 },
        { 17, 15 },
        { 20, 12 },             /* A bare IPv4 header. */
        { 52, 12 },             /* A TCP ACK. */
        { 1280, 0 },
        { 1405, 3 },            /* 1408: under the MTU of 1420. */
        { 1410, 10 },           /* 1424 capped by the MTU of 1420. */
        { 1419, 1 },            /* Likewise. */
        { 1420, 0 },            /* A full packet at the MTU of 1420. */
        { 1421, 3 },            /* Past the MTU (fragments): no cap. */
    };
    uint8_t key[WG_KEY_LEN], *buf = xmalloc(2048 + 16), dst[64];
    struct wg_aead_key *k;

    wg_crypto_random(key, sizeof key);
    k = wg_aead_key_create(key);
    WGTEST_CHECK(k != NULL);
    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        for (size_t off = 0; off < 16; off++) {
            wg_crypto_random(buf + off, cases[i].len);
            check_seal_padded(k, key, buf + off, cases[i].len,
                              cases[i].pad_len, i * 16 + off);
        }
    }
    for (size_t len = 0; len <= 2048; len++) {
        wg_crypto_random(buf, len);
        check_seal_padded(k, key, buf, len, ROUND_UP(len, 16) - len, len);
        check_seal_padded(k, key, buf, len, len % (WG_AEAD_PAD_MAX + 1),
                          ~len);
    }
    WGTEST_CHECK(!wg_aead_seal_padded(k, 0, dst, buf, 1,
                                      WG_AEAD_PAD_MAX + 1));
    wg_aead_key_destroy(k);
    free(buf);
}

/* A message that fails authentication leaves zeros, not plaintext. */
static void
test_aead_failure_wipes(void)
{
    uint8_t key[WG_KEY_LEN], msg[100 + WG_AEAD_TAG_LEN], out[100];
    struct wg_aead_key *k;

    wg_crypto_random(key, sizeof key);
    k = wg_aead_key_create(key);
    memset(out, 0x55, sizeof out);
    WGTEST_CHECK(wg_aead_seal(k, 7, msg, out, sizeof out, NULL, 0));
    msg[sizeof msg - 1] ^= 1;
    WGTEST_CHECK(!wg_aead_open(k, 7, out, msg, sizeof msg, NULL, 0));
    WGTEST_CHECK(wg_crypto_is_zero(out, sizeof out));
    WGTEST_CHECK(!wg_aead_open(k, 7, msg, msg, sizeof msg, NULL, 0));
    WGTEST_CHECK(wg_crypto_is_zero(msg, sizeof out));
    wg_aead_key_destroy(k);
}

/* Every test above, on every data-path backend this build can run. */
static void
test_aead_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const enum wg_crypto_aead_backend backends[] = {
        WG_CRYPTO_AEAD_OPENSSL, WG_CRYPTO_AEAD_IPSECMB,
    };

    init();
    for (size_t i = 0; i < ARRAY_SIZE(backends); i++) {
        if (!wg_crypto_set_aead_backend(backends[i])) {
            printf("%s: not in this build\n",
                   wg_crypto_aead_backend_name(backends[i]));
            continue;
        }
        test_aead_rfc8439_282();
        test_aead_rfc8439_a5();
        test_aead_round_trip();
        test_aead_against_openssl();
        test_aead_seal_padded();
        test_aead_failure_wipes();
        test_aead_threads();
        printf("%s: ok\n", wg_crypto_aead_backend_name(backends[i]));
    }
    test_xaead();
}
WGTEST_REGISTER("crypto-aead", test_aead_main);

#ifdef WG_HAVE_IPSEC_MB
/* intel-ipsec-mb reads past the 32 key bytes (WG_AEAD_IPSECMB_KEY_ROOM):
 * a key room that ends right before an inaccessible page must still work,
 * sealing RFC 8439 section 2.8.2.  With only the 32 key bytes before that
 * page, the library's AVX2 code faults. */
static void
test_ipsecmb_key_room_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    size_t page = sysconf(_SC_PAGESIZE), len = strlen(sunscreen);
    uint8_t nonce[WG_AEAD_NONCE_LEN], ad[12], sealed[256], tag[16];
    uint8_t *map, *room;

    if (!wg_aead_ipsecmb_available()) {
        printf("skipped: intel-ipsec-mb cannot run on this CPU\n");
        return;
    }
    map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    WGTEST_CHECK(map != MAP_FAILED);
    WGTEST_CHECK(!mprotect(map + page, page, PROT_NONE));
    room = map + page - WG_AEAD_IPSECMB_KEY_ROOM;
    key_80(room);
    wgtest_unhex("07000000 4041424344454647", nonce, sizeof nonce);
    wgtest_unhex("50515253c0c1c2c3c4c5c6c7", ad, sizeof ad);
    WGTEST_CHECK(wg_aead_ipsecmb_run(room, nonce, true, sealed,
                                     (const uint8_t *) sunscreen, len,
                                     ad, sizeof ad, tag));
    WGTEST_CHECK_HEX(tag, sizeof tag, "1ae10b594f09e26a7e902ecbd0600691");
    printf("%s: a key room ending at an unmapped page: ok\n",
           wg_aead_ipsecmb_arch());
    munmap(map, 2 * page);
}
WGTEST_REGISTER("crypto-ipsecmb-key-room", test_ipsecmb_key_room_main);
#endif

/* Micro-benchmark (not a test): seal throughput on one core. */

static double
bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What bench_run() times. */
enum bench_op {
    BENCH_SEAL,                 /* wg_aead_seal(), in place. */
    BENCH_OPEN,                 /* wg_aead_open() of a sealed message. */
    BENCH_SODIUM_SEAL,          /* libsodium's RFC 8439 seal, as reference. */
};

/* One message of 'op' on 'buf' (a 'size'-byte message, sealed in 'sealed'
 * for BENCH_OPEN). */
static void
bench_one(enum bench_op op, struct wg_aead_key *k,
          const uint8_t key[WG_KEY_LEN], uint8_t *buf, const uint8_t *sealed,
          size_t size, uint64_t n)
{
    uint8_t nonce[WG_AEAD_NONCE_LEN] = { 0 };
    unsigned long long out_len;

    if (op == BENCH_SEAL) {
        WGTEST_CHECK(wg_aead_seal(k, n, buf, buf, size, NULL, 0));
    } else if (op == BENCH_OPEN) {
        WGTEST_CHECK(wg_aead_open(k, 0, buf, sealed, size + 16, NULL, 0));
    } else {
        memcpy(nonce + 4, &n, sizeof n);
        crypto_aead_chacha20poly1305_ietf_encrypt(buf, &out_len, buf, size,
                                                  NULL, 0, NULL, nonce, key);
    }
}

/* Runs 'op' on 'size'-byte messages for about 'seconds'.  Returns the time
 * per message in ns. */
static double
bench_run(enum bench_op op, struct wg_aead_key *k,
          const uint8_t key[WG_KEY_LEN], uint8_t *buf, const uint8_t *sealed,
          size_t size, double seconds)
{
    double start = bench_now();
    double elapsed;
    uint64_t n = 0;

    do {
        for (int i = 0; i < 64; i++, n++) {
            bench_one(op, k, key, buf, sealed, size, n);
        }
        elapsed = bench_now() - start;
    } while (elapsed < seconds);
    return elapsed * 1e9 / n;
}

static void
bench_print(const char *what, size_t size, double ns)
{
    printf(" %9.0f ns %8.1f MB/s%s", ns, size / ns * 1e3, what);
}

/* One table of bench_run() figures for the current backend. */
static void
bench_table(const uint8_t key[WG_KEY_LEN], uint8_t *buf, uint8_t *sealed,
            double seconds)
{
    static const size_t sizes[] = { 64, 256, 1420, 9000, 65536 };
    struct wg_aead_key *k = wg_aead_key_create(key);

    WGTEST_CHECK(k != NULL);
    printf("%s\n", wg_crypto_describe());
    printf("%6s %24s %24s %24s\n", "bytes", "seal", "open",
           "libsodium seal");
    for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
        size_t size = sizes[i];

        WGTEST_CHECK(wg_aead_seal(k, 0, sealed, buf, size, NULL, 0));
        printf("%6zu", size);
        bench_print("", size, bench_run(BENCH_SEAL, k, key, buf, sealed,
                                        size, seconds));
        bench_print("", size, bench_run(BENCH_OPEN, k, key, buf, sealed,
                                        size, seconds));
        bench_print("\n", size, bench_run(BENCH_SODIUM_SEAL, k, key, buf,
                                          sealed, size, seconds));
    }
    wg_aead_key_destroy(k);
}

/* "wgtest crypto-bench [SECONDS]": a table per backend in this build, the
 * default one (what the daemon uses) first. */
static void
test_bench_main(int argc, char *argv[])
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    enum wg_crypto_aead_backend first;
    uint8_t key[WG_KEY_LEN];
    uint8_t *buf, *sealed;

    init();
    seconds = seconds > 0 ? seconds : 1.0;
    wg_crypto_random(key, sizeof key);
    buf = xzalloc(65536 + WG_AEAD_TAG_LEN);
    sealed = xzalloc(65536 + WG_AEAD_TAG_LEN);
    printf("ChaCha20-Poly1305 per message, one core, %.1f s per figure\n",
           seconds);
    first = wg_crypto_get_aead_backend_for_test();
    bench_table(key, buf, sealed, seconds);
    for (int b = WG_CRYPTO_AEAD_OPENSSL; b <= WG_CRYPTO_AEAD_IPSECMB; b++) {
        if (b != first && wg_crypto_set_aead_backend(b)) {
            bench_table(key, buf, sealed, seconds);
        }
    }
    free(buf);
    free(sealed);
}
WGTEST_REGISTER("crypto-bench", test_bench_main);

/* Start-up self-test. */

static void
test_selftest_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    const char *failed;

    init();
    WGTEST_CHECK(wg_crypto_selftest_n_checks() >= 10);
    for (size_t i = 0; i < wg_crypto_selftest_n_checks(); i++) {
        WGTEST_CHECK(wg_crypto_selftest_check_name_for_test(i) != NULL);
    }
    WGTEST_CHECK(wg_crypto_selftest() == NULL);
    for (int b = WG_CRYPTO_AEAD_OPENSSL; b <= WG_CRYPTO_AEAD_IPSECMB; b++) {
        if (wg_crypto_set_aead_backend(b)) {
            WGTEST_CHECK(wg_crypto_selftest_run() == NULL);
        }
    }

    /* An AEAD that leaves its tags unwritten and unchecked fails the first
     * ChaCha20-Poly1305 check; the cached result of the first run stays. */
    vlog_set_levels_from_string_assert("wg_crypto:console:off");
    wg_test_break_aead();
    failed = wg_crypto_selftest_run();
    WGTEST_CHECK(failed && strstr(failed, "ChaCha20-Poly1305 seal"));
    printf("broken AEAD: self-test failed: %s\n", failed ? failed : "-");
}
WGTEST_REGISTER("crypto-selftest", test_selftest_main);
