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
#include "wg-cookie.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <string.h>
#include "util.h"
#include "wgtest.h"

/* Unit tests of mac1, mac2 and cookie replies, against the whitepaper's
 * formulas computed here with literal labels. */

static struct sockaddr_in
sin_make(const char *addr, uint16_t port)
{
    struct sockaddr_in sin;

    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    WGTEST_CHECK(inet_pton(AF_INET, addr, &sin.sin_addr) == 1);
    return sin;
}

static struct sockaddr_in6
sin6_make(const char *addr, uint16_t port)
{
    struct sockaddr_in6 sin6;

    memset(&sin6, 0, sizeof sin6);
    sin6.sin6_family = AF_INET6;
    sin6.sin6_port = htons(port);
    WGTEST_CHECK(inet_pton(AF_INET6, addr, &sin6.sin6_addr) == 1);
    return sin6;
}

/* A handshake-sized message with random content. */
static void
random_msg(struct wg_msg_initiation *msg)
{
    wg_crypto_random(msg, sizeof *msg);
    msg->type = htole32(WG_MSG_INITIATION);
}

static void
check_mac1(const struct wg_msg_initiation *msg, const uint8_t pub[WG_KEY_LEN])
{
    uint8_t key[WG_KEY_LEN], mac[WG_MAC_LEN];

    WGTEST_CHECK(wg_crypto_hash(key, "mac1----", 8, pub, WG_KEY_LEN));
    WGTEST_CHECK(wg_crypto_keyed_hash(mac, WG_MAC_LEN, key, WG_KEY_LEN, msg,
                                      116));
    WGTEST_CHECK_MEM(mac, msg->macs.mac1, WG_MAC_LEN);
}

/* Decrypts 'reply' independently: XChaCha20-Poly1305 under
 * HASH("cookie--" || pub), with the answered message's mac1 as AD. */
static void
open_reply(const struct wg_msg_cookie_reply *reply,
           const uint8_t pub[WG_KEY_LEN], const uint8_t mac1[WG_MAC_LEN],
           uint8_t cookie[WG_COOKIE_LEN])
{
    uint8_t key[WG_KEY_LEN];

    WGTEST_CHECK(wg_crypto_hash(key, "cookie--", 8, pub, WG_KEY_LEN));
    WGTEST_CHECK(wg_crypto_xaead_open(cookie, reply->encrypted_cookie, 32,
                                      mac1, WG_MAC_LEN, reply->nonce, key));
}

static void
test_cookie_macs(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct sockaddr_in src = sin_make("192.0.2.1", 51820);
    struct wg_cookie_checker checker;
    struct wg_cookie_maker maker;
    struct wg_msg_initiation msg;
    uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];
    const struct sockaddr *sa = (const struct sockaddr *) &src;

    wg_crypto_init();
    wg_crypto_generate_private_key(priv);
    WGTEST_CHECK(wg_crypto_public_key(pub, priv));
    wg_cookie_checker_init(&checker, pub);
    wg_cookie_maker_init(&maker, pub);

    random_msg(&msg);
    WGTEST_CHECK(wg_cookie_add_macs(&maker, &msg, sizeof msg, 0));
    check_mac1(&msg, pub);
    WGTEST_CHECK(wg_crypto_is_zero(msg.macs.mac2, WG_MAC_LEN));
    WGTEST_CHECK(wg_cookie_validate(&checker, &msg, sizeof msg, sa, false, 0)
                 == WG_COOKIE_MAC1_OK);
    WGTEST_CHECK(wg_cookie_validate(&checker, &msg, sizeof msg, sa, true, 0)
                 == WG_COOKIE_MAC1_OK_NO_COOKIE);

    /* Any change before mac1, or to mac1 itself, breaks it. */
    for (size_t i = 0; i < 116 + WG_MAC_LEN; i += 7) {
        struct wg_msg_initiation bad = msg;

        ((uint8_t *) &bad)[i] ^= 0x80;
        WGTEST_CHECK(wg_cookie_validate(&checker, &bad, sizeof bad, sa,
                                        false, 0) == WG_COOKIE_BAD_MAC1);
    }

    /* A checker for another key rejects it too. */
    {
        struct wg_cookie_checker other;
        uint8_t pub2[WG_KEY_LEN];

        memcpy(pub2, pub, sizeof pub2);
        pub2[0] ^= 1;
        wg_cookie_checker_init(&other, pub2);
        WGTEST_CHECK(wg_cookie_validate(&other, &msg, sizeof msg, sa, false,
                                        0) == WG_COOKIE_BAD_MAC1);
        wg_cookie_checker_init(&other, NULL);
        WGTEST_CHECK(wg_cookie_validate(&other, &msg, sizeof msg, sa, false,
                                        0) == WG_COOKIE_BAD_MAC1);
    }
    wg_cookie_checker_clear(&checker);
    wg_cookie_maker_clear(&maker);
    printf("mac1 ok\n");
}
WGTEST_REGISTER("cookie-macs", test_cookie_macs);

/* Source variants that must each get a different cookie. */
static bool
mac2_ok_from(struct wg_cookie_checker *checker,
             const struct wg_msg_initiation *msg, const struct sockaddr *sa,
             long long int now)
{
    return (wg_cookie_validate(checker, msg, sizeof *msg, sa, true, now)
            == WG_COOKIE_MAC1_OK_WITH_COOKIE);
}

static void
cookie_round_trip(const struct sockaddr *sa, const struct sockaddr *other,
                  const struct sockaddr *other_port)
{
    struct wg_cookie_checker checker;
    struct wg_cookie_maker maker;
    struct wg_msg_cookie_reply reply, bad;
    struct wg_msg_initiation msg;
    uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];
    uint8_t cookie[WG_COOKIE_LEN], mac[WG_MAC_LEN];
    long long int t0 = 1000;

    wg_crypto_generate_private_key(priv);
    WGTEST_CHECK(wg_crypto_public_key(pub, priv));
    wg_cookie_checker_init(&checker, pub);
    wg_cookie_maker_init(&maker, pub);

    random_msg(&msg);
    WGTEST_CHECK(wg_cookie_add_macs(&maker, &msg, sizeof msg, t0));
    WGTEST_CHECK(wg_cookie_make_reply(&checker, &reply, &msg, sizeof msg,
                                      0xabcd, sa, t0));
    WGTEST_CHECK(le32toh(reply.type) == WG_MSG_COOKIE_REPLY);
    WGTEST_CHECK(le32toh(reply.receiver) == 0xabcd);
    open_reply(&reply, pub, msg.macs.mac1, cookie);

    /* Tampered replies are refused; the real one is taken once. */
    bad = reply;
    bad.nonce[0] ^= 1;
    WGTEST_CHECK(!wg_cookie_consume_reply(&maker, &bad, t0));
    bad = reply;
    bad.encrypted_cookie[31] ^= 1;
    WGTEST_CHECK(!wg_cookie_consume_reply(&maker, &bad, t0));
    WGTEST_CHECK(wg_cookie_consume_reply(&maker, &reply, t0));
    WGTEST_CHECK(!wg_cookie_consume_reply(&maker, &reply, t0));

    /* mac2 = MAC(cookie, msg[0:132]) on the next message. */
    random_msg(&msg);
    WGTEST_CHECK(wg_cookie_add_macs(&maker, &msg, sizeof msg, t0 + 10));
    WGTEST_CHECK(wg_crypto_keyed_hash(mac, WG_MAC_LEN, cookie, WG_COOKIE_LEN,
                                      &msg, 132));
    WGTEST_CHECK_MEM(mac, msg.macs.mac2, WG_MAC_LEN);
    WGTEST_CHECK(mac2_ok_from(&checker, &msg, sa, t0 + 10));
    WGTEST_CHECK(!mac2_ok_from(&checker, &msg, other, t0 + 10));
    WGTEST_CHECK(!mac2_ok_from(&checker, &msg, other_port, t0 + 10));

    /* A reply bound to an older mac1 does not apply to the newer one. */
    WGTEST_CHECK(!wg_cookie_consume_reply(&maker, &reply, t0 + 10));

    /* The initiator uses the cookie for 120 s; the responder's secret
     * also lives 120 s from its creation (at t0). */
    random_msg(&msg);
    WGTEST_CHECK(wg_cookie_add_macs(&maker, &msg, sizeof msg, t0 + 119999));
    WGTEST_CHECK(!wg_crypto_is_zero(msg.macs.mac2, WG_MAC_LEN));
    WGTEST_CHECK(mac2_ok_from(&checker, &msg, sa, t0 + 119999));
    WGTEST_CHECK(!mac2_ok_from(&checker, &msg, sa, t0 + 120000));
    WGTEST_CHECK(wg_cookie_add_macs(&maker, &msg, sizeof msg, t0 + 120000));
    WGTEST_CHECK(wg_crypto_is_zero(msg.macs.mac2, WG_MAC_LEN));
    wg_cookie_checker_clear(&checker);
    wg_cookie_maker_clear(&maker);
}

static void
test_cookie_reply(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct sockaddr_in a = sin_make("192.0.2.1", 51820);
    struct sockaddr_in b = sin_make("192.0.2.2", 51820);
    struct sockaddr_in c = sin_make("192.0.2.1", 51821);
    struct sockaddr_in6 a6 = sin6_make("2001:db8::1", 51820);
    struct sockaddr_in6 b6 = sin6_make("2001:db8::2", 51820);
    struct sockaddr_in6 c6 = sin6_make("2001:db8::1", 1);

    wg_crypto_init();
    cookie_round_trip((struct sockaddr *) &a, (struct sockaddr *) &b,
                      (struct sockaddr *) &c);
    cookie_round_trip((struct sockaddr *) &a6, (struct sockaddr *) &b6,
                      (struct sockaddr *) &c6);
    printf("cookie replies ok\n");
}
WGTEST_REGISTER("cookie-reply", test_cookie_reply);
