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

#include <endian.h>
#include <string.h>
#include "test-wg-pair.h"
#include "util.h"
#include "wg-peer.h"
#include "wgtest.h"

/* Malformed and hostile input: each datagram is rejected with its own
 * reason and leaves the receiving device as it was. */

/* What must not change when a datagram is dropped. */
struct snapshot {
    struct wg_peer_info info;
    struct wg_noise_keypair *current, *previous, *next;
    uint64_t greatest;
    enum wg_noise_state hs_state;
    uint32_t hs_index;
    size_t n_indices;
    int sent[WG_MSG_DATA + 1];
    int session_ready;
};

static void
snapshot_take(const struct wgpair_node *node, struct snapshot *s)
{
    const struct wg_peer *peer = node->peer;

    memset(s, 0, sizeof *s);
    wg_device_peer_get_info(node->dev, peer, &s->info);
    s->current = wg_noise_keypairs_current(&peer->keypairs);
    s->previous = peer->keypairs.previous;
    s->next = peer->keypairs.next;
    s->greatest = (s->current
                   ? wg_noise_keypair_replay_greatest(s->current) : 0);
    s->hs_state = peer->handshake.state;
    s->hs_index = peer->handshake.local_index;
    s->n_indices = wg_peer_index_count(peer->indices);
    memcpy(s->sent, node->sent, sizeof s->sent);
    s->session_ready = node->session_ready;
}

/* Compares; an authenticated datagram may consume its counter. */
static void
snapshot_check(const struct snapshot *a, const struct snapshot *b,
               bool authenticated)
{
    WGTEST_CHECK(!memcmp(&a->info, &b->info, sizeof a->info));
    WGTEST_CHECK(a->current == b->current && a->previous == b->previous
                 && a->next == b->next);
    WGTEST_CHECK(authenticated || a->greatest == b->greatest);
    WGTEST_CHECK(a->hs_state == b->hs_state && a->hs_index == b->hs_index);
    WGTEST_CHECK(a->n_indices == b->n_indices);
    WGTEST_CHECK(!memcmp(a->sent, b->sent, sizeof a->sent));
    WGTEST_CHECK(a->session_ready == b->session_ready);
}

struct bad_case {
    const char *what;
    struct wgpair_msg msg;
    enum wg_device_rx expect;
    bool authenticated;
};

/* Captured genuine messages to derive bad ones from. */
struct captures {
    struct wgpair_msg init;         /* A's initiation to B (consumed). */
    struct wgpair_msg resp;         /* B's response to A (consumed). */
    struct wgpair_msg data;         /* A's data to B (consumed). */
    struct wgpair_msg fresh;        /* A's data to B, not yet delivered. */
};

static void
capture(struct wgpair *p, struct captures *c)
{
    p->hold = true;
    WGTEST_CHECK(wgpair_send_ip(p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    c->init = wgpair_take(p, 0);
    WGTEST_CHECK(wgpair_inject(p, &c->init) == WG_DEVICE_RX_HANDSHAKE);
    c->resp = wgpair_take(p, 0);
    WGTEST_CHECK(wgpair_inject(p, &c->resp) == WG_DEVICE_RX_HANDSHAKE);
    c->data = wgpair_take(p, 0);
    WGTEST_CHECK(wgpair_inject(p, &c->data) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(wgpair_send_ip(p, 0, 100) > 0);
    c->fresh = wgpair_take(p, 0);
    WGTEST_CHECK(!p->n_msgs);
}

/* A's inner packet 'pkt' of 'len' bytes, encrypted for B, not delivered. */
static struct wgpair_msg
encrypt_raw(struct wgpair *p, const uint8_t *pkt, size_t len)
{
    WGTEST_CHECK(wgpair_send(p, 0, pkt, len) > 0);
    return wgpair_take(p, 0);
}

static size_t
add(struct bad_case *cases, size_t n, const char *what,
    const struct wgpair_msg *m, enum wg_device_rx expect)
{
    cases[n].what = what;
    cases[n].msg = *m;
    cases[n].expect = expect;
    cases[n].authenticated = false;
    return n + 1;
}

static size_t
add_type_cases(struct bad_case *cases, size_t n, const struct captures *c)
{
    struct wgpair_msg m;

    m = c->fresh;
    m.len = 3;
    n = add(cases, n, "3 bytes", &m, WG_DEVICE_DROP_TOO_SHORT);
    m.len = 0;
    n = add(cases, n, "empty", &m, WG_DEVICE_DROP_TOO_SHORT);
    m = c->fresh;
    m.len = WG_MSG_DATA_MIN_LEN - 1;
    n = add(cases, n, "data, 31 bytes", &m, WG_DEVICE_DROP_TOO_SHORT);
    m = c->init;
    m.len--;
    n = add(cases, n, "initiation, 147 bytes", &m, WG_DEVICE_DROP_TOO_SHORT);
    m = c->init;
    m.data[m.len++] = 0;
    n = add(cases, n, "initiation, 149 bytes", &m, WG_DEVICE_DROP_BAD_LENGTH);
    m = c->resp;
    m.to = 1;
    m.data[m.len++] = 0;
    n = add(cases, n, "response, 93 bytes", &m, WG_DEVICE_DROP_BAD_LENGTH);
    m = c->fresh;
    m.data[0] = 5;
    n = add(cases, n, "type 5", &m, WG_DEVICE_DROP_BAD_TYPE);
    m = c->fresh;
    m.data[0] = 0;
    n = add(cases, n, "type 0", &m, WG_DEVICE_DROP_BAD_TYPE);
    m = c->fresh;
    m.data[2] = 1;
    n = add(cases, n, "reserved byte set", &m, WG_DEVICE_DROP_BAD_TYPE);
    m = c->init;
    m.data[20] ^= 1;
    n = add(cases, n, "initiation, bad mac1", &m, WG_DEVICE_DROP_BAD_MAC1);
    m = c->init;
    m.data[116] ^= 1;
    n = add(cases, n, "initiation, mac1 flipped", &m,
            WG_DEVICE_DROP_BAD_MAC1);
    return n;
}

static size_t
add_handshake_cases(struct bad_case *cases, size_t n,
                    const struct captures *c)
{
    struct wgpair_msg m;

    m = c->init;
    n = add(cases, n, "initiation replayed", &m,
            WG_DEVICE_DROP_HANDSHAKE_REPLAY);
    m = c->resp;
    n = add(cases, n, "response again (index now a keypair's)", &m,
            WG_DEVICE_DROP_STALE_HANDSHAKE);
    m = c->resp;
    m.to = 1;
    n = add(cases, n, "response sent to its own sender", &m,
            WG_DEVICE_DROP_BAD_MAC1);
    m = c->resp;
    m.data[8] ^= 0x55;
    n = add(cases, n, "response, altered index", &m,
            WG_DEVICE_DROP_BAD_MAC1);
    m = c->fresh;
    m.data[0] = WG_MSG_COOKIE_REPLY;
    m.len = WG_MSG_COOKIE_REPLY_LEN;
    n = add(cases, n, "cookie reply, bad", &m, WG_DEVICE_DROP_BAD_COOKIE);
    m.data[4] ^= 0x55;
    n = add(cases, n, "cookie reply, unknown index", &m,
            WG_DEVICE_DROP_UNKNOWN_INDEX);
    return n;
}

static size_t
add_data_cases(struct wgpair *p, struct bad_case *cases, size_t n,
               const struct captures *c)
{
    uint8_t pkt[200];
    struct wgpair_msg m;
    size_t len;

    m = c->fresh;
    m.data[m.len - 1] ^= 1;
    n = add(cases, n, "data, bad tag", &m, WG_DEVICE_DROP_BAD_TAG);
    m = c->fresh;
    m.data[20] ^= 1;
    n = add(cases, n, "data, bad ciphertext", &m, WG_DEVICE_DROP_BAD_TAG);
    m = c->fresh;
    m.data[8] ^= 1;
    n = add(cases, n, "data, other counter", &m, WG_DEVICE_DROP_BAD_TAG);
    m = c->fresh;
    m.data[4] ^= 0x55;
    n = add(cases, n, "data, unknown index", &m,
            WG_DEVICE_DROP_UNKNOWN_INDEX);
    m = c->data;
    n = add(cases, n, "data, replayed counter", &m, WG_DEVICE_DROP_REPLAYED);

    len = wgpair_make_ip(p, 0, false, 60, 1, pkt);
    pkt[15] = 99;               /* Source 10.0.0.99. */
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner source not allowed", &m,
            WG_DEVICE_DROP_NOT_ALLOWED);
    len = wgpair_make_ip(p, 0, true, 60, 1, pkt);
    pkt[8] = 0xfe;              /* Source fe00::1. */
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner v6 source not allowed", &m,
            WG_DEVICE_DROP_NOT_ALLOWED);

    len = wgpair_make_ip(p, 0, false, 60, 1, pkt);
    pkt[0] = 0x55;
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner version 5", &m, WG_DEVICE_DROP_BAD_INNER);
    len = wgpair_make_ip(p, 0, false, 60, 1, pkt);
    pkt[3] = 65;                /* Total length past the padding. */
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner v4 length too long", &m,
            WG_DEVICE_DROP_BAD_INNER);
    len = wgpair_make_ip(p, 0, false, 60, 1, pkt);
    pkt[0] = 0x44;              /* IHL 16 bytes. */
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner v4 short ihl", &m, WG_DEVICE_DROP_BAD_INNER);
    len = wgpair_make_ip(p, 0, true, 60, 1, pkt);
    pkt[5] = 25;                /* Payload length past the padding. */
    m = encrypt_raw(p, pkt, len);
    n = add(cases, n, "inner v6 length too long", &m,
            WG_DEVICE_DROP_BAD_INNER);
    len = wgpair_make_ip(p, 0, false, 60, 1, pkt);
    m = encrypt_raw(p, pkt, 19);
    n = add(cases, n, "inner shorter than IPv4 header", &m,
            WG_DEVICE_DROP_BAD_INNER);
    for (size_t i = n - 7; i < n; i++) {
        cases[i].authenticated = true;
    }
    return n;
}

/* An initiation to B from a third device that B does not know, and one
 * to a device without private key. */
static struct wgpair_msg stray;

static void
stray_send(void *aux OVS_UNUSED, const struct sockaddr *dst OVS_UNUSED,
           socklen_t dst_len OVS_UNUSED, const void *msg, size_t len)
{
    memcpy(stray.data, msg, len);
    stray.len = len;
}

static size_t
add_stranger_cases(struct wgpair *p, struct bad_case *cases, size_t n)
{
    static const struct wg_device_hooks hooks = { .send = stray_send };
    struct wg_device *dev = wg_device_create(&hooks, NULL);
    uint8_t priv[WG_KEY_LEN];
    struct wg_peer *peer;

    wg_crypto_generate_private_key(priv);
    WGTEST_CHECK(!wg_device_set_private_key(dev, priv));
    WGTEST_CHECK(!wg_device_peer_add(dev, p->node[1].pub, &peer));
    WGTEST_CHECK(!wg_device_peer_set_endpoint(
                     dev, peer, (struct sockaddr *) &p->node[1].addr,
                     sizeof p->node[1].addr));
    WGTEST_CHECK(!wg_device_peer_initiate(dev, peer));
    wg_device_destroy(dev);
    stray.to = 1;
    stray.src = p->node[0].addr;
    stray.src.sin_port = htons(9);
    return add(cases, n, "initiation from an unknown key", &stray,
               WG_DEVICE_DROP_UNKNOWN_PEER);
}

/* A second initiation from A, newer but only 17 ms after the last. */
static size_t
add_flood_case(struct wgpair *p, struct bad_case *cases, size_t n)
{
    struct wgpair_msg m;

    p->now_ms += 17;
    p->node[0].peer->timers.sent_any_initiation = false;
    WGTEST_CHECK(!wg_device_peer_initiate(p->node[0].dev, p->node[0].peer));
    m = wgpair_take(p, 0);
    return add(cases, n, "initiation 17 ms after the last", &m,
               WG_DEVICE_DROP_HANDSHAKE_FLOOD);
}

static void
test_device_malformed(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct bad_case cases[64];
    struct captures c;
    struct wgpair p;
    bool seen[WG_DEVICE_N_RX] = { false };
    size_t n = 0;

    wgpair_init(&p, NULL, NULL);
    capture(&p, &c);
    n = add_type_cases(cases, n, &c);
    n = add_handshake_cases(cases, n, &c);
    n = add_data_cases(&p, cases, n, &c);
    n = add_stranger_cases(&p, cases, n);
    n = add_flood_case(&p, cases, n);
    WGTEST_CHECK(n <= ARRAY_SIZE(cases));

    for (size_t i = 0; i < n; i++) {
        const struct wgpair_node *node = &p.node[cases[i].msg.to];
        struct snapshot before, after;
        enum wg_device_rx rx;

        snapshot_take(node, &before);
        rx = wgpair_inject(&p, &cases[i].msg);
        snapshot_take(node, &after);
        printf("%-40s %s\n", cases[i].what, wg_device_rx_name(rx));
        if (rx != cases[i].expect) {
            fprintf(stderr, "expected %s\n",
                    wg_device_rx_name(cases[i].expect));
        }
        WGTEST_CHECK(rx == cases[i].expect);
        WGTEST_CHECK(wg_device_rx_is_drop(rx));
        snapshot_check(&before, &after, cases[i].authenticated);
        seen[rx] = true;
    }
    WGTEST_CHECK(!p.n_msgs);

    /* Every drop reason but those needing special setup was hit. */
    for (int rx = WG_DEVICE_DROP_TOO_SHORT; rx < WG_DEVICE_N_RX; rx++) {
        WGTEST_CHECK(seen[rx] || rx == WG_DEVICE_DROP_NO_IDENTITY
                     || rx == WG_DEVICE_DROP_RATELIMITED
                     || rx == WG_DEVICE_DROP_HANDSHAKE_AUTH
                     || rx == WG_DEVICE_DROP_KEY_EXPIRED
                     || rx == WG_DEVICE_DROP_CRYPTO);  /* crypto-fault-* */
        WGTEST_CHECK(strcmp(wg_device_rx_name(rx), "<invalid>"));
    }

    /* The device still works: the genuine packet goes through. */
    WGTEST_CHECK(wgpair_inject(&p, &c.fresh) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(p.node[1].last_inner_len == 100);
    wgpair_destroy(&p);
}
WGTEST_REGISTER("device-malformed", test_device_malformed);

static void
test_device_no_identity(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct captures c;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    capture(&p, &c);
    WGTEST_CHECK(!wg_device_set_private_key(p.node[1].dev, NULL));
    WGTEST_CHECK(!wg_device_get_public_key(p.node[1].dev, c.init.data));
    WGTEST_CHECK(wgpair_inject(&p, &c.init) == WG_DEVICE_DROP_NO_IDENTITY);
    /* Sessions went with the key. */
    WGTEST_CHECK(wgpair_inject(&p, &c.fresh) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(!wg_device_peer_has_session(p.node[1].dev, p.node[1].peer));
    wgpair_destroy(&p);
    printf("no identity ok\n");
}
WGTEST_REGISTER("device-no-identity", test_device_no_identity);
