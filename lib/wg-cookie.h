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

#ifndef WG_COOKIE_H
#define WG_COOKIE_H 1

/* MAC1/MAC2 and cookie replies (whitepaper 5.4.4 and 5.4.7).
 *
 * Every handshake message carries mac1 = MAC(HASH(LABEL_MAC1 || Sr), msg),
 * keyed with the receiver's static public key, so that only someone who
 * knows that key can make a responder do any DH.  Under load the responder
 * also wants mac2 = MAC(cookie, msg), where the cookie is
 * MAC(secret, source address and port) and the secret changes every
 * WG_COOKIE_SECRET_MAX_AGE_MS.  Without a valid mac2 it answers with a
 * cookie reply, encrypted with XChaCha20-Poly1305 under
 * HASH(LABEL_COOKIE || Sr) and bound to the message's mac1. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "wg-crypto.h"
#include "wg-messages.h"

/* Receiving side, one per device. */
struct wg_cookie_checker {
    bool has_key;
    uint8_t mac1_key[WG_KEY_LEN];       /* HASH(LABEL_MAC1 || our S). */
    uint8_t reply_key[WG_KEY_LEN];      /* HASH(LABEL_COOKIE || our S). */
    uint8_t secret[WG_HASH_LEN];
    long long int secret_birth_ms;
    bool has_secret;
};

/* Sending side, one per peer. */
struct wg_cookie_maker {
    bool has_key;                       /* False if the keys failed. */
    uint8_t mac1_key[WG_KEY_LEN];       /* HASH(LABEL_MAC1 || peer S). */
    uint8_t reply_key[WG_KEY_LEN];      /* HASH(LABEL_COOKIE || peer S). */
    uint8_t cookie[WG_COOKIE_LEN];
    long long int cookie_birth_ms;
    bool has_cookie;
    uint8_t last_mac1[WG_MAC_LEN];      /* Binds the next cookie reply. */
    bool has_sent_mac1;
};

/* Verdict on a received handshake message. */
enum wg_cookie_mac_state {
    WG_COOKIE_BAD_MAC1,
    WG_COOKIE_MAC1_OK,                  /* mac2 not checked. */
    WG_COOKIE_MAC1_OK_NO_COOKIE,        /* mac2 checked and wrong. */
    WG_COOKIE_MAC1_OK_WITH_COOKIE,      /* mac2 checked and right. */
};

/* Sets up 'c' for our static public key 'pub' (NULL: no identity).  The
 * cookie secret is generated on first use.  If hashing fails, 'c' is left
 * without an identity, so that it accepts no message (fail closed). */
void wg_cookie_checker_init(struct wg_cookie_checker *c,
                            const uint8_t pub[WG_KEY_LEN]);

/* Wipes 'c'. */
void wg_cookie_checker_clear(struct wg_cookie_checker *c);

/* Checks the MACs of handshake message 'msg' ('len' bytes, ending with
 * struct wg_msg_macs) received from 'src'.  mac2 is checked only if
 * 'check_cookie'.  A MAC that cannot be computed never matches:
 * WG_COOKIE_BAD_MAC1 for mac1, WG_COOKIE_MAC1_OK_NO_COOKIE for mac2. */
enum wg_cookie_mac_state wg_cookie_validate(struct wg_cookie_checker *c,
                                            const void *msg, size_t len,
                                            const struct sockaddr *src,
                                            bool check_cookie,
                                            long long int now_ms);

/* Builds in 'reply' the cookie reply for handshake message 'msg' ('len'
 * bytes) from 'src', addressed to its sender index 'sender'.  Returns false
 * if the crypto failed: then 'reply' must not be sent. */
OVS_WARN_UNUSED_RESULT
bool wg_cookie_make_reply(struct wg_cookie_checker *c,
                          struct wg_msg_cookie_reply *reply,
                          const void *msg, size_t len, uint32_t sender,
                          const struct sockaddr *src, long long int now_ms);

/* Sets up 'm' for a peer with static public key 'pub'.  If hashing fails,
 * 'm' has no key and wg_cookie_add_macs() fails. */
void wg_cookie_maker_init(struct wg_cookie_maker *m,
                          const uint8_t pub[WG_KEY_LEN]);

/* Wipes 'm'. */
void wg_cookie_maker_clear(struct wg_cookie_maker *m);

/* Fills the MACs at the end of handshake message 'msg' ('len' bytes): mac1
 * always, mac2 from the stored cookie if younger than
 * WG_COOKIE_MAX_AGE_MS, zeros otherwise.  Returns false if 'm' has no key
 * or the crypto failed: then 'msg' must not be sent. */
OVS_WARN_UNUSED_RESULT
bool wg_cookie_add_macs(struct wg_cookie_maker *m, void *msg, size_t len,
                        long long int now_ms);

/* Decrypts cookie reply 'reply' and stores its cookie.  Returns false if it
 * does not authenticate against the last mac1 we sent (or we sent none
 * since the last accepted reply). */
bool wg_cookie_consume_reply(struct wg_cookie_maker *m,
                             const struct wg_msg_cookie_reply *reply,
                             long long int now_ms);

#endif /* wg-cookie.h */
