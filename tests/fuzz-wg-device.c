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

/* libFuzzer target for the receive path of wg-device.
 *
 * Built by "make" when configure finds clang with libFuzzer (see
 * tests/automake.mk) and run for a bounded number of inputs by "make
 * check"; run it longer with e.g. "tests/fuzz-wg-device -max_total_time=60".
 *
 * A crash file is replayed by giving it to the fuzzer binary as an
 * argument: "fuzz-wg-device FILE".
 *
 * Two devices, "a" and "b" (the fixture of tests/test-wg-pair.h, also
 * used by the unit tests), are peers with a live session set up at
 * initialization (and again whenever it lapsed).  Each input is one
 * datagram for "b", preceded by a control byte:
 *
 *   bits 0-1  source address: a's endpoint, another IPv4 port, an IPv6
 *             address, a's endpoint with another port (roaming);
 *   bit 2     "b" under load (cookies, rate limiting);
 *   bit 3     advance the clock by the next byte * 1 s first;
 *   bit 4     the rest is an inner packet that "a" encrypts for "b", so
 *             that inner-header validation and allowed IPs are reached;
 *   bit 5     overwrite the receiver index with "b"'s current one, so that
 *             random data messages reach decryption;
 *   bit 6     for a datagram of a handshake message's size, fill in a valid
 *             mac1 (and mac2 if "a" holds a cookie), so that random
 *             handshakes reach the Noise layer;
 *   bit 7     (takes precedence over bits 4-6) the datagram is a genuine
 *             message that "a" makes for "b", chosen by the next byte's
 *             bits 0-1: a handshake initiation; a response to an
 *             initiation that "b" sent; a cookie reply to such an
 *             initiation, "a" being under load; a keepalive data message.
 *             The bytes after it are XORed onto the message (extending it
 *             when longer; bit 2 of the choice byte truncates it to their
 *             length), so that mutated genuine messages reach every step
 *             of the Noise handshake, cookie and data processing.
 *
 * Messages the devices send each other are delivered after each input
 * (those to an address that is neither device's are dropped).
 * Invariants: nothing crashes or leaks; the outcome is a known value with a
 * name; a delivered inner packet lies inside the datagram, is no longer
 * than its plaintext, has a valid IP header and an allowed source; the
 * devices stop sending to each other (see wgpair_deliver()). */

#include <config.h>
#include "wg-device.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "ovs-rcu.h"
#include "test-wg-pair.h"
#include "util.h"
#include "wg-messages.h"
#include "wg-peer.h"

/* The two devices, tests/test-wg-pair.h's fixture. */
static struct wgpair pair;

static void
fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        ovs_abort(0, "fuzz-wg-device: invariant failed: %s", what);
    }
}

/* Checks one receive result against the datagram it came from. */
static void
check_result(const struct wgpair_node *node, enum wg_device_rx rx,
             const struct wg_device_rx_result *r, const uint8_t *buf,
             size_t len)
{
    fuzz_check(rx >= 0 && rx < WG_DEVICE_N_RX, "known outcome");
    fuzz_check(strcmp(wg_device_rx_name(rx), "<invalid>") != 0, "named");
    if (rx != WG_DEVICE_RX_DATA) {
        fuzz_check(!r->inner && !r->inner_len, "no inner packet");
        return;
    }
    fuzz_check(r->peer == node->peer, "data from the peer");
    fuzz_check(r->inner == buf + WG_MSG_DATA_HEADER_LEN, "inner position");
    fuzz_check(r->inner_len >= 20
               && r->inner_len <= len - WG_MSG_DATA_MIN_LEN, "inner length");
    fuzz_check(r->inner[0] >> 4 == 4 || r->inner[0] >> 4 == 6, "IP version");
    fuzz_check(wg_device_route(node->dev, r->inner[0] >> 4 == 4
                               ? AF_INET : AF_INET6,
                               r->inner + (r->inner[0] >> 4 == 4 ? 12 : 8))
               == node->peer, "allowed source");
}

/* Receives the fuzzed datagram at "b". */
static void
deliver_to_b(const struct sockaddr *src, socklen_t src_len, uint8_t *buf,
             size_t len)
{
    const struct wgpair_node *b = &pair.node[1];
    struct wg_device_rx_result r;
    enum wg_device_rx rx;

    rx = wg_device_receive(b->dev, src, src_len, buf, len, &r);
    check_result(b, rx, &r, buf, len);
}

/* Widens what each node allows from the other to its /24 and /64, so that
 * more fuzzed inner sources pass, and caps padding at a 1420-byte MTU. */
static void
widen_node(int id)
{
    const struct wgpair_node *node = &pair.node[id];
    static const uint8_t v4[4] = { 10, 0, 0, 0 };
    static const uint8_t v6[16] = { 0xfd };

    wg_device_set_mtu(node->dev, 1420);
    wg_device_peer_allowed_ip_add(node->dev, node->peer, AF_INET, v4, 24);
    wg_device_peer_allowed_ip_add(node->dev, node->peer, AF_INET6, v6, 64);
}

/* (Re)establishes the session between the devices if it lapsed. */
static void
ensure_session(void)
{
    const struct wgpair_node *a = &pair.node[0], *b = &pair.node[1];

    for (int tries = 0; tries < 4; tries++) {
        if (wg_device_peer_has_session(a->dev, a->peer)
            && wg_device_peer_has_session(b->dev, b->peer)) {
            return;
        }
        pair.now_ms += WG_REKEY_TIMEOUT_MS;
        wg_device_peer_initiate(a->dev, a->peer);
        wgpair_deliver(&pair);
        wgpair_advance(&pair, 0);
    }
    fuzz_check(false, "session re-established");
}

static void
fuzz_init(void)
{
    static bool done;

    if (!done) {
        done = true;
        wgpair_init(&pair, NULL, NULL);
        pair.rx_check = check_result;
        widen_node(0);
        widen_node(1);
        ensure_session();
    }
}

static const struct sockaddr *
pick_source(uint8_t ctrl, socklen_t *lenp)
{
    static struct sockaddr_in other4;
    static struct sockaddr_in6 other6;

    switch (ctrl & 3) {
    case 0:
        *lenp = sizeof pair.node[0].addr;
        return (const struct sockaddr *) &pair.node[0].addr;
    case 1:
        other4 = pair.node[0].addr;
        other4.sin_addr.s_addr = htonl(0xc0000201);
        *lenp = sizeof other4;
        return (const struct sockaddr *) &other4;
    case 2:
        memset(&other6, 0, sizeof other6);
        other6.sin6_family = AF_INET6;
        other6.sin6_port = htons(4242);
        other6.sin6_addr.s6_addr[0] = 0x20;
        other6.sin6_addr.s6_addr[15] = 1;
        *lenp = sizeof other6;
        return (const struct sockaddr *) &other6;
    default:
        /* Roaming within a's own address: its port changes for good. */
        pair.node[0].addr.sin_port
            = htons(ntohs(pair.node[0].addr.sin_port) ^ 1);
        *lenp = sizeof pair.node[0].addr;
        return (const struct sockaddr *) &pair.node[0].addr;
    }
}

/* "a" encrypts 'data' as an inner packet; returns the datagram length (0
 * if it could not). */
static size_t
encrypt_by_a(const uint8_t *data, size_t size, uint8_t *buf, size_t room)
{
    int n;

    size = MIN(size, room - WG_DEVICE_HEADROOM - WG_DEVICE_TAILROOM);
    memcpy(buf + WG_DEVICE_HEADROOM, data, size);
    n = wg_device_encrypt(pair.node[0].dev, pair.node[0].peer, buf, size,
                          room);
    wgpair_deliver(&pair);
    return n > 0 ? n : 0;
}

/* Returns the index in the pair's queue of the last message of 'type' from
 * "a" to "b", or -1. */
static int
find_from_a(enum wg_msg_type type)
{
    for (int i = pair.n_msgs - 1; i >= 0; i--) {
        const struct wgpair_msg *m = &pair.msgs[i];

        if (!m->from && m->to == 1 && m->len >= 4 && m->data[0] == type) {
            return i;
        }
    }
    return -1;
}

/* Makes "b" send an initiation and "a" answer it (with a cookie reply if
 * 'load').  Returns the type of the answer. */
static enum wg_msg_type
answer_from_a(bool load)
{
    int i;

    wg_device_peer_initiate(pair.node[1].dev, pair.node[1].peer);
    for (i = pair.n_msgs - 1; i >= 0; i--) {
        if (pair.msgs[i].from == 1 && pair.msgs[i].to == 0
            && pair.msgs[i].data[0] == WG_MSG_INITIATION) {
            wg_device_set_under_load_for_test(pair.node[0].dev, load);
            wgpair_deliver_one(&pair, i);
            wg_device_set_under_load_for_test(pair.node[0].dev, false);
            break;
        }
    }
    return load ? WG_MSG_COOKIE_REPLY : WG_MSG_RESPONSE;
}

/* Has "a" make the genuine message that 'choice' selects (see the top of
 * the file) into 'buf'.  Returns its length (0 if "a" made none). */
static size_t
make_genuine(uint8_t choice, uint8_t *buf)
{
    struct wgpair_node *a = &pair.node[0];
    enum wg_msg_type type;
    struct wgpair_msg m;
    int i;

    pair.hold = true;
    if ((choice & 3) != 3) {
        pair.now_ms += WG_REKEY_TIMEOUT_MS;     /* Initiations allowed. */
    }
    switch (choice & 3) {
    case 0:
        wg_device_peer_initiate(a->dev, a->peer);
        type = WG_MSG_INITIATION;
        break;
    case 1:
    case 2:
        type = answer_from_a((choice & 3) == 2);
        break;
    default:
        wg_device_peer_send_keepalive(a->dev, a->peer);
        type = WG_MSG_DATA;
        break;
    }
    pair.hold = false;
    i = find_from_a(type);
    if (i < 0) {
        return 0;
    }
    m = wgpair_take(&pair, i);
    memcpy(buf, m.data, m.len);
    return m.len;
}

/* The genuine message chosen by data[0], XORed with the rest of 'data'. */
static size_t
mutate_genuine(const uint8_t *data, size_t size, uint8_t *buf, size_t room)
{
    size_t len, mask_len;

    if (!size) {
        return 0;
    }
    len = make_genuine(data[0], buf);
    mask_len = MIN(size - 1, room);
    for (size_t i = 0; i < mask_len; i++) {
        buf[i] = (i < len ? buf[i] : 0) ^ data[1 + i];
    }
    return data[0] & 4 ? mask_len : MAX(len, mask_len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct sockaddr *src;
    socklen_t src_len;
    uint8_t ctrl, *buf;
    size_t len;

    fuzz_init();
    if (!size) {
        return 0;
    }
    ctrl = *data++;
    size--;
    if (ctrl & 8 && size) {
        pair.now_ms += *data++ * 1000LL;
        size--;
        wgpair_advance(&pair, 0);
    }
    ensure_session();
    wg_device_set_under_load_for_test(pair.node[1].dev, ctrl & 4);
    src = pick_source(ctrl, &src_len);

    if (ctrl & 128) {
        uint8_t room[WGPAIR_MSG_SIZE];

        len = mutate_genuine(data, size, room, sizeof room);
        buf = xmemdup(room, len);
    } else if (ctrl & 16) {
        uint8_t room[WGPAIR_MSG_SIZE];

        len = encrypt_by_a(data, size, room, sizeof room);
        buf = xmemdup(room, len);
    } else {
        const struct wg_noise_keypair *kp
            = wg_noise_keypairs_current(&pair.node[1].peer->keypairs);

        len = size;
        buf = xmemdup(data, size);
        if (ctrl & 32 && len >= 8 && kp) {
            uint32_t index = htole32(kp->local_index);

            memcpy(buf + 4, &index, sizeof index);
        }
        if (ctrl & 64 && (len == WG_MSG_INITIATION_LEN
                          || len == WG_MSG_RESPONSE_LEN)) {
            FUZZ_CHECK(wg_cookie_add_macs(&pair.node[0].peer->cookie, buf,
                                          len, pair.now_ms));
        }
    }
    deliver_to_b(src, src_len, buf, len);
    free(buf);
    wgpair_deliver(&pair);
    ovsrcu_quiesce();           /* Runs what the engine postponed. */
    return 0;
}
