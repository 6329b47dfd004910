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

#ifndef WG_MESSAGES_H
#define WG_MESSAGES_H 1

/* WireGuard wire formats and protocol constants.
 *
 * Every multi-byte integer on the wire is little-endian, except inside the
 * TAI64N timestamp (big-endian, as TAI64N defines).  The structs are packed
 * so that they can overlay a received buffer at any alignment.  Times carry
 * their unit in their names. */

#include <stdint.h>
#include "openvswitch/compiler.h"
#include "wg-crypto.h"

/* Noise and WireGuard strings (whitepaper section 5.4). */
#define WG_NOISE_CONSTRUCTION "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s"
#define WG_NOISE_IDENTIFIER "WireGuard v1 zx2c4 Jason@zx2c4.com"
#define WG_LABEL_MAC1 "mac1----"
#define WG_LABEL_COOKIE "cookie--"

/* Message types (first byte; the next three bytes are reserved zeros). */
enum wg_msg_type {
    WG_MSG_INITIATION = 1,
    WG_MSG_RESPONSE = 2,
    WG_MSG_COOKIE_REPLY = 3,
    WG_MSG_DATA = 4,
};

/* Sizes of the fields that the messages share. */
#define WG_MAC_LEN 16                   /* mac1, mac2: keyed BLAKE2s-128. */
#define WG_COOKIE_LEN 16                /* Cookie value. */
#define WG_TAI64N_LEN 12                /* 8 bytes seconds, 4 nanoseconds. */
#define WG_SEALED_LEN(PLAIN_LEN) ((PLAIN_LEN) + WG_AEAD_TAG_LEN)

/* The two MACs that close every handshake message.  mac1 covers the message
 * up to 'mac1', mac2 covers it up to 'mac2'. */
OVS_PACKED(
struct wg_msg_macs {
    uint8_t mac1[WG_MAC_LEN];
    uint8_t mac2[WG_MAC_LEN];
});

/* Handshake initiation, 148 bytes (whitepaper 5.4.2). */
OVS_PACKED(
struct wg_msg_initiation {
    uint32_t type;              /* WG_MSG_INITIATION, little-endian. */
    uint32_t sender;            /* Initiator's receiver index. */
    uint8_t ephemeral[WG_KEY_LEN];
    uint8_t encrypted_static[WG_SEALED_LEN(WG_KEY_LEN)];
    uint8_t encrypted_timestamp[WG_SEALED_LEN(WG_TAI64N_LEN)];
    struct wg_msg_macs macs;
});

/* Handshake response, 92 bytes (whitepaper 5.4.3). */
OVS_PACKED(
struct wg_msg_response {
    uint32_t type;              /* WG_MSG_RESPONSE. */
    uint32_t sender;            /* Responder's receiver index. */
    uint32_t receiver;          /* Initiator's index, from the initiation. */
    uint8_t ephemeral[WG_KEY_LEN];
    uint8_t encrypted_nothing[WG_SEALED_LEN(0)];
    struct wg_msg_macs macs;
});

/* Cookie reply, 64 bytes (whitepaper 5.4.7). */
OVS_PACKED(
struct wg_msg_cookie_reply {
    uint32_t type;              /* WG_MSG_COOKIE_REPLY. */
    uint32_t receiver;          /* Sender index of the message answered. */
    uint8_t nonce[WG_XAEAD_NONCE_LEN];
    uint8_t encrypted_cookie[WG_SEALED_LEN(WG_COOKIE_LEN)];
});

/* Transport data header, 16 bytes, followed by the encrypted, padded inner
 * packet and its 16-byte tag (whitepaper 5.4.6). */
OVS_PACKED(
struct wg_msg_data {
    uint32_t type;              /* WG_MSG_DATA. */
    uint32_t receiver;          /* Receiver's index for this keypair. */
    uint64_t counter;           /* Nonce, little-endian. */
});

#define WG_MSG_INITIATION_LEN 148
#define WG_MSG_RESPONSE_LEN 92
#define WG_MSG_COOKIE_REPLY_LEN 64
#define WG_MSG_DATA_HEADER_LEN 16
#define WG_MSG_DATA_MIN_LEN (WG_MSG_DATA_HEADER_LEN + WG_AEAD_TAG_LEN)
#define WG_MSG_KEEPALIVE_LEN WG_MSG_DATA_MIN_LEN

BUILD_ASSERT_DECL(sizeof(struct wg_msg_initiation) == WG_MSG_INITIATION_LEN);
BUILD_ASSERT_DECL(sizeof(struct wg_msg_response) == WG_MSG_RESPONSE_LEN);
BUILD_ASSERT_DECL(sizeof(struct wg_msg_cookie_reply)
                  == WG_MSG_COOKIE_REPLY_LEN);
BUILD_ASSERT_DECL(sizeof(struct wg_msg_data) == WG_MSG_DATA_HEADER_LEN);

/* Offsets of the MACs: mac1 covers the bytes before it, mac2 likewise. */
#define WG_MSG_MAC1_OFFSET(LEN) ((LEN) - 2 * WG_MAC_LEN)
#define WG_MSG_MAC2_OFFSET(LEN) ((LEN) - WG_MAC_LEN)

/* Padding of the inner packet before encryption. */
#define WG_MESSAGE_PADDING_MULTIPLE 16

/* Message counters (whitepaper 6.1; the window is the replay window's). */
#define WG_REKEY_AFTER_MESSAGES (UINT64_C(1) << 60)
#define WG_REJECT_AFTER_MESSAGES (UINT64_MAX - WG_COUNTER_WINDOW_SIZE - 1)
#define WG_COUNTER_WINDOW_SIZE 8128     /* == WG_REPLAY_WINDOW_SIZE. */

/* Timers (whitepaper 6.1 to 6.5). */
#define WG_REKEY_AFTER_TIME_MS 120000
#define WG_REJECT_AFTER_TIME_MS 180000
#define WG_REKEY_ATTEMPT_TIME_MS 90000
#define WG_REKEY_TIMEOUT_MS 5000
#define WG_REKEY_TIMEOUT_JITTER_MAX_MS 333
#define WG_KEEPALIVE_TIMEOUT_MS 10000

/* The initiator starts a new handshake when it receives data on a keypair
 * this old, so that it never has to wait for REJECT_AFTER_TIME: 165 s. */
#define WG_REKEY_ON_RECEIVE_AFTER_TIME_MS                               \
    (WG_REJECT_AFTER_TIME_MS - WG_KEEPALIVE_TIMEOUT_MS - WG_REKEY_TIMEOUT_MS)

/* All keys and handshake state are erased after this much silence: 540 s. */
#define WG_ZERO_KEYS_AFTER_TIME_MS (WG_REJECT_AFTER_TIME_MS * 3)

/* Handshake retransmissions before giving up: REKEY_ATTEMPT_TIME spread in
 * REKEY_TIMEOUT steps (18). */
#define WG_MAX_TIMER_HANDSHAKES                                         \
    (WG_REKEY_ATTEMPT_TIME_MS / WG_REKEY_TIMEOUT_MS)

/* A peer sends no more than one initiation every REKEY_TIMEOUT. */
#define WG_MIN_INITIATION_SEND_INTERVAL_MS WG_REKEY_TIMEOUT_MS

/* A responder consumes at most this many initiations per second from one
 * peer (flood protection), i.e. one every 20 ms. */
#define WG_INITIATIONS_PER_SECOND 50
#define WG_MIN_INITIATION_CONSUME_INTERVAL_MS                           \
    (1000 / WG_INITIATIONS_PER_SECOND)

/* Handshakes a device starts on data messages for sessions it forgot (see
 * wg-device-rx.c), at most, all peers together: unauthenticated packets
 * must not buy more DH work than this. */
#define WG_FORGOTTEN_SESSION_HANDSHAKES_PER_SECOND 100

/* TAI64N timestamps are rounded down to a multiple of this many nanoseconds
 * (2^24, the power of two below 1 s / INITIATIONS_PER_SECOND), so they do
 * not leak fine-grained clock readings. */
#define WG_TAI64N_NSEC_GRANULARITY (1u << 24)
#define WG_TAI64_EPOCH_OFFSET UINT64_C(0x400000000000000a)

/* Cookies (whitepaper 5.4.7): the responder's secret changes every 2 min;
 * an initiator uses a received cookie for mac2 for as long. */
#define WG_COOKIE_SECRET_MAX_AGE_MS 120000
#define WG_COOKIE_MAX_AGE_MS WG_COOKIE_SECRET_MAX_AGE_MS

/* Under load (the kernel's wg_packet_receive() and wireguard-go's
 * handshake queue): a responder is under load when one receive round holds
 * WG_UNDER_LOAD_PENDING_HANDSHAKES handshake messages, or when
 * WG_UNDER_LOAD_WINDOW_HANDSHAKES arrive within WG_UNDER_LOAD_WINDOW_MS
 * (640 a second: about a tenth of a core spent on X25519), and stays so for
 * WG_UNDER_LOAD_HOLD_MS after the last such observation.  Legitimate peers
 * start a handshake every REKEY_AFTER_TIME at most, so 10,000 of them stay
 * far below it. */
#define WG_UNDER_LOAD_PENDING_HANDSHAKES 16
#define WG_UNDER_LOAD_WINDOW_MS 100
#define WG_UNDER_LOAD_WINDOW_HANDSHAKES 64
#define WG_UNDER_LOAD_HOLD_MS 1000

#endif /* wg-messages.h */
