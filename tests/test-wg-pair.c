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
#include "test-wg-pair.h"

#include <arpa/inet.h>
#include <endian.h>
#include <string.h>
#include "util.h"
#include "wgtest.h"

/* Hooks. */

static long long int
pair_now(void *node_)
{
    struct wgpair_node *node = node_;
    long long int now;

    ovs_mutex_lock(&node->pair->clock_mutex);
    now = node->pair->now_ms;
    ovs_mutex_unlock(&node->pair->clock_mutex);
    return now;
}

/* Sets the clock of 'p' as wgpair_advance() does: under its mutex, since
 * threads of a test may read it (senders without the device's lock). */
static void
pair_set_clock(struct wgpair *p, long long int now)
{
    ovs_mutex_lock(&p->clock_mutex);
    p->now_ms = now;
    ovs_mutex_unlock(&p->clock_mutex);
}

static void
pair_wall(void *node_, struct timespec *ts)
{
    struct wgpair_node *node = node_;
    long long int now = node->pair->now_ms;

    ts->tv_sec = 1700000000 + now / 1000;
    ts->tv_nsec = (now % 1000) * 1000000;
}

/* Returns the node whose UDP address is 'dst', or -1. */
static int
node_at(const struct wgpair *p, const struct sockaddr *dst)
{
    const struct sockaddr_in *sin = (const struct sockaddr_in *) dst;

    for (int i = 0; i < 2; i++) {
        if (dst->sa_family == AF_INET
            && sin->sin_port == p->node[i].addr.sin_port
            && sin->sin_addr.s_addr == p->node[i].addr.sin_addr.s_addr) {
            return i;
        }
    }
    return -1;
}

static void
pair_send(void *node_, const struct sockaddr *dst, socklen_t dst_len,
          const void *data, size_t len)
{
    struct wgpair_node *node = node_;
    struct wgpair *p = node->pair;
    struct wgpair_msg *m;
    uint8_t type = *(const uint8_t *) data;

    WGTEST_CHECK(dst_len == (dst->sa_family == AF_INET6
                             ? sizeof(struct sockaddr_in6)
                             : sizeof(struct sockaddr_in)));
    WGTEST_CHECK(len <= WGPAIR_MSG_SIZE && len >= 4);
    WGTEST_CHECK(type >= WG_MSG_INITIATION && type <= WG_MSG_DATA);
    node->sent[type]++;
    if (type == WG_MSG_DATA && len == WG_MSG_KEEPALIVE_LEN) {
        node->keepalives_sent++;
    }
    if (node->blackhole) {
        return;
    }
    WGTEST_CHECK(p->n_msgs < WGPAIR_MAX_MSGS);
    m = &p->msgs[p->n_msgs++];
    m->from = node->id;
    m->to = node_at(p, dst);
    m->src = node->addr;
    m->len = len;
    memcpy(m->data, data, len);
}

static void
pair_session_ready(void *node_, struct wg_peer *peer)
{
    struct wgpair_node *node = node_;
    size_t n = node->n_pending;

    WGTEST_CHECK(peer == node->peer);
    node->session_ready++;
    node->n_pending = 0;
    for (size_t i = 0; i < n; i++) {
        WGTEST_CHECK(wgpair_send(node->pair, node->id, node->pending[i],
                                 node->pending_len[i]) > 0);
    }
}

static void
pair_handshake_failed(void *node_, struct wg_peer *peer)
{
    struct wgpair_node *node = node_;

    WGTEST_CHECK(peer == node->peer);
    node->handshake_failed++;
    node->n_pending = 0;
}

static const struct wg_device_hooks pair_hooks = {
    .send = pair_send,
    .session_ready = pair_session_ready,
    .handshake_failed = pair_handshake_failed,
    .now_ms = pair_now,
    .wall_clock = pair_wall,
};

/* Setup. */

static void
inner_addrs(int id, uint8_t v4[4], uint8_t v6[16])
{
    static const uint8_t v4_base[4] = { 10, 0, 0, 0 };

    memcpy(v4, v4_base, 4);
    v4[3] = id + 1;
    memset(v6, 0, 16);
    v6[0] = 0xfd;
    v6[15] = id + 1;
}

static void
node_init(struct wgpair *p, int id)
{
    struct wgpair_node *node = &p->node[id];

    memset(node, 0, sizeof *node);
    node->pair = p;
    node->id = id;
    node->addr.sin_family = AF_INET;
    node->addr.sin_port = htons(51820 + id);
    node->addr.sin_addr.s_addr = htonl(0x7f000001 + id);
    memset(node->priv, 0x41 + id, sizeof node->priv);
    node->priv[0] &= 248;                       /* Curve25519 clamping. */
    node->priv[31] = (node->priv[31] & 127) | 64;
    WGTEST_CHECK(wg_crypto_public_key(node->pub, node->priv));
    node->dev = wg_device_create(&pair_hooks, node);
    WGTEST_CHECK(!wg_device_set_private_key(node->dev, node->priv));
}

static void
node_add_peer(struct wgpair *p, int id, const uint8_t *psk)
{
    struct wgpair_node *node = &p->node[id];
    struct wgpair_node *other = &p->node[wgpair_other(id)];
    uint8_t v4[4], v6[16];

    WGTEST_CHECK(!wg_device_peer_add(node->dev, other->pub, &node->peer));
    wg_device_peer_set_psk(node->dev, node->peer, psk);
    WGTEST_CHECK(!wg_device_peer_set_endpoint(
                     node->dev, node->peer,
                     (const struct sockaddr *) &other->addr,
                     sizeof other->addr));
    inner_addrs(other->id, v4, v6);
    WGTEST_CHECK(!wg_device_peer_allowed_ip_add(node->dev, node->peer,
                                                AF_INET, v4, 32));
    WGTEST_CHECK(!wg_device_peer_allowed_ip_add(node->dev, node->peer,
                                                AF_INET6, v6, 128));
}

void
wgpair_init(struct wgpair *p, const uint8_t *psk_a, const uint8_t *psk_b)
{
    wg_crypto_init();
    memset(p, 0, sizeof *p);
    p->now_ms = 1000000;
    ovs_mutex_init(&p->clock_mutex);
    node_init(p, 0);
    node_init(p, 1);
    node_add_peer(p, 0, psk_a);
    node_add_peer(p, 1, psk_b);
}

void
wgpair_readd_peer(struct wgpair *p, int id)
{
    wg_device_peer_remove(p->node[id].dev, p->node[id].peer);
    node_add_peer(p, id, NULL);
}

void
wgpair_destroy(struct wgpair *p)
{
    wg_device_destroy(p->node[0].dev);
    wg_device_destroy(p->node[1].dev);
    ovs_mutex_destroy(&p->clock_mutex);
}

/* Packets. */

size_t
wgpair_make_ip(const struct wgpair *p OVS_UNUSED, int from, bool v6,
               size_t len, uint8_t seed, uint8_t *buf)
{
    uint8_t src4[4], src6[16], dst4[4], dst6[16];
    size_t hdr = v6 ? 40 : 20;

    WGTEST_CHECK(len >= hdr && len <= 0xffff);
    inner_addrs(from, src4, src6);
    inner_addrs(wgpair_other(from), dst4, dst6);
    memset(buf, 0, hdr);
    if (v6) {
        buf[0] = 0x60;
        buf[4] = (len - hdr) >> 8;
        buf[5] = len - hdr;
        buf[6] = 17;
        buf[7] = 64;
        memcpy(buf + 8, src6, 16);
        memcpy(buf + 24, dst6, 16);
    } else {
        buf[0] = 0x45;
        buf[2] = len >> 8;
        buf[3] = len;
        buf[8] = 64;
        buf[9] = 17;
        memcpy(buf + 12, src4, 4);
        memcpy(buf + 16, dst4, 4);
    }
    for (size_t i = hdr; i < len; i++) {
        buf[i] = seed + i;
    }
    return len;
}

int
wgpair_send(struct wgpair *p, int from, const uint8_t *pkt, size_t len)
{
    struct wgpair_node *node = &p->node[from];
    uint8_t buf[WGPAIR_MSG_SIZE];
    socklen_t dst_len;
    const struct sockaddr *dst;
    int n;

    WGTEST_CHECK(len + WG_DEVICE_HEADROOM + WG_DEVICE_TAILROOM <= sizeof buf);
    memcpy(buf + WG_DEVICE_HEADROOM, pkt, len);
    n = wg_device_encrypt(node->dev, node->peer, buf, len, sizeof buf);
    if (n == WG_DEVICE_TX_NO_SESSION) {
        WGTEST_CHECK(node->n_pending < WGPAIR_MAX_PENDING);
        memcpy(node->pending[node->n_pending], pkt, len);
        node->pending_len[node->n_pending++] = len;
    } else if (n > 0) {
        dst = wg_device_peer_endpoint(node->peer, &dst_len);
        WGTEST_CHECK(dst != NULL);
        pair_send(node, dst, dst_len, buf, n);
    }
    return n;
}

int
wgpair_send_ip(struct wgpair *p, int from, size_t len)
{
    uint8_t pkt[WGPAIR_MSG_SIZE];

    wgpair_make_ip(p, from, false, len, (uint8_t) p->now_ms, pkt);
    return wgpair_send(p, from, pkt, len);
}

/* Delivery. */

struct wgpair_msg
wgpair_take(struct wgpair *p, size_t index)
{
    struct wgpair_msg m;

    WGTEST_CHECK(index < p->n_msgs);
    m = p->msgs[index];
    memmove(&p->msgs[index], &p->msgs[index + 1],
            (p->n_msgs - index - 1) * sizeof p->msgs[0]);
    p->n_msgs--;
    return m;
}

enum wg_device_rx
wgpair_inject(struct wgpair *p, const struct wgpair_msg *m_)
{
    struct wgpair_msg m = *m_;
    struct wgpair_node *node;
    struct wg_device_rx_result r;
    enum wg_device_rx rx;

    if (m.to < 0) {
        return WG_DEVICE_N_RX;
    }
    node = &p->node[m.to];
    rx = wg_device_receive(node->dev, (const struct sockaddr *) &m.src,
                           sizeof m.src, m.data, m.len, &r);
    WGTEST_CHECK(rx < WG_DEVICE_N_RX);
    node->rx[rx]++;
    if (p->rx_check) {
        p->rx_check(node, rx, &r, m.data, m.len);
    }
    if (rx == WG_DEVICE_RX_DATA) {
        WGTEST_CHECK(r.peer == node->peer);
        WGTEST_CHECK(r.inner == m.data + WG_MSG_DATA_HEADER_LEN);
        memcpy(node->last_inner, r.inner, r.inner_len);
        node->last_inner_len = r.inner_len;
    } else {
        WGTEST_CHECK(!r.inner && !r.inner_len);
    }
    return rx;
}

enum wg_device_rx
wgpair_deliver_one(struct wgpair *p, size_t index)
{
    struct wgpair_msg m = wgpair_take(p, index);

    return wgpair_inject(p, &m);
}

void
wgpair_deliver(struct wgpair *p)
{
    for (int n = 0; !p->hold && p->n_msgs; n++) {
        WGTEST_CHECK(n < WGPAIR_MAX_DELIVERIES);
        wgpair_deliver_one(p, 0);
    }
}

void
wgpair_advance(struct wgpair *p, long long int ms)
{
    long long int target = p->now_ms + ms;

    for (;;) {
        long long int next = MIN(wg_device_run(p->node[0].dev),
                                 wg_device_run(p->node[1].dev));

        wgpair_deliver(p);
        next = MIN(next, MIN(wg_device_next_deadline(p->node[0].dev),
                             wg_device_next_deadline(p->node[1].dev)));
        if (next > target) {
            break;
        }
        pair_set_clock(p, MAX(p->now_ms, next));
    }
    pair_set_clock(p, target);
}

void
wgpair_handshake(struct wgpair *p, int from)
{
    struct wgpair_node *a = &p->node[from];
    struct wgpair_node *b = &p->node[wgpair_other(from)];
    int a_ready = a->session_ready, b_ready = b->session_ready;

    WGTEST_CHECK(wgpair_send_ip(p, from, 100) == WG_DEVICE_TX_NO_SESSION);
    wgpair_deliver(p);
    WGTEST_CHECK(a->session_ready == a_ready + 1);
    WGTEST_CHECK(b->session_ready == b_ready + 1);
    WGTEST_CHECK(wg_device_peer_has_session(a->dev, a->peer));
    WGTEST_CHECK(wg_device_peer_has_session(b->dev, b->peer));
    WGTEST_CHECK(b->last_inner_len == 100);
}

int
wgpair_sent(const struct wgpair *p, int node, enum wg_msg_type type)
{
    return p->node[node].sent[type];
}
