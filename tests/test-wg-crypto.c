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

#include "openvswitch/vlog.h"
#include "util.h"
#include "wgtest.h"

/* Known answers for the crypto seam's hashes, X25519 and encodings (the
 * AEADs are in test-wg-crypto-aead.c).  Sources:
 *   - RFC 7693 (BLAKE2s): Appendix B "abc" and the Appendix E self-test.
 *   - RFC 7748 (X25519): sections 5.2 and 6.1.
 *   - Keyed BLAKE2s, HMAC-BLAKE2s and WireGuard's KDF have no published
 *     vectors: the tables below were computed with Python's hashlib.blake2s
 *     (key=, digest_size=) and hmac modules on the inputs made by fill(),
 *     and the HMAC is also rebuilt here from its RFC 2104 definition. */

/* Deterministic test input: buf[i] = seed + 13 * i (mod 256).  The Python
 * generator of the tables uses the same formula. */
static void
fill(uint8_t *buf, size_t len, uint8_t seed)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = seed + 13 * i;
    }
}

static void
init(void)
{
    WGTEST_CHECK(!wg_crypto_init());
    WGTEST_CHECK(!wg_crypto_init());    /* Idempotent. */
}

/* BLAKE2s. */

/* RFC 7693 Appendix E: the Fibonacci-like input generator. */
static void
rfc7693_seq(uint8_t *out, size_t len, uint32_t seed)
{
    uint32_t a = 0xDEAD4BAD * seed;
    uint32_t b = 1;

    for (size_t i = 0; i < len; i++) {
        uint32_t t = a + b;

        a = b;
        b = t;
        out[i] = t >> 24;
    }
}

/* The unkeyed digests of lengths 16, 20 and 28 that RFC 7693's self-test
 * needs, in the self-test's order (OpenSSL 3.0 has no unkeyed BLAKE2s
 * shorter than 32 bytes).  They come from Python's hashlib; the grand hash
 * below checks them together with everything computed by wg-crypto. */
static const char *const rfc7693_unkeyed_short =
    "64550d6ffe2c0a01a14aba1eade0200c138e6934bb72ee30cf62400e460577bd"
    "96962ad757fbdfb0f5bc569285452baf1197c335c6e0c5fc7cb35bc3511c296c"
    "a5f5dec639690c1b27c319b4ff134e43adb2aaa3d98e0e27514d70d6d87e9135"
    "354c9c33f735962418bdacb9479873429c34916fd9a8e91ba528738f4fb4d3d3"
    "a585d8b6782321a3760b995aabc3ab3008f01bc980da040a5264c537cce5848f"
    "6ef6d5e2a80be77496f63a55dca6d6aba7cababe9fa505f5c8bc8e4c7bfda400"
    "508dbc625686a6a3a5a7a58cdf9ba125c56a33cc2da38ca11fa1291e65248b37"
    "b3433475b2a0dd63d54a11ecc4e3e034e7bc1ef438bec0245d2c81f10cf08528"
    "a9bddd5ca2d11e7a0e0863ad00531c3976fccd4dbede2c9ac1f382c9c63453a4"
    "a4dca474547549de0b09098cfd3879e0edbbfec3fedf0cbb559e3cbc61b7b080"
    "ecceda7be7f0e46b7902efb9f73249ec7f9f475478199236a34658aab9848dca"
    "791cf3131b9524ccb9320e343de7ab959eaf19bf06b75c2d0d6aa46ef07cb17b";

/* RFC 7693 Appendix E "grand hash": BLAKE2s-256 over the unkeyed and keyed
 * digests of every (output length, input length) pair. */
static void
test_blake2s_selftest(void)
{
    static const size_t md_lens[] = { 16, 20, 28, 32 };
    static const size_t in_lens[] = { 0, 3, 64, 65, 255, 1024 };
    uint8_t short_mds[384];
    uint8_t stream[2 * 6 * (16 + 20 + 28 + 32)];
    uint8_t in[1024], key[32], grand[WG_HASH_LEN];
    size_t n_short = 0, n = 0;

    WGTEST_CHECK(wgtest_unhex(rfc7693_unkeyed_short, short_mds,
                              sizeof short_mds) == sizeof short_mds);
    for (size_t i = 0; i < ARRAY_SIZE(md_lens); i++) {
        size_t md_len = md_lens[i];

        for (size_t j = 0; j < ARRAY_SIZE(in_lens); j++) {
            size_t in_len = in_lens[j];

            rfc7693_seq(in, in_len, in_len);
            if (md_len == WG_HASH_LEN) {
                WGTEST_CHECK(wg_crypto_hash(&stream[n], in, in_len, NULL, 0));
            } else {
                memcpy(&stream[n], &short_mds[n_short], md_len);
                n_short += md_len;
            }
            n += md_len;

            rfc7693_seq(key, md_len, md_len);
            WGTEST_CHECK(wg_crypto_keyed_hash(&stream[n], md_len, key, md_len,
                                              in, in_len));
            n += md_len;
        }
    }
    WGTEST_CHECK(n == sizeof stream && n_short == sizeof short_mds);
    WGTEST_CHECK(wg_crypto_hash(grand, stream, n, NULL, 0));
    WGTEST_CHECK_HEX(grand, sizeof grand,
                     "6a411f08ce25adcdfb02aba641451cec"
                     "53c598b24f4fc787fbdc88797f4c1dfe");
}

/* RFC 7693 Appendix B, the empty string, the a || b split, and the Noise
 * construction constants of WireGuard. */
static void
test_blake2s_basic(void)
{
    static const char construction[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";
    static const char identifier[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";
    uint8_t md[WG_HASH_LEN], md2[WG_HASH_LEN];
    uint8_t buf[300];

    WGTEST_CHECK(wg_crypto_hash(md, "abc", 3, NULL, 0));
    WGTEST_CHECK_HEX(md, sizeof md, "508c5e8c327c14e2e1a72ba34eeb452f"
                                    "37458b209ed63a294d999b4c86675982");
    WGTEST_CHECK(wg_crypto_hash(md, "a", 1, "bc", 2));
    WGTEST_CHECK_HEX(md, sizeof md, "508c5e8c327c14e2e1a72ba34eeb452f"
                                    "37458b209ed63a294d999b4c86675982");
    WGTEST_CHECK(wg_crypto_hash(md, NULL, 0, NULL, 0));
    WGTEST_CHECK_HEX(md, sizeof md, "69217a3079908094e11121d042354a7c"
                                    "1f55b6482ca1a51e1b250dfd1ed0eef9");

    /* Every split point of one input gives the same digest. */
    fill(buf, sizeof buf, 7);
    WGTEST_CHECK(wg_crypto_hash(md, buf, sizeof buf, NULL, 0));
    for (size_t i = 0; i <= sizeof buf; i += 13) {
        WGTEST_CHECK(wg_crypto_hash(md2, buf, i, buf + i, sizeof buf - i));
        WGTEST_CHECK_MEM(md, md2, sizeof md);
    }

    /* Noise: h = HASH(construction); then h = HASH(h || identifier). */
    WGTEST_CHECK(wg_crypto_hash(md, construction, strlen(construction), NULL,
                                0));
    WGTEST_CHECK_HEX(md, sizeof md, "60e26daef327efc02ec335e2a025d2d0"
                                    "16eb4206f87277f52d38d1988b78cd36");
    WGTEST_CHECK(wg_crypto_hash(md2, md, sizeof md, identifier,
                                strlen(identifier)));
    WGTEST_CHECK_HEX(md2, sizeof md2, "2211b361081ac566691243db458ad532"
                                      "2d9c6c662293e8b70ee19c65ba079ef3");

    /* In place, as Noise's MixHash does it. */
    WGTEST_CHECK(wg_crypto_hash(md, md, sizeof md, identifier,
                                strlen(identifier)));
    WGTEST_CHECK_MEM(md, md2, sizeof md);
}

struct keyed_case {
    size_t key_len, out_len, data_len;
    const char *md;
};

/* Keyed BLAKE2s, key = fill(key_len, 0x22), data = fill(data_len, 0x11),
 * from Python: hashlib.blake2s(data, key=key, digest_size=out_len). */
static const struct keyed_case keyed_cases[] = {
    { 1, 16, 0, "cc8ae9a9fe4de252c26469c2104a601a" },
    { 16, 16, 3, "37cd1213203917d18bc401de90a545a2" },
    { 32, 16, 64, "fed729d99bf313b194b3b37c80eba45f" },
    { 32, 16, 148, "5aea6f4f4b823b358f771b39fd19a347" },
    { 32, 32, 65, "caae0086307c9bcce0ee224c3a73552d"
                  "b9f6f4ca2f92fa3fc193694fec995b91" },
    { 7, 1, 10, "94" },
    { 32, 20, 255, "efe8c76fd3616edfa6cf1686216652ab360b15fa" },
    { 31, 32, 1, "da01786af1ecaca03123bd45edb132fb"
                 "99b1bffc8106e18d1131c45588b4a454" },
};

static void
test_blake2s_keyed(void)
{
    uint8_t key[32], data[300], md[WG_HASH_LEN], ref[WG_HASH_LEN];

    for (size_t i = 0; i < ARRAY_SIZE(keyed_cases); i++) {
        const struct keyed_case *c = &keyed_cases[i];

        fill(key, c->key_len, 0x22);
        fill(data, c->data_len, 0x11);
        memset(md, 0xaa, sizeof md);
        WGTEST_CHECK(wg_crypto_keyed_hash(md, c->out_len, key, c->key_len,
                                          data, c->data_len));
        WGTEST_CHECK_HEX(md, c->out_len, c->md);
        /* Nothing written past out_len. */
        for (size_t j = c->out_len; j < sizeof md; j++) {
            WGTEST_CHECK(md[j] == 0xaa);
        }
    }

    /* The output length is a parameter of the hash, not a truncation. */
    fill(key, 32, 1);
    WGTEST_CHECK(wg_crypto_keyed_hash(md, 16, key, 32, "x", 1));
    WGTEST_CHECK(wg_crypto_keyed_hash(ref, 32, key, 32, "x", 1));
    WGTEST_CHECK(memcmp(md, ref, 16));

    /* Out-of-range lengths fail with zeros rather than a crash (and an
     * error log, silenced here). */
    vlog_set_levels_from_string_assert("wg_crypto_hash:console:off");
    memset(md, 0xaa, sizeof md);
    WGTEST_CHECK(!wg_crypto_keyed_hash(md, 16, key, 33, "x", 1));
    WGTEST_CHECK(wg_crypto_is_zero(md, 16));
}

static void
test_blake2s_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    init();
    test_blake2s_basic();
    test_blake2s_keyed();
    test_blake2s_selftest();
}
WGTEST_REGISTER("crypto-blake2s", test_blake2s_main);

/* HMAC-BLAKE2s and KDF. */

/* HMAC-BLAKE2s straight from RFC 2104 with B = 64, L = 32, on top of
 * wg_crypto_hash(): H((K0 ^ opad) || H((K0 ^ ipad) || data)). */
static void
ref_hmac(uint8_t out[WG_HASH_LEN], const uint8_t *key, size_t key_len,
         const uint8_t *data, size_t data_len)
{
    uint8_t k0[64], ipad[64], opad[64], inner[WG_HASH_LEN];

    memset(k0, 0, sizeof k0);
    if (key_len > sizeof k0) {
        WGTEST_CHECK(wg_crypto_hash(k0, key, key_len, NULL, 0));
    } else {
        memcpy(k0, key, key_len);
    }
    for (size_t i = 0; i < sizeof k0; i++) {
        ipad[i] = k0[i] ^ 0x36;
        opad[i] = k0[i] ^ 0x5c;
    }
    WGTEST_CHECK(wg_crypto_hash(inner, ipad, sizeof ipad, data, data_len));
    WGTEST_CHECK(wg_crypto_hash(out, opad, sizeof opad, inner, sizeof inner));
}

struct hmac_case {
    size_t key_len, data_len;
    const char *mac;
};

/* key = fill(key_len, 0x33), data = fill(data_len, 0x44), from Python:
 * hmac.new(key, data, hashlib.blake2s). */
static const struct hmac_case hmac_cases[] = {
    { 0, 0,
      "eaf4bb25938f4d20e72656bbbc7a9bf63c0c18537333c35bdb67db1402661acd" },
    { 1, 1,
      "f827215ec38975be52395a1e41fbef1bb0b68136747bd9313e66ff9ddd2386a2" },
    { 32, 0,
      "995b0f75f5b45487cd405c902b3ca4cba47e32f3f8852cad992b1decf77cba73" },
    { 32, 33,
      "07a2d265b69ee437b6b545833e0a6e16613720def229e37b9103e84b5aee0832" },
    { 63, 64,
      "18758318f627e7eaf701a8449fd08ee8b8c4e8049661d3bf98027827ff6f3da6" },
    { 64, 64,
      "79286628344a0d4d7c4b53764b6ee8b83e3e770262b6bebc1b6e57945d86f1d6" },
    { 65, 100,
      "46d46128642d8bf02bbe185848b62036f75fd9f2e8b6334676c2a9593cf2dd4c" },
    { 100, 1000,
      "e5013164751596bc2267e36c765998f8d6eab331204e8f0cc45708f435237a3b" },
    { 200, 5,
      "cfaab6dc8e63b7bab3dbdf0eaf58a44e09312df48af0f69c2e3c78da4b4e95be" },
};

static void
test_hmac_vectors(void)
{
    uint8_t key[200], data[1000], mac[WG_HASH_LEN], ref[WG_HASH_LEN];

    for (size_t i = 0; i < ARRAY_SIZE(hmac_cases); i++) {
        const struct hmac_case *c = &hmac_cases[i];

        fill(key, c->key_len, 0x33);
        fill(data, c->data_len, 0x44);
        WGTEST_CHECK(wg_crypto_hmac(mac, key, c->key_len, data, c->data_len));
        WGTEST_CHECK_HEX(mac, sizeof mac, c->mac);
        ref_hmac(ref, key, c->key_len, data, c->data_len);
        WGTEST_CHECK_MEM(mac, ref, sizeof mac);
    }

    /* A sweep of key lengths around the block size against RFC 2104. */
    for (size_t key_len = 0; key_len <= 140; key_len += 7) {
        for (size_t data_len = 0; data_len <= 200; data_len += 41) {
            fill(key, key_len, key_len);
            fill(data, data_len, data_len + 1);
            WGTEST_CHECK(wg_crypto_hmac(mac, key, key_len, data, data_len));
            ref_hmac(ref, key, key_len, data, data_len);
            WGTEST_CHECK_MEM(mac, ref, sizeof mac);
        }
    }
}

struct kdf_case {
    size_t input_len;
    const char *t1, *t2, *t3;
};

/* key = fill(32, 0x55), input = fill(input_len, 0x66), from Python's hmac
 * module: t0 = HMAC(key, input), t1 = HMAC(t0, 01),
 * t2 = HMAC(t0, t1 || 02), t3 = HMAC(t0, t2 || 03). */
static const struct kdf_case kdf_cases[] = {
    { 0,
      "82415e2d4edb10e7a3451304c94960ab589640c4a3ef8bd92aae254be5fc6561",
      "681bae393f3711e216d4add601ba5cf798c67b18959d6fb9f3919086050e5c7d",
      "674e9b2b05c95bd3509d82c15f0e334d0fc6d72caa369462370c471322da24c2" },
    { 1,
      "2cd7345b9731298fdfd8bd1d8f4a194b81db1bbfa24db1079357ffbf39176b4a",
      "8a0731b1bb18cac33ce1e624672544ff012af4590816e9f7957f65d412848df2",
      "30ae0a721caf34472d04298a1a8b8c92e99bb99e8593b79b557c0424791c2154" },
    { 32,
      "b6ce06d8444af82bd47836ed7d36ceb5f37baec0a07a07c74d4ca6a65073d11e",
      "5964bfd622348659022df122db2b4a1417f28ed285341e7e8acb70fd2b895e55",
      "f89a3e6dfab1c7e2c7a52ae9c8d101cd06b73c7b3870a24ce5d050061b9e6f24" },
    { 100,
      "51280032c37eebfbc7cb80dd14ea195ebe56fc095a66ddc68e4a5cd2e37c74fe",
      "5b2047e916ce7d549e55cdacd954e67f8cbabc1301d399f73c32739caf640629",
      "affc53b844dd305986027230678356becb47479ad1ceb27ef63c362c26dc108b" },
};

/* The KDF as an explicit chain of wg_crypto_hmac() calls. */
static void
ref_kdf(uint8_t t[3][WG_HASH_LEN], const uint8_t key[WG_HASH_LEN],
        const uint8_t *input, size_t input_len)
{
    uint8_t t0[WG_HASH_LEN], buf[WG_HASH_LEN + 1];

    WGTEST_CHECK(wg_crypto_hmac(t0, key, WG_HASH_LEN, input, input_len));
    buf[0] = 1;
    WGTEST_CHECK(wg_crypto_hmac(t[0], t0, sizeof t0, buf, 1));
    memcpy(buf, t[0], WG_HASH_LEN);
    buf[WG_HASH_LEN] = 2;
    WGTEST_CHECK(wg_crypto_hmac(t[1], t0, sizeof t0, buf, sizeof buf));
    memcpy(buf, t[1], WG_HASH_LEN);
    buf[WG_HASH_LEN] = 3;
    WGTEST_CHECK(wg_crypto_hmac(t[2], t0, sizeof t0, buf, sizeof buf));
}

static void
test_kdf_vectors(void)
{
    uint8_t key[WG_HASH_LEN], input[100];
    uint8_t t1[WG_HASH_LEN], t2[WG_HASH_LEN], t3[WG_HASH_LEN];
    uint8_t ref[3][WG_HASH_LEN];

    for (size_t i = 0; i < ARRAY_SIZE(kdf_cases); i++) {
        const struct kdf_case *c = &kdf_cases[i];

        fill(key, sizeof key, 0x55);
        fill(input, c->input_len, 0x66);
        WGTEST_CHECK(wg_crypto_kdf(t1, t2, t3, key, input, c->input_len));
        WGTEST_CHECK_HEX(t1, sizeof t1, c->t1);
        WGTEST_CHECK_HEX(t2, sizeof t2, c->t2);
        WGTEST_CHECK_HEX(t3, sizeof t3, c->t3);
        ref_kdf(ref, key, input, c->input_len);
        WGTEST_CHECK_MEM(t1, ref[0], sizeof t1);
        WGTEST_CHECK_MEM(t2, ref[1], sizeof t2);
        WGTEST_CHECK_MEM(t3, ref[2], sizeof t3);

        /* Partial requests give the same values and leave the rest. */
        memset(t1, 0xaa, sizeof t1);
        memset(t3, 0xaa, sizeof t3);
        WGTEST_CHECK(wg_crypto_kdf(t1, NULL, NULL, key, input, c->input_len));
        WGTEST_CHECK_HEX(t1, sizeof t1, c->t1);
        WGTEST_CHECK(wg_crypto_kdf(NULL, t2, NULL, key, input, c->input_len));
        WGTEST_CHECK_HEX(t2, sizeof t2, c->t2);
        WGTEST_CHECK(wg_crypto_kdf(NULL, NULL, t3, key, input, c->input_len));
        WGTEST_CHECK_HEX(t3, sizeof t3, c->t3);
    }
    WGTEST_CHECK(wg_crypto_kdf(NULL, NULL, NULL, key, input,
                               0));     /* No-op. */

    /* Outputs may overwrite the key, as Noise's MixKey does. */
    fill(key, sizeof key, 0x55);
    fill(input, 32, 0x66);
    WGTEST_CHECK(wg_crypto_kdf(key, t2, NULL, key, input, 32));
    WGTEST_CHECK_HEX(key, sizeof key, kdf_cases[2].t1);
    WGTEST_CHECK_HEX(t2, sizeof t2, kdf_cases[2].t2);
}

static void
test_hmac_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    init();
    test_hmac_vectors();
    test_kdf_vectors();
}
WGTEST_REGISTER("crypto-hmac", test_hmac_main);

/* X25519. */

struct x25519_case {
    const char *scalar, *u, *out;
};

/* RFC 7748 section 5.2.  The second u has its top bit set, which X25519
 * must ignore. */
static const struct x25519_case x25519_cases[] = {
    { "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
      "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c",
      "c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552" },
    { "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
      "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493",
      "95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957" },
};

/* Points of small order (and non-canonical encodings of them): X25519 with
 * any of them is all zeros, which wg_crypto_dh() must refuse. */
static const char *const low_order_points[] = {
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
    "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
};

static void
test_x25519_rfc7748(void)
{
    uint8_t k[WG_KEY_LEN], u[WG_KEY_LEN], out[WG_KEY_LEN];

    for (size_t i = 0; i < ARRAY_SIZE(x25519_cases); i++) {
        wgtest_unhex(x25519_cases[i].scalar, k, sizeof k);
        wgtest_unhex(x25519_cases[i].u, u, sizeof u);
        WGTEST_CHECK(wg_crypto_dh(out, k, u));
        WGTEST_CHECK_HEX(out, sizeof out, x25519_cases[i].out);
    }

    /* Iterated: k = u = 9; then k, u = X25519(k, u), k. */
    memset(k, 0, sizeof k);
    k[0] = 9;
    memcpy(u, k, sizeof u);
    for (int i = 1; i <= 1000; i++) {
        WGTEST_CHECK(wg_crypto_dh(out, k, u));
        memcpy(u, k, sizeof u);
        memcpy(k, out, sizeof k);
        if (i == 1) {
            WGTEST_CHECK_HEX(k, sizeof k,
                             "422c8e7a6227d7bca1350b3e2bb7279f"
                             "7897b87bb6854b783c60e80311ae3079");
        }
    }
    WGTEST_CHECK_HEX(k, sizeof k, "684cf59ba83309552800ef566f2f4d3c"
                                  "1c3887c49360e3875f2eb94d99532c51");
}

/* RFC 7748 section 6.1. */
static void
test_x25519_alice_bob(void)
{
    uint8_t a_priv[WG_KEY_LEN], b_priv[WG_KEY_LEN];
    uint8_t pub[WG_KEY_LEN], a_pub[WG_KEY_LEN], b_pub[WG_KEY_LEN];
    uint8_t s1[WG_KEY_LEN], s2[WG_KEY_LEN];
    const char *shared = "4a5d9d5ba4ce2de1728e3bf480350f25"
                         "e07e21c947d19e3376f09b3c1e161742";

    wgtest_unhex("77076d0a7318a57d3c16c17251b26645"
                 "df4c2f87ebc0992ab177fba51db92c2a", a_priv, sizeof a_priv);
    wgtest_unhex("8520f0098930a754748b7ddcb43ef75a"
                 "0dbf3a0d26381af4eba4a98eaa9b4e6a", a_pub, sizeof a_pub);
    wgtest_unhex("5dab087e624a8a4b79e17f8b83800ee6"
                 "6f3bb1292618b6fd1c2f8b27ff88e0eb", b_priv, sizeof b_priv);
    wgtest_unhex("de9edb7d7b7dc1b4d35b61c2ece43537"
                 "3f8343c85b78674dadfc7e146f882b4f", b_pub, sizeof b_pub);

    WGTEST_CHECK(wg_crypto_public_key(pub, a_priv));
    WGTEST_CHECK_MEM(pub, a_pub, sizeof pub);
    WGTEST_CHECK(wg_crypto_public_key(pub, b_priv));
    WGTEST_CHECK_MEM(pub, b_pub, sizeof pub);
    WGTEST_CHECK(wg_crypto_dh(s1, a_priv, b_pub));
    WGTEST_CHECK(wg_crypto_dh(s2, b_priv, a_pub));
    WGTEST_CHECK_HEX(s1, sizeof s1, shared);
    WGTEST_CHECK_HEX(s2, sizeof s2, shared);
}

static void
test_x25519_low_order(void)
{
    uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN], out[WG_KEY_LEN];

    for (int round = 0; round < 4; round++) {
        wg_crypto_generate_private_key(priv);
        for (size_t i = 0; i < ARRAY_SIZE(low_order_points); i++) {
            wgtest_unhex(low_order_points[i], pub, sizeof pub);
            memset(out, 0xaa, sizeof out);
            WGTEST_CHECK(!wg_crypto_dh(out, priv, pub));
            WGTEST_CHECK(wg_crypto_is_zero(out, sizeof out));
        }
    }

    /* An all-zero private key is "no key". */
    memset(priv, 0, sizeof priv);
    WGTEST_CHECK(!wg_crypto_public_key(pub, priv));
    WGTEST_CHECK(wg_crypto_is_zero(pub, sizeof pub));
}

static void
test_x25519_generate(void)
{
    uint8_t a[WG_KEY_LEN], b[WG_KEY_LEN], a_pub[WG_KEY_LEN], b_pub[32];
    uint8_t s1[WG_KEY_LEN], s2[WG_KEY_LEN];

    for (int i = 0; i < 16; i++) {
        wg_crypto_generate_private_key(a);
        wg_crypto_generate_private_key(b);
        WGTEST_CHECK((a[0] & 7) == 0 && (a[31] & 0xc0) == 0x40);
        WGTEST_CHECK(memcmp(a, b, sizeof a));
        WGTEST_CHECK(wg_crypto_public_key(a_pub, a));
        WGTEST_CHECK(wg_crypto_public_key(b_pub, b));
        WGTEST_CHECK(wg_crypto_dh(s1, a, b_pub));
        WGTEST_CHECK(wg_crypto_dh(s2, b, a_pub));
        WGTEST_CHECK_MEM(s1, s2, sizeof s1);
    }
}

static void
test_x25519_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    init();
    test_x25519_rfc7748();
    test_x25519_alice_bob();
    test_x25519_low_order();
    test_x25519_generate();
}
WGTEST_REGISTER("crypto-x25519", test_x25519_main);

/* Encodings and utilities. */

static void
test_base64(void)
{
    static const char *const bad[] = {
        "",
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",      /* 43. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8==",    /* 45. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n",   /* 45. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHg==",     /* 31 bytes. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh9=",     /* Stray bits. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8A",     /* No pad. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwd=h8A",     /* Pad inside. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxw!Hh8=",     /* Bad char. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxw Hh8=",     /* Space. */
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxw_Hh8=",     /* URL-safe. */
    };
    uint8_t key[WG_KEY_LEN], back[WG_KEY_LEN];
    char b64[WG_KEY_B64_LEN];

    for (int i = 0; i < WG_KEY_LEN; i++) {
        key[i] = i;
    }
    wg_crypto_key_to_base64(b64, key);
    WGTEST_CHECK(!strcmp(b64, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="));
    WGTEST_CHECK(wg_crypto_key_from_base64(back, b64));
    WGTEST_CHECK_MEM(back, key, sizeof key);

    for (int i = 0; i < 200; i++) {
        wg_crypto_random(key, sizeof key);
        wg_crypto_key_to_base64(b64, key);
        WGTEST_CHECK(strlen(b64) == 44 && b64[43] == '=');
        WGTEST_CHECK(wg_crypto_key_from_base64(back, b64));
        WGTEST_CHECK_MEM(back, key, sizeof key);
    }

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        memset(back, 0xaa, sizeof back);
        if (wg_crypto_key_from_base64(back, bad[i])) {
            fprintf(stderr, "accepted bad base64 \"%s\"\n", bad[i]);
            WGTEST_CHECK(false);
        }
        WGTEST_CHECK(wg_crypto_is_zero(back, sizeof back));
    }
    WGTEST_CHECK(!wg_crypto_key_from_base64(back, NULL));
}

static void
test_hex(void)
{
    static const char *const bad[] = {
        "",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0",
        "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1g",
        "0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        "000102030405060708090a0b0c0d0e0f 01112131415161718191a1b1c1d1e1f",
    };
    const char *hex = "000102030405060708090a0b0c0d0e0f"
                      "101112131415161718191a1b1c1d1e1f";
    const char *upper = "000102030405060708090A0B0C0D0E0F"
                        "101112131415161718191A1B1C1D1E1F";
    uint8_t key[WG_KEY_LEN], back[WG_KEY_LEN];
    char str[WG_KEY_HEX_LEN];

    for (int i = 0; i < WG_KEY_LEN; i++) {
        key[i] = i;
    }
    wg_crypto_key_to_hex(str, key);
    WGTEST_CHECK(!strcmp(str, hex));
    WGTEST_CHECK(wg_crypto_key_from_hex(back, str));
    WGTEST_CHECK_MEM(back, key, sizeof key);
    WGTEST_CHECK(wg_crypto_key_from_hex(back, upper));
    WGTEST_CHECK_MEM(back, key, sizeof key);

    for (int i = 0; i < 200; i++) {
        wg_crypto_random(key, sizeof key);
        wg_crypto_key_to_hex(str, key);
        WGTEST_CHECK(strlen(str) == 64);
        WGTEST_CHECK(wg_crypto_key_from_hex(back, str));
        WGTEST_CHECK_MEM(back, key, sizeof key);
    }

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        memset(back, 0xaa, sizeof back);
        if (wg_crypto_key_from_hex(back, bad[i])) {
            fprintf(stderr, "accepted bad hex \"%s\"\n", bad[i]);
            WGTEST_CHECK(false);
        }
        WGTEST_CHECK(wg_crypto_is_zero(back, sizeof back));
    }
    WGTEST_CHECK(!wg_crypto_key_from_hex(back, NULL));
}

static void
test_utilities(void)
{
    uint8_t a[64], b[64];

    memset(a, 0x5a, sizeof a);
    memcpy(b, a, sizeof b);
    WGTEST_CHECK(wg_crypto_equal(a, b, sizeof a));
    WGTEST_CHECK(!wg_crypto_is_zero(a, sizeof a));
    for (size_t i = 0; i < sizeof a; i++) {
        b[i] ^= 1;
        WGTEST_CHECK(!wg_crypto_equal(a, b, sizeof a));
        b[i] ^= 1;
    }
    wg_crypto_wipe(a, sizeof a);
    WGTEST_CHECK(wg_crypto_is_zero(a, sizeof a));
    a[63] = 1;
    WGTEST_CHECK(!wg_crypto_is_zero(a, sizeof a));

    wg_crypto_random(a, sizeof a);
    wg_crypto_random(b, sizeof b);
    WGTEST_CHECK(memcmp(a, b, sizeof a));
}

static void
test_encoding_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    init();
    test_base64();
    test_hex();
    test_utilities();
}
WGTEST_REGISTER("crypto-encoding", test_encoding_main);
