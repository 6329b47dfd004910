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
#include "wg-device.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <string.h>
#include "test-wg-pair.h"
#include "util.h"
#include "wg-peer.h"
#include "wg-ratelimiter.h"
#include "wgtest.h"

/* Two in-memory devices (tests/test-wg-pair.h): handshake, data, PSK,
 * cookies under load, peer validation, roaming, malformed input. */

static void
check_payload(const struct wgpair_node *node, const uint8_t *pkt, size_t len)
{
    WGTEST_CHECK(node->last_inner_len == len);
    WGTEST_CHECK_MEM(node->last_inner, pkt, len);
}

static void
test_device_handshake(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t pkt[1500];
    struct wg_peer_info ia, ib;
    struct wgpair p;
    size_t len;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == 1);
    WGTEST_CHECK(wgpair_sent(&p, 1, WG_MSG_RESPONSE) == 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 0);   /* Data went instead. */
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_HANDSHAKE] == 1);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_HANDSHAKE] == 1);

    /* Data both ways, IPv4 and IPv6, sizes around the padding. */
    for (size_t i = 0; i < 40; i++) {
        int from = i % 2;
        bool v6 = i % 4 >= 2;

        len = wgpair_make_ip(&p, from, v6, (v6 ? 40 : 20) + i * 7, i, pkt);
        WGTEST_CHECK(wgpair_send(&p, from, pkt, len)
                     == 16 + ROUND_UP(len, 16) + 16);
        wgpair_deliver(&p);
        check_payload(&p.node[!from], pkt, len);
    }
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_DATA] == 20);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_DATA] == 21);

    /* Statistics agree on both sides; last handshake time is set. */
    wg_device_peer_get_info(p.node[0].dev, p.node[0].peer, &ia);
    wg_device_peer_get_info(p.node[1].dev, p.node[1].peer, &ib);
    WGTEST_CHECK(ia.tx_bytes == ib.rx_bytes && ib.tx_bytes == ia.rx_bytes);
    WGTEST_CHECK(ia.tx_packets == 21 && ib.rx_packets == 21);
    WGTEST_CHECK(ia.has_session && ib.has_session);
    WGTEST_CHECK(ia.last_handshake.tv_sec == 1700000000 + 1000);
    WGTEST_CHECK(ib.last_handshake.tv_sec == 1700000000 + 1000);
    WGTEST_CHECK(!memcmp(ia.public_key, p.node[1].pub, WG_KEY_LEN));
    WGTEST_CHECK(!ia.has_psk && ia.endpoint_len == sizeof(struct sockaddr_in));
    wgpair_destroy(&p);
    printf("handshake and data ok\n");
}
WGTEST_REGISTER("device-handshake", test_device_handshake);

/* Checks that a data message that decrypted at 'node' has zeros for padding,
 * as many as 'padding_expected' says (SIZE_MAX: any number). */
static size_t padding_expected = SIZE_MAX;

static void
check_padding(const struct wgpair_node *node OVS_UNUSED,
              enum wg_device_rx rx, const struct wg_device_rx_result *r,
              const uint8_t *msg, size_t len)
{
    size_t pad_ofs = WG_MSG_DATA_HEADER_LEN + r->inner_len;

    if (rx == WG_DEVICE_RX_DATA || rx == WG_DEVICE_RX_KEEPALIVE) {
        size_t pad_len = len - WG_AEAD_TAG_LEN - pad_ofs;

        WGTEST_CHECK(padding_expected == SIZE_MAX
                     || pad_len == padding_expected);
        WGTEST_CHECK(wg_crypto_is_zero(msg + pad_ofs, pad_len));
    }
}

/* Node a sends 'len' bytes of 'pkt' (its MTU 1420) both ways: through
 * wg_device_encrypt() in place, and through wg_device_encrypt_from() straight
 * from 'pkt' into a message buffer.  The two messages have the same length,
 * header and (next) counter, the source is untouched, nothing is written
 * past the message, and b opens both to 'pkt' with 'pad_len' zero bytes of
 * padding. */
static void
check_encrypt_from(struct wgpair *p, const uint8_t *pkt, size_t len,
                   size_t pad_len)
{
    struct wgpair_node *a = &p->node[0];
    struct wgpair_msg m1, m2 = { .from = 0, .to = 1, .src = a->addr };
    size_t total = WG_MSG_DATA_HEADER_LEN + len + pad_len + WG_AEAD_TAG_LEN;
    uint8_t copy[WGPAIR_MSG_SIZE];
    uint64_t c1, c2;

    memcpy(copy, pkt, len);
    WGTEST_CHECK(wgpair_send(p, 0, pkt, len) == total);
    m1 = wgpair_take(p, 0);
    memset(m2.data, 0xa5, sizeof m2.data);
    WGTEST_CHECK(wg_device_encrypt_from(a->dev, a->peer, m2.data,
                                        sizeof m2.data, pkt, len) == total);
    m2.len = total;
    WGTEST_CHECK_MEM(pkt, copy, len);
    WGTEST_CHECK(m2.data[total] == 0xa5);
    WGTEST_CHECK(m2.data[sizeof m2.data - 1] == 0xa5);
    WGTEST_CHECK_MEM(m1.data, m2.data, 8);
    memcpy(&c1, m1.data + 8, 8);
    memcpy(&c2, m2.data + 8, 8);
    WGTEST_CHECK(le64toh(c2) == le64toh(c1) + 1);

    padding_expected = pad_len;
    WGTEST_CHECK(wgpair_inject(p, &m1) == (len ? WG_DEVICE_RX_DATA
                                          : WG_DEVICE_RX_KEEPALIVE));
    WGTEST_CHECK(wgpair_inject(p, &m2) == (len ? WG_DEVICE_RX_DATA
                                          : WG_DEVICE_RX_KEEPALIVE));
    padding_expected = SIZE_MAX;
    if (len) {
        check_payload(&p->node[1], pkt, len);
    }
}

/* wg_device_encrypt_from() against wg_device_encrypt(), for inner packets
 * whose padding goes to the next multiple of 16 or is capped by the MTU
 * (1420), at both alignments of the source, on each data-path backend this
 * build can run. */
static void
test_device_encrypt_from(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct {
        size_t len, pad_len;
    } cases[] = {
        { 0, 0 },               /* Keepalive. */
        { 28, 4 },              /* The shortest IPv4 UDP packet. */
        { 31, 1 },
        { 32, 0 },
        { 33, 15 },
        { 1405, 3 },            /* 1408: under the MTU. */
        { 1410, 10 },           /* 1424 capped by the MTU. */
        { 1419, 1 },            /* Likewise. */
        { 1420, 0 },            /* At the MTU. */
    };
    uint8_t buf[WGPAIR_MSG_SIZE + 1];
    struct wgpair p;

    for (int b = WG_CRYPTO_AEAD_OPENSSL; b <= WG_CRYPTO_AEAD_IPSECMB; b++) {
        if (!wg_crypto_set_aead_backend(b)) {
            continue;
        }
        wgpair_init(&p, NULL, NULL);
        wg_device_set_mtu(p.node[0].dev, 1420);
        wgpair_handshake(&p, 0);
        p.hold = true;
        p.rx_check = check_padding;
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
            for (size_t off = 0; off < 2; off++) {
                memset(buf, 0x5a, sizeof buf);  /* Not padding. */
                if (cases[i].len) {
                    wgpair_make_ip(&p, 0, false, cases[i].len, i, buf + off);
                }
                check_encrypt_from(&p, buf + off, cases[i].len,
                                   cases[i].pad_len);
            }
        }
        wgpair_destroy(&p);
        fprintf(stderr, "%s: ok\n", wg_crypto_aead_backend_name(b));
    }
    printf("encrypt from the source ok\n");
}
WGTEST_REGISTER("device-encrypt-from", test_device_encrypt_from);

/* The three steps of a decryption (wg_device_decrypt_begin(), _finish(),
 * _end()) as a receive queue interleaves them: every message of a round
 * begun, then opened in another order, then ended in arrival order.  Each
 * row is a message of node a to b, sent in row order; what b's end must
 * say of it. */
static void
test_device_decrypt_steps(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    enum change { AS_SENT, FLIP_TAG_BIT, COPY_OF_ROW_1 };
    static const struct {
        enum change change;
        enum wg_device_rx rx;
    } rows[] = {
        { AS_SENT, WG_DEVICE_RX_DATA },
        { AS_SENT, WG_DEVICE_RX_DATA },
        { FLIP_TAG_BIT, WG_DEVICE_DROP_BAD_TAG },
        { AS_SENT, WG_DEVICE_RX_DATA },
        { COPY_OF_ROW_1, WG_DEVICE_DROP_REPLAYED },
    };
    struct wg_device_opener ops[ARRAY_SIZE(rows)];
    struct wgpair_msg m[ARRAY_SIZE(rows)];
    struct wg_device_rx_result r;
    struct wgpair_node *b;
    enum wg_device_rx rx;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    b = &p.node[1];
    wgpair_handshake(&p, 0);
    p.hold = true;
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        WGTEST_CHECK(wgpair_send_ip(&p, 0, 60 + i) > 0);
        m[i] = wgpair_take(&p, 0);
        if (rows[i].change == FLIP_TAG_BIT) {
            m[i].data[m[i].len - 1] ^= 1;
        } else if (rows[i].change == COPY_OF_ROW_1) {
            m[i] = m[1];
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        WGTEST_CHECK(wg_device_decrypt_begin(
                         b->dev, (struct sockaddr *) &m[i].src,
                         sizeof m[i].src, m[i].data, m[i].len, &ops[i], &r,
                         &rx));
    }
    for (size_t i = ARRAY_SIZE(rows); i-- > 0;) {
        wg_device_decrypt_finish(&ops[i], m[i].data, m[i].len);
    }
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        rx = wg_device_decrypt_end(b->dev, (struct sockaddr *) &m[i].src,
                                   sizeof m[i].src, m[i].data, m[i].len,
                                   &ops[i], &r);
        fprintf(stderr, "row %"PRIuSIZE": %s\n", i, wg_device_rx_name(rx));
        WGTEST_CHECK(rx == rows[i].rx);
        WGTEST_CHECK(!ops[i].kp);
        WGTEST_CHECK(rx == WG_DEVICE_RX_DATA
                     ? r.inner == m[i].data + WG_MSG_DATA_HEADER_LEN
                       && r.inner_len == 60 + i
                     : !r.inner && !r.inner_len);
    }

    /* The peer removed between the first step and the second: the keypair
     * stays until the end (ASan sees a read of freed keys otherwise), and
     * the message is dropped. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 60) > 0);
    m[0] = wgpair_take(&p, 0);
    WGTEST_CHECK(wg_device_decrypt_begin(b->dev, (struct sockaddr *) &m[0].src,
                                         sizeof m[0].src, m[0].data,
                                         m[0].len, &ops[0], &r, &rx));
    wg_device_peer_remove(b->dev, b->peer);
    wg_device_decrypt_finish(&ops[0], m[0].data, m[0].len);
    WGTEST_CHECK(ops[0].opened);
    rx = wg_device_decrypt_end(b->dev, (struct sockaddr *) &m[0].src,
                               sizeof m[0].src, m[0].data, m[0].len, &ops[0],
                               &r);
    WGTEST_CHECK(rx == WG_DEVICE_DROP_UNKNOWN_INDEX && !r.inner);

    /* A message that is not data is handled whole by the first step. */
    WGTEST_CHECK(!wg_device_decrypt_begin(b->dev,
                                          (struct sockaddr *) &m[0].src,
                                          sizeof m[0].src, m[0].data, 3,
                                          &ops[0], &r, &rx));
    WGTEST_CHECK(rx == WG_DEVICE_DROP_TOO_SHORT);
    wgpair_destroy(&p);
    printf("decrypt steps ok\n");
}
WGTEST_REGISTER("device-decrypt-steps", test_device_decrypt_steps);

static void
test_device_psk(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t psk[WG_KEY_LEN] = { 9, 8, 7 };
    static const uint8_t other[WG_KEY_LEN] = { 9, 8, 6 };
    struct wg_peer_info info;
    struct wgpair p;

    wgpair_init(&p, psk, psk);
    wgpair_handshake(&p, 1);
    wg_device_peer_get_info(p.node[0].dev, p.node[0].peer, &info);
    WGTEST_CHECK(info.has_psk);
    wgpair_destroy(&p);

    const uint8_t *mismatch[][2] = {
        { psk, other }, { psk, NULL }, { NULL, psk },
    };
    for (size_t i = 0; i < ARRAY_SIZE(mismatch); i++) {
        wgpair_init(&p, mismatch[i][0], mismatch[i][1]);
        WGTEST_CHECK(wgpair_send_ip(&p, 0, 60) == WG_DEVICE_TX_NO_SESSION);
        wgpair_deliver(&p);
        WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_HANDSHAKE] == 1);
        WGTEST_CHECK(p.node[0].rx[WG_DEVICE_DROP_HANDSHAKE_AUTH] == 1);
        WGTEST_CHECK(!wg_device_peer_has_session(p.node[0].dev,
                                                 p.node[0].peer));
        WGTEST_CHECK(!p.node[0].session_ready && !p.node[1].session_ready);
        wgpair_destroy(&p);
    }
    printf("psk ok\n");
}
WGTEST_REGISTER("device-psk", test_device_psk);

static void
cookie_path(bool forced)
{
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    if (forced) {
        wg_device_set_under_load_for_test(p.node[1].dev, true);
    } else {
        wg_device_note_pending_handshakes(p.node[1].dev,
                                          WG_UNDER_LOAD_PENDING_HANDSHAKES);
    }
    WGTEST_CHECK(wg_device_is_under_load(p.node[1].dev));

    /* Initiation without mac2: answered with a cookie reply only. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 60) == WG_DEVICE_TX_NO_SESSION);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_COOKIE_SENT] == 1);
    WGTEST_CHECK(wgpair_sent(&p, 1, WG_MSG_COOKIE_REPLY) == 1);
    WGTEST_CHECK(wgpair_sent(&p, 1, WG_MSG_RESPONSE) == 0);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_COOKIE_STORED] == 1);

    /* The retransmission carries mac2 and goes through. */
    for (int i = 0; i < 60; i++) {
        if (!forced) {
            wg_device_note_pending_handshakes(p.node[1].dev, 1000);
        }
        WGTEST_CHECK(wg_device_is_under_load(p.node[1].dev));
        wgpair_advance(&p, 100);
    }
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == 2);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_HANDSHAKE] == 1);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_COOKIE_SENT] == 1);
    WGTEST_CHECK(p.node[0].session_ready == 1);
    WGTEST_CHECK(p.node[1].last_inner_len == 60);

    /* Load ends (forced off, or 1 s after the last report). */
    wg_device_set_under_load_for_test(p.node[1].dev, false);
    wgpair_advance(&p, WG_UNDER_LOAD_HOLD_MS);
    WGTEST_CHECK(!wg_device_is_under_load(p.node[1].dev));
    wgpair_destroy(&p);
}

static void
test_device_cookie(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    cookie_path(true);
    cookie_path(false);
    printf("cookie path ok\n");
}
WGTEST_REGISTER("device-cookie", test_device_cookie);

/* The device counts the handshake messages it receives: WG_UNDER_LOAD_WINDOW_
 * HANDSHAKES of them within WG_UNDER_LOAD_WINDOW_MS put it under load, one
 * fewer, or the same number spread over two windows, do not; the state
 * lasts WG_UNDER_LOAD_HOLD_MS after the last such window. */
static void
test_device_load_window(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg init;
    struct wgpair p;
    struct wg_device *dev;

    wgpair_init(&p, NULL, NULL);
    dev = p.node[1].dev;
    p.hold = true;
    WGTEST_CHECK(wg_device_peer_initiate(p.node[0].dev, p.node[0].peer)
                 == 0);
    init = wgpair_take(&p, 0);
    WGTEST_CHECK(wg_device_is_handshake_msg(init.data, init.len));
    WGTEST_CHECK(!wg_device_is_handshake_msg(init.data, init.len - 1));

    for (int i = 0; i < WG_UNDER_LOAD_WINDOW_HANDSHAKES - 1; i++) {
        wgpair_inject(&p, &init);
    }
    WGTEST_CHECK(!wg_device_is_under_load(dev));
    p.now_ms += WG_UNDER_LOAD_WINDOW_MS;
    wgpair_inject(&p, &init);
    WGTEST_CHECK(!wg_device_is_under_load(dev));
    for (int i = 0; i < WG_UNDER_LOAD_WINDOW_HANDSHAKES - 1; i++) {
        wgpair_inject(&p, &init);
    }
    WGTEST_CHECK(wg_device_is_under_load(dev));

    /* Under load, an initiation without mac2 only gets a cookie reply. */
    WGTEST_CHECK(wgpair_inject(&p, &init) == WG_DEVICE_RX_COOKIE_SENT);
    p.now_ms += WG_UNDER_LOAD_HOLD_MS - 1;
    WGTEST_CHECK(wg_device_is_under_load(dev));
    p.now_ms += 1;
    WGTEST_CHECK(!wg_device_is_under_load(dev));

    /* One receive round holding enough handshake messages. */
    wg_device_note_pending_handshakes(dev,
                                      WG_UNDER_LOAD_PENDING_HANDSHAKES - 1);
    WGTEST_CHECK(!wg_device_is_under_load(dev));
    wg_device_note_pending_handshakes(dev, WG_UNDER_LOAD_PENDING_HANDSHAKES);
    WGTEST_CHECK(wg_device_is_under_load(dev));
    wgpair_destroy(&p);
    printf("load window ok\n");
}
WGTEST_REGISTER("device-load-window", test_device_load_window);

/* Under load, a source that keeps a valid cookie is still rate limited. */
static void
test_device_ratelimit(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg init;
    struct wgpair p;
    int handled = 0, limited = 0;

    wgpair_init(&p, NULL, NULL);
    wg_device_set_under_load_for_test(p.node[1].dev, true);
    p.hold = true;
    WGTEST_CHECK(wg_device_peer_initiate(p.node[0].dev, p.node[0].peer)
                 == 0);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_COOKIE_SENT);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_COOKIE_STORED);
    p.now_ms += WG_REKEY_TIMEOUT_MS;
    WGTEST_CHECK(wg_device_peer_initiate(p.node[0].dev, p.node[0].peer)
                 == 0);
    init = wgpair_take(&p, 0);
    for (int i = 0; i < 3 * WG_RATELIMITER_BURST; i++) {
        enum wg_device_rx rx = wgpair_inject(&p, &init);

        handled += rx != WG_DEVICE_DROP_RATELIMITED;
        limited += rx == WG_DEVICE_DROP_RATELIMITED;
    }
    WGTEST_CHECK(handled == WG_RATELIMITER_BURST);
    WGTEST_CHECK(limited == 2 * WG_RATELIMITER_BURST);
    wgpair_destroy(&p);
    printf("rate limit ok\n");
}
WGTEST_REGISTER("device-ratelimit", test_device_ratelimit);

static void
test_device_peers(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const char *const low_order[] = {
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800",
        "5f9c95bca3508c24b1d0b1559c83ef5b04445cc4581c8e86d8224eddd09f1157",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    };
    struct wgpair p;
    struct wg_index_table *t;
    struct wg_peer *peer;
    uint8_t key[WG_KEY_LEN];

    wgpair_init(&p, NULL, NULL);
    for (size_t i = 0; i < ARRAY_SIZE(low_order); i++) {
        wgtest_unhex(low_order[i], key, sizeof key);
        WGTEST_CHECK(wg_device_peer_add(p.node[0].dev, key, &peer)
                     == EINVAL);
        WGTEST_CHECK(!peer);
    }
    WGTEST_CHECK(wg_device_peer_add(p.node[0].dev, p.node[0].pub, &peer)
                 == EINVAL);
    WGTEST_CHECK(wg_device_peer_add(p.node[0].dev, p.node[1].pub, &peer)
                 == EEXIST);
    WGTEST_CHECK(wg_device_peer_count(p.node[0].dev) == 1);

    /* Iteration in insertion order; lookup; removal. */
    wg_crypto_generate_private_key(key);
    WGTEST_CHECK(wg_crypto_public_key(key, key));
    WGTEST_CHECK(!wg_device_peer_add(p.node[0].dev, key, &peer));
    WGTEST_CHECK(wg_device_peer_first(p.node[0].dev) == p.node[0].peer);
    WGTEST_CHECK(wg_device_peer_next(p.node[0].dev, p.node[0].peer)
                 == peer);
    WGTEST_CHECK(!wg_device_peer_next(p.node[0].dev, peer));
    WGTEST_CHECK(wg_device_peer_lookup(p.node[0].dev, key) == peer);
    wg_device_peer_remove(p.node[0].dev, peer);
    WGTEST_CHECK(!wg_device_peer_lookup(p.node[0].dev, key));
    WGTEST_CHECK(wg_device_peer_count(p.node[0].dev) == 1);

    /* A session, then peer removal: its indices go away with it. */
    wgpair_handshake(&p, 0);
    t = p.node[0].peer->indices;
    WGTEST_CHECK(wg_peer_index_count(t) == 1);
    wg_device_peer_remove(p.node[0].dev, p.node[0].peer);
    WGTEST_CHECK(wg_peer_index_count(t) == 0);
    WGTEST_CHECK(!wg_device_peer_first(p.node[0].dev));
    wgpair_destroy(&p);
    printf("peer validation ok\n");
}
WGTEST_REGISTER("device-peers", test_device_peers);

static void
set_port(struct wgpair_node *node, uint16_t port)
{
    node->addr.sin_port = htons(port);
}

static void
test_device_roaming(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    const struct sockaddr_in *ep;
    struct wgpair_msg m;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);

    /* A moves: B learns the new address from A's next packet and answers
     * there. */
    set_port(&p.node[0], 40000);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 80) > 0);
    wgpair_deliver(&p);
    ep = (const struct sockaddr_in *) wg_device_peer_endpoint(p.node[1].peer,
                                                              NULL);
    WGTEST_CHECK(ep->sin_port == htons(40000));
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 90) > 0);
    WGTEST_CHECK(p.msgs[0].to == 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[0].last_inner_len == 90);

    /* A forged (unauthenticated) packet from elsewhere changes nothing. */
    p.hold = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 80) > 0);
    m = wgpair_take(&p, 0);
    m.data[m.len - 1] ^= 1;
    m.src.sin_port = htons(666);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_BAD_TAG);
    WGTEST_CHECK(ep->sin_port == htons(40000));

    /* Nor does a replayed authentic one. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 80) > 0);
    m = wgpair_take(&p, 0);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_RX_DATA);
    m.src.sin_port = htons(667);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_REPLAYED);
    WGTEST_CHECK(ep->sin_port == htons(40000));

    /* A handshake from a new address also moves the endpoint. */
    set_port(&p.node[0], 40001);
    p.hold = false;
    p.now_ms += WG_REKEY_TIMEOUT_MS;
    WGTEST_CHECK(wg_device_peer_initiate(p.node[0].dev, p.node[0].peer)
                 == 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(ep->sin_port == htons(40001));
    wgpair_destroy(&p);
    printf("roaming ok\n");
}
WGTEST_REGISTER("device-roaming", test_device_roaming);
