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

#include <endian.h>
#include <netinet/in.h>
#include <string.h>
#include "util.h"

/* key = HASH(label || pub). */
static bool
derive_key(uint8_t key[WG_KEY_LEN], const char *label,
           const uint8_t pub[WG_KEY_LEN])
{
    return wg_crypto_hash(key, label, strlen(label), pub, WG_KEY_LEN);
}

static struct wg_msg_macs *
msg_macs(void *msg, size_t len)
{
    return (struct wg_msg_macs *) ((uint8_t *) msg + len
                                   - sizeof(struct wg_msg_macs));
}

/* MAC(key, msg[0:mac1]) and MAC(key, msg[0:mac2]). */
static bool
compute_mac1(uint8_t out[WG_MAC_LEN], const uint8_t key[WG_KEY_LEN],
             const void *msg, size_t len)
{
    return wg_crypto_keyed_hash(out, WG_MAC_LEN, key, WG_KEY_LEN,
                         msg, WG_MSG_MAC1_OFFSET(len));
}

static bool
compute_mac2(uint8_t out[WG_MAC_LEN], const uint8_t cookie[WG_COOKIE_LEN],
             const void *msg, size_t len)
{
    return wg_crypto_keyed_hash(out, WG_MAC_LEN, cookie, WG_COOKIE_LEN,
                         msg, WG_MSG_MAC2_OFFSET(len));
}

/* Checker (responder side). */

void
wg_cookie_checker_init(struct wg_cookie_checker *c,
                       const uint8_t pub[WG_KEY_LEN])
{
    wg_cookie_checker_clear(c);
    if (pub && derive_key(c->mac1_key, WG_LABEL_MAC1, pub)
        && derive_key(c->reply_key, WG_LABEL_COOKIE, pub)) {
        c->has_key = true;
    } else {
        wg_cookie_checker_clear(c);
    }
}

void
wg_cookie_checker_clear(struct wg_cookie_checker *c)
{
    wg_crypto_wipe(c, sizeof *c);
}

/* The secret, replaced once older than WG_COOKIE_SECRET_MAX_AGE_MS. */
static const uint8_t *
checker_secret(struct wg_cookie_checker *c, long long int now_ms)
{
    if (!c->has_secret
        || now_ms - c->secret_birth_ms >= WG_COOKIE_SECRET_MAX_AGE_MS) {
        wg_crypto_random(c->secret, sizeof c->secret);
        c->secret_birth_ms = now_ms;
        c->has_secret = true;
    }
    return c->secret;
}

/* The cookie of source 'src': MAC(secret, address || port). */
static bool
make_cookie(struct wg_cookie_checker *c, uint8_t cookie[WG_COOKIE_LEN],
            const struct sockaddr *src, long long int now_ms)
{
    uint8_t input[sizeof(struct in6_addr) + sizeof(in_port_t)];
    size_t n = 0;

    if (src && src->sa_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *) src;

        memcpy(input, &sin->sin_addr, sizeof sin->sin_addr);
        memcpy(input + sizeof sin->sin_addr, &sin->sin_port,
               sizeof sin->sin_port);
        n = sizeof sin->sin_addr + sizeof sin->sin_port;
    } else if (src && src->sa_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) src;

        memcpy(input, &sin6->sin6_addr, sizeof sin6->sin6_addr);
        memcpy(input + sizeof sin6->sin6_addr, &sin6->sin6_port,
               sizeof sin6->sin6_port);
        n = sizeof sin6->sin6_addr + sizeof sin6->sin6_port;
    }
    return wg_crypto_keyed_hash(cookie, WG_COOKIE_LEN,
                                checker_secret(c, now_ms), WG_HASH_LEN,
                                input, n);
}

enum wg_cookie_mac_state
wg_cookie_validate(struct wg_cookie_checker *c, const void *msg, size_t len,
                   const struct sockaddr *src, bool check_cookie,
                   long long int now_ms)
{
    const struct wg_msg_macs *macs = msg_macs(CONST_CAST(void *, msg), len);
    uint8_t cookie[WG_COOKIE_LEN];
    uint8_t mac[WG_MAC_LEN];
    bool ok;

    if (!c->has_key) {
        return WG_COOKIE_BAD_MAC1;
    }
    if (!compute_mac1(mac, c->mac1_key, msg, len)
        || !wg_crypto_equal(mac, macs->mac1, WG_MAC_LEN)) {
        return WG_COOKIE_BAD_MAC1;
    }
    if (!check_cookie) {
        return WG_COOKIE_MAC1_OK;
    }
    ok = (make_cookie(c, cookie, src, now_ms)
          && compute_mac2(mac, cookie, msg, len)
          && wg_crypto_equal(mac, macs->mac2, WG_MAC_LEN));
    wg_crypto_wipe(cookie, sizeof cookie);
    return ok ? WG_COOKIE_MAC1_OK_WITH_COOKIE : WG_COOKIE_MAC1_OK_NO_COOKIE;
}

bool
wg_cookie_make_reply(struct wg_cookie_checker *c,
                     struct wg_msg_cookie_reply *reply,
                     const void *msg, size_t len, uint32_t sender,
                     const struct sockaddr *src, long long int now_ms)
{
    const struct wg_msg_macs *macs = msg_macs(CONST_CAST(void *, msg), len);
    uint8_t cookie[WG_COOKIE_LEN];
    bool ok;

    reply->type = htole32(WG_MSG_COOKIE_REPLY);
    reply->receiver = htole32(sender);
    wg_crypto_random(reply->nonce, sizeof reply->nonce);
    ok = (c->has_key
          && make_cookie(c, cookie, src, now_ms)
          && wg_crypto_xaead_seal(reply->encrypted_cookie, cookie,
                                  sizeof cookie, macs->mac1, WG_MAC_LEN,
                                  reply->nonce, c->reply_key));
    wg_crypto_wipe(cookie, sizeof cookie);
    return ok;
}

/* Maker (initiator side, and responder's responses). */

void
wg_cookie_maker_init(struct wg_cookie_maker *m,
                     const uint8_t pub[WG_KEY_LEN])
{
    memset(m, 0, sizeof *m);
    m->has_key = (derive_key(m->mac1_key, WG_LABEL_MAC1, pub)
                  && derive_key(m->reply_key, WG_LABEL_COOKIE, pub));
}

void
wg_cookie_maker_clear(struct wg_cookie_maker *m)
{
    wg_crypto_wipe(m, sizeof *m);
}

bool
wg_cookie_add_macs(struct wg_cookie_maker *m, void *msg, size_t len,
                   long long int now_ms)
{
    struct wg_msg_macs *macs = msg_macs(msg, len);

    if (!m->has_key || !compute_mac1(macs->mac1, m->mac1_key, msg, len)) {
        return false;
    }
    memcpy(m->last_mac1, macs->mac1, WG_MAC_LEN);
    m->has_sent_mac1 = true;

    if (m->has_cookie
        && now_ms - m->cookie_birth_ms < WG_COOKIE_MAX_AGE_MS) {
        return compute_mac2(macs->mac2, m->cookie, msg, len);
    }
    memset(macs->mac2, 0, WG_MAC_LEN);
    return true;
}

bool
wg_cookie_consume_reply(struct wg_cookie_maker *m,
                        const struct wg_msg_cookie_reply *reply,
                        long long int now_ms)
{
    uint8_t cookie[WG_COOKIE_LEN];

    if (!m->has_sent_mac1
        || !wg_crypto_xaead_open(cookie, reply->encrypted_cookie,
                                 sizeof reply->encrypted_cookie,
                                 m->last_mac1, WG_MAC_LEN, reply->nonce,
                                 m->reply_key)) {
        return false;
    }
    memcpy(m->cookie, cookie, sizeof cookie);
    wg_crypto_wipe(cookie, sizeof cookie);
    m->cookie_birth_ms = now_ms;
    m->has_cookie = true;
    m->has_sent_mac1 = false;
    return true;
}
