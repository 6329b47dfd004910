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

#include <string.h>
#include "test-wg-pair.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device-private.h"
#include "wg-peer.h"
#include "wgtest.h"

/* Bounded runs of a device with many peers.
 *
 * A private-key change on a device with many peers (wg-device.c, "The
 * static-static DH after a key change"): the change itself computes no
 * peer's secret; a handshake works at once, whichever side starts it;
 * a run computes at most WG_DEVICE_SS_PER_RUN secrets, the next run is
 * due WG_DEVICE_SS_PACE_MS later (and computes nothing before), until
 * every peer has its own, for the key of the moment, also
 * when the key changes again in the middle.  Initiations deferred to the
 * runs, and timers due, are likewise handled at most so many per run, the
 * rest by the next runs, due at once. */

#define N_EXTRA 300             /* Peers besides the other node. */

/* Peers of 'dev' without a valid static-static DH; fails the test if one
 * that has it holds anything but DH(the device's key, its key). */
static size_t
missing(const struct wg_device *dev)
{
    const struct wg_peer *peer;
    size_t n = 0;

    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        uint8_t ss[WG_KEY_LEN];

        if (!peer->handshake.static_static_valid) {
            n++;
            continue;
        }
        WGTEST_CHECK(wg_crypto_dh(ss, dev->identity.static_private,
                                  peer->public_key));
        WGTEST_CHECK(!memcmp(ss, peer->handshake.precomputed_static_static,
                             WG_KEY_LEN));
    }
    return n;
}

/* Adds N_EXTRA peers to node 0's device, each with an endpoint nobody
 * answers if 'endpoint'; returns them in 'peers'. */
static void
add_peers(struct wgpair *p, struct wg_peer **peers, bool endpoint)
{
    struct sockaddr_in nobody = {
        .sin_family = AF_INET,
        .sin_port = htons(51899),
        .sin_addr.s_addr = htonl(0x7f000063),   /* 127.0.0.99. */
    };

    for (int i = 0; i < N_EXTRA; i++) {
        uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];

        wg_crypto_generate_private_key(priv);
        WGTEST_CHECK(wg_crypto_public_key(pub, priv));
        WGTEST_CHECK(!wg_device_peer_add(p->node[0].dev, pub, &peers[i]));
        WGTEST_CHECK(!endpoint || !wg_device_peer_set_endpoint(
                         p->node[0].dev, peers[i],
                         (struct sockaddr *) &nobody, sizeof nobody));
    }
}

/* Gives node 0 a new private key made of 'seed'. */
static void
set_own_key(struct wgpair *p, uint8_t seed)
{
    struct wgpair_node *a = &p->node[0];

    memset(a->priv, seed, sizeof a->priv);
    a->priv[0] &= 248;
    a->priv[31] = (a->priv[31] & 127) | 64;
    WGTEST_CHECK(wg_crypto_public_key(a->pub, a->priv));
    WGTEST_CHECK(!wg_device_set_private_key(a->dev, a->priv));
}

/* set_own_key(), and node 1's peer for node 0 the new public key (without
 * a session). */
static void
change_key(struct wgpair *p, uint8_t seed)
{
    set_own_key(p, seed);
    wgpair_readd_peer(p, 1);
}

/* Runs node 0's device once at the pair's clock; returns its deadline. */
static long long int
run_once(struct wgpair *p)
{
    long long int next = wg_device_run(p->node[0].dev);

    wgpair_deliver(p);
    return next;
}

static void
test_device_key_change_sliced(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_peer *peers[N_EXTRA];
    struct wg_device *dev;
    struct wgpair p;
    size_t left;

    wgpair_init(&p, NULL, NULL);
    dev = p.node[0].dev;
    add_peers(&p, peers, false);
    wgpair_handshake(&p, 0);
    WGTEST_CHECK(missing(dev) == 0);

    /* The change computes nothing; the other node's handshake is answered
     * at once (the responder's secret on demand). */
    change_key(&p, 0x51);
    WGTEST_CHECK(missing(dev) == N_EXTRA + 1);
    WGTEST_CHECK(!wg_device_peer_has_session(dev, p.node[0].peer));
    wgpair_handshake(&p, 1);
    WGTEST_CHECK(missing(dev) == N_EXTRA);

    /* One run: one slice (the peer done on demand counts in it), and due
     * again a pace later. */
    WGTEST_CHECK(wg_device_next_deadline(dev) <= p.now_ms);
    WGTEST_CHECK(run_once(&p) == p.now_ms + WG_DEVICE_SS_PACE_MS);
    left = missing(dev);
    WGTEST_CHECK(left >= N_EXTRA - WG_DEVICE_SS_PER_RUN && left < N_EXTRA);

    /* Another change in the middle: everything anew, for the new key; our
     * own initiation right after it gets its secret on demand. */
    change_key(&p, 0x52);
    WGTEST_CHECK(missing(dev) == N_EXTRA + 1);
    p.now_ms += WG_MIN_INITIATION_SEND_INTERVAL_MS;    /* No run. */
    wgpair_handshake(&p, 0);
    WGTEST_CHECK(missing(dev) == N_EXTRA);
    for (int runs = 0; (left = missing(dev)) > 0; runs++) {
        WGTEST_CHECK(runs <= N_EXTRA / WG_DEVICE_SS_PER_RUN + 1);
        WGTEST_CHECK(wg_device_next_deadline(dev) <= p.now_ms);
        run_once(&p);
        WGTEST_CHECK(missing(dev) < left);
        WGTEST_CHECK(missing(dev) + WG_DEVICE_SS_PER_RUN >= left);
        left = missing(dev);
        run_once(&p);                   /* Not due yet: nothing. */
        WGTEST_CHECK(missing(dev) == left);
        p.now_ms += WG_DEVICE_SS_PACE_MS;
    }
    WGTEST_CHECK(wg_device_next_deadline(dev) > p.now_ms);

    /* Removing the key forgets every secret and computes none. */
    WGTEST_CHECK(!wg_device_set_private_key(dev, NULL));
    WGTEST_CHECK(missing(dev) == N_EXTRA + 1);
    WGTEST_CHECK(wg_device_next_deadline(dev) > p.now_ms);
    wgpair_destroy(&p);
    printf("sliced key change ok\n");
}
WGTEST_REGISTER("device-key-change-sliced", test_device_key_change_sliced);

/* After our key changes, the old session sends no more but still receives
 * (the other node, not knowing the new key yet, goes on sending on it); our
 * next message starts a handshake with the new key, and the other node's
 * data on the old session still arrives when that handshake has made a
 * new session, until the other node sends on the new one: then the old
 * session is gone (unknown index, not a replay). */
static void
test_device_key_change_keeps_receiving(int argc OVS_UNUSED,
                                       char *argv[] OVS_UNUSED)
{
    struct wgpair_msg old[2];
    struct wgpair p;
    int inits, data;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    set_own_key(&p, 0x53);
    WGTEST_CHECK(!wg_device_peer_has_session(p.node[0].dev,
                                             p.node[0].peer));
    p.hold = true;

    WGTEST_CHECK(wgpair_send_ip(&p, 1, 200) > 0);
    WGTEST_CHECK(p.n_msgs == 1);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_DATA);

    inits = wgpair_sent(&p, 0, WG_MSG_INITIATION);
    data = wgpair_sent(&p, 0, WG_MSG_DATA);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 200) == WG_DEVICE_TX_NO_SESSION);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == inits + 1);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_DATA) == data);

    /* Node 1 learns the new key: the initiation sent makes a session, and
     * node 1's data on the old one still arrives beside it. */
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 200) > 0);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 200) > 0);
    old[1] = wgpair_take(&p, p.n_msgs - 1);
    old[0] = wgpair_take(&p, p.n_msgs - 1);
    wgpair_readd_peer(&p, 1);
    p.hold = false;
    wgpair_deliver(&p);
    WGTEST_CHECK(wg_device_peer_has_session(p.node[0].dev, p.node[0].peer));
    WGTEST_CHECK(wgpair_inject(&p, &old[0]) == WG_DEVICE_RX_DATA);

    data = p.node[0].rx[WG_DEVICE_RX_DATA];
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 200) > 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_DATA] == data + 1);
    WGTEST_CHECK(wgpair_inject(&p, &old[1]) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    wgpair_destroy(&p);
    printf("key change keeps receiving ok\n");
}
WGTEST_REGISTER("device-key-change-keeps-receiving",
                test_device_key_change_keeps_receiving);

/* Initiations to N_EXTRA peers deferred to the runs: each run sends at
 * most WG_DEVICE_INITIATIONS_PER_RUN of them and is due again at once
 * while some are left; then their retransmissions, all due at the same
 * moment, at most WG_DEVICE_TIMERS_PER_RUN peers' timers a run. */
static void
test_device_runs_bounded(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_peer *peers[N_EXTRA];
    struct wg_device *dev;
    struct wgpair p;
    int sent = 0, runs = 0;

    wgpair_init(&p, NULL, NULL);
    dev = p.node[0].dev;
    add_peers(&p, peers, true);
    wg_device_set_deferred(dev, true);
    for (int i = 0; i < N_EXTRA; i++) {
        WGTEST_CHECK(!wg_device_peer_initiate(dev, peers[i]));
    }
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == 0);
    while (sent < N_EXTRA) {
        int before = sent;

        WGTEST_CHECK(wg_device_next_deadline(dev) <= p.now_ms);
        run_once(&p);
        sent = wgpair_sent(&p, 0, WG_MSG_INITIATION);
        WGTEST_CHECK(sent > before);
        WGTEST_CHECK(sent - before <= WG_DEVICE_INITIATIONS_PER_RUN);
        WGTEST_CHECK(++runs <= N_EXTRA / WG_DEVICE_INITIATIONS_PER_RUN + 1);
    }

    /* Every retransmission is due by now + REKEY_TIMEOUT + jitter. */
    p.now_ms += WG_REKEY_TIMEOUT_MS + 1000;
    for (runs = 0; sent < 2 * N_EXTRA; runs++) {
        int before = sent;

        WGTEST_CHECK(runs <= N_EXTRA / WG_DEVICE_TIMERS_PER_RUN + 1);
        WGTEST_CHECK(wg_device_next_deadline(dev) <= p.now_ms);
        run_once(&p);
        sent = wgpair_sent(&p, 0, WG_MSG_INITIATION);
        WGTEST_CHECK(sent > before);
        WGTEST_CHECK(sent - before <= WG_DEVICE_TIMERS_PER_RUN);
    }
    wgpair_destroy(&p);
    printf("bounded runs ok\n");
}
WGTEST_REGISTER("device-runs-bounded", test_device_runs_bounded);
