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
 * Two devices, "a" and "b", are peers with a live session set up at
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
 *             handshakes reach the Noise layer.
 *
 * Messages the devices send each other are delivered after each input.
 * Invariants: nothing crashes or leaks; the outcome is a known value with a
 * name; a delivered inner packet lies inside the datagram, is no longer
 * than its plaintext, has a valid IP header and an allowed source. */

#include <config.h>
#include "wg-device.h"

#include <arpa/inet.h>
#include <endian.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "wg-messages.h"
#include "wg-peer.h"

#define FUZZ_MSG_SIZE 2048
#define FUZZ_MAX_QUEUE 64

struct fuzz_msg {
    int to;
    size_t len;
    uint8_t data[FUZZ_MSG_SIZE];
};

struct fuzz_node {
    struct wg_device *dev;
    struct wg_peer *peer;
    struct sockaddr_in addr;
};

static struct {
    long long int now_ms;
    struct fuzz_node node[2];
    size_t n_msgs;
    struct fuzz_msg msgs[FUZZ_MAX_QUEUE];
} fz;

static void
fuzz_check(bool ok, const char *what)
{
    if (!ok) {
        ovs_abort(0, "fuzz-wg-device: invariant failed: %s", what);
    }
}

static long long int
fuzz_now(void *aux OVS_UNUSED)
{
    return fz.now_ms;
}

static void
fuzz_wall(void *aux OVS_UNUSED, struct timespec *ts)
{
    ts->tv_sec = 1700000000 + fz.now_ms / 1000;
    ts->tv_nsec = (fz.now_ms % 1000) * 1000000;
}

static void
fuzz_send(void *node_, const struct sockaddr *dst OVS_UNUSED,
          socklen_t dst_len OVS_UNUSED, const void *data, size_t len)
{
    struct fuzz_node *node = node_;

    fuzz_check(len <= FUZZ_MSG_SIZE, "sent message fits");
    if (fz.n_msgs < FUZZ_MAX_QUEUE) {
        struct fuzz_msg *m = &fz.msgs[fz.n_msgs++];

        m->to = node == &fz.node[0] ? 1 : 0;
        m->len = len;
        memcpy(m->data, data, len);
    }
}

static void
fuzz_session_ready(void *node_ OVS_UNUSED, struct wg_peer *peer OVS_UNUSED)
{
}

static const struct wg_device_hooks fuzz_hooks = {
    .send = fuzz_send,
    .session_ready = fuzz_session_ready,
    .now_ms = fuzz_now,
    .wall_clock = fuzz_wall,
};

/* Checks one receive result against the datagram it came from. */
static void
check_result(enum wg_device_rx rx, const struct wg_device_rx_result *r,
             const uint8_t *buf, size_t len, const struct fuzz_node *node)
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

static void
deliver_from(int to, const struct sockaddr *src, socklen_t src_len,
             uint8_t *buf, size_t len)
{
    struct fuzz_node *node = &fz.node[to];
    struct wg_device_rx_result r;
    enum wg_device_rx rx;

    rx = wg_device_receive(node->dev, src, src_len, buf, len, &r);
    check_result(rx, &r, buf, len, node);
}

/* Delivers queued messages between the devices (bounded). */
static void
deliver_queue(void)
{
    for (int budget = 256; fz.n_msgs && budget > 0; budget--) {
        struct fuzz_msg m = fz.msgs[0];
        int from = !m.to;

        fz.n_msgs--;
        memmove(&fz.msgs[0], &fz.msgs[1], fz.n_msgs * sizeof fz.msgs[0]);
        deliver_from(m.to, (struct sockaddr *) &fz.node[from].addr,
                     sizeof fz.node[from].addr, m.data, m.len);
    }
    fz.n_msgs = 0;
}

static void
node_init(int id)
{
    struct fuzz_node *node = &fz.node[id];
    uint8_t priv[WG_KEY_LEN];

    /* Fixed keys, so that a crash reproduces with the same peers. */
    memset(priv, 0x41 + id, sizeof priv);
    priv[0] &= 248;
    priv[31] = (priv[31] & 127) | 64;
    node->addr.sin_family = AF_INET;
    node->addr.sin_addr.s_addr = htonl(0x7f000001 + id);
    node->addr.sin_port = htons(51820 + id);
    node->dev = wg_device_create(&fuzz_hooks, node);
    fuzz_check(!wg_device_set_private_key(node->dev, priv), "private key");
    wg_device_set_mtu(node->dev, 1420);
}

static void
node_add_peer(int id)
{
    struct fuzz_node *node = &fz.node[id];
    const struct fuzz_node *other = &fz.node[!id];
    uint8_t pub[WG_KEY_LEN], v4[4] = { 10, 0, 0, 1 + !id };
    uint8_t v6[16] = { 0xfd };

    v6[15] = 1 + !id;
    fuzz_check(wg_device_get_public_key(other->dev, pub), "public key");
    fuzz_check(!wg_device_peer_add(node->dev, pub, &node->peer), "peer");
    wg_device_peer_set_endpoint(node->dev, node->peer,
                                (const struct sockaddr *) &other->addr,
                                sizeof other->addr);
    wg_device_peer_allowed_ip_add(node->dev, node->peer, AF_INET, v4, 24);
    wg_device_peer_allowed_ip_add(node->dev, node->peer, AF_INET6, v6, 64);
}

static void
run_timers(void)
{
    wg_device_run(fz.node[0].dev);
    wg_device_run(fz.node[1].dev);
    deliver_queue();
}

/* (Re)establishes the session between the devices if it lapsed. */
static void
ensure_session(void)
{
    for (int tries = 0; tries < 4; tries++) {
        if (wg_device_peer_has_session(fz.node[0].dev, fz.node[0].peer)
            && wg_device_peer_has_session(fz.node[1].dev,
                                          fz.node[1].peer)) {
            return;
        }
        fz.now_ms += WG_REKEY_TIMEOUT_MS;
        wg_device_peer_initiate(fz.node[0].dev, fz.node[0].peer);
        deliver_queue();
        run_timers();
    }
    fuzz_check(false, "session re-established");
}

static void
fuzz_init(void)
{
    static bool done;

    if (!done) {
        done = true;
        wg_crypto_init();
        fz.now_ms = 1000000;
        node_init(0);
        node_init(1);
        node_add_peer(0);
        node_add_peer(1);
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
        *lenp = sizeof fz.node[0].addr;
        return (const struct sockaddr *) &fz.node[0].addr;
    case 1:
        other4 = fz.node[0].addr;
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
        fz.node[0].addr.sin_port = htons(ntohs(fz.node[0].addr.sin_port)
                                         ^ 1);
        *lenp = sizeof fz.node[0].addr;
        return (const struct sockaddr *) &fz.node[0].addr;
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
    n = wg_device_encrypt(fz.node[0].dev, fz.node[0].peer, buf, size, room);
    deliver_queue();
    return n > 0 ? n : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
        fz.now_ms += *data++ * 1000LL;
        size--;
        run_timers();
    }
    ensure_session();
    wg_device_set_under_load(fz.node[1].dev, ctrl & 4);
    src = pick_source(ctrl, &src_len);

    if (ctrl & 16) {
        uint8_t room[FUZZ_MSG_SIZE];

        len = encrypt_by_a(data, size, room, sizeof room);
        buf = xmemdup(room, len);
    } else {
        const struct wg_noise_keypair *kp = fz.node[1].peer->keypairs.current;

        len = size;
        buf = xmemdup(data, size);
        if (ctrl & 32 && len >= 8 && kp) {
            uint32_t index = htole32(kp->local_index);

            memcpy(buf + 4, &index, sizeof index);
        }
        if (ctrl & 64 && (len == WG_MSG_INITIATION_LEN
                          || len == WG_MSG_RESPONSE_LEN)) {
            wg_cookie_add_macs(&fz.node[0].peer->cookie, buf, len,
                               fz.now_ms);
        }
    }
    deliver_from(1, src, src_len, buf, len);
    free(buf);
    deliver_queue();
    return 0;
}
