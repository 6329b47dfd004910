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

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include "test-wg-pair.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-peer.h"
#include "wg-timers.h"
#include "wgtest.h"

/* Protocol timers and keypair lifetimes, driven by the fake clock of two
 * in-memory devices (tests/test-wg-pair.h). */

static int
initiations(const struct wgpair *p, int node)
{
    return wgpair_sent(p, node, WG_MSG_INITIATION);
}

static struct wg_noise_keypairs *
keypairs(struct wgpair *p, int node)
{
    return &p->node[node].peer->keypairs;
}

/* Takes queued data messages out, returning the last one. */
static struct wgpair_msg
take_last_data(struct wgpair *p)
{
    struct wgpair_msg m;
    bool found = false;

    for (size_t i = p->n_msgs; i-- > 0;) {
        if (p->msgs[i].data[0] == WG_MSG_DATA) {
            m = wgpair_take(p, i);
            found = true;
            break;
        }
    }
    WGTEST_CHECK(found);
    return m;
}

static void
test_device_rekey_time(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_noise_keypair *first;
    struct wgpair p;
    long long int t0;

    wgpair_init(&p, NULL, NULL);
    t0 = p.now_ms;
    wgpair_handshake(&p, 0);
    first = wg_noise_keypairs_current(keypairs(&p, 0));

    /* Data both ways every 10 s: no rekey before REKEY_AFTER_TIME. */
    while (p.now_ms + 10000 < t0 + WG_REKEY_AFTER_TIME_MS) {
        wgpair_advance(&p, 10000);
        WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
        WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
        wgpair_deliver(&p);
    }
    WGTEST_CHECK(initiations(&p, 0) == 1 && initiations(&p, 1) == 0);
    WGTEST_CHECK(wg_noise_keypairs_current(keypairs(&p, 0)) == first);

    /* The responder never rekeys on time when it sends. */
    p.now_ms = t0 + WG_REKEY_AFTER_TIME_MS;
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(initiations(&p, 1) == 0);

    /* The initiator's first send at REKEY_AFTER_TIME starts a new
     * handshake; the old keypair becomes the previous one. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    WGTEST_CHECK(initiations(&p, 0) == 2);
    wgpair_deliver(&p);
    WGTEST_CHECK(wg_noise_keypairs_current(keypairs(&p, 0)) != first);
    WGTEST_CHECK(keypairs(&p, 0)->previous == first);
    WGTEST_CHECK(p.node[0].session_ready == 2);
    WGTEST_CHECK(p.node[1].session_ready == 2);
    wgpair_destroy(&p);
    printf("rekey after time ok\n");
}
WGTEST_REGISTER("device-rekey-time", test_device_rekey_time);

/* 'node' sends on a session that reaches 'limit' messages, the threshold
 * the test hook sets on both devices ('hook': wg_device_set_rekey_after_
 * messages_for_test(), which never raises it above REKEY_AFTER_MESSAGES). */
static void
rekey_messages(int node, uint64_t hook, uint64_t limit)
{
    struct wg_noise_keypair *first;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    for (int i = 0; hook && i < 2; i++) {
        wg_device_set_rekey_after_messages_for_test(p.node[i].dev, hook);
    }
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, WG_REKEY_TIMEOUT_MS);
    first = wg_noise_keypairs_current(keypairs(&p, node));
    atomic_store_relaxed(&first->send_counter, limit - 1);

    /* Counter 'limit' - 1 is still fine... */
    WGTEST_CHECK(wgpair_send_ip(&p, node, 100) > 0);
    WGTEST_CHECK(initiations(&p, node) == !node);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[!node].rx[WG_DEVICE_RX_DATA] == 2 - node);

    /* ...the next one passes the limit and triggers a handshake. */
    WGTEST_CHECK(wgpair_send_ip(&p, node, 100) > 0);
    WGTEST_CHECK(initiations(&p, node) == !node + 1);
    wgpair_deliver(&p);
    WGTEST_CHECK(wg_noise_keypairs_current(keypairs(&p, node)) != first);
    WGTEST_CHECK(wg_noise_keypair_send_counter(
                     wg_noise_keypairs_current(keypairs(&p, node))) > 0);
    WGTEST_CHECK(wg_device_peer_has_session(p.node[!node].dev,
                                            p.node[!node].peer));
    wgpair_destroy(&p);
}

static void
test_device_rekey_messages(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    rekey_messages(0, 0, WG_REKEY_AFTER_MESSAGES);
    rekey_messages(1, 0, WG_REKEY_AFTER_MESSAGES);
    rekey_messages(0, 1000, 1000);
    rekey_messages(1, 1000, 1000);
    rekey_messages(1, UINT64_MAX, WG_REKEY_AFTER_MESSAGES);
    printf("rekey after messages ok\n");
}
WGTEST_REGISTER("device-rekey-messages", test_device_rekey_messages);

/* The initiator rekeys when it receives data on a keypair 165 s old. */
static void
test_device_rekey_on_receive(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;
    long long int t0;

    wgpair_init(&p, NULL, NULL);
    t0 = p.now_ms;
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, WG_REKEY_ON_RECEIVE_AFTER_TIME_MS - 1);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_DATA] == 1);
    WGTEST_CHECK(initiations(&p, 0) == 1);

    p.now_ms = t0 + WG_REKEY_ON_RECEIVE_AFTER_TIME_MS;
    p.hold = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(initiations(&p, 0) == 2);
    WGTEST_CHECK(p.msgs[0].data[0] == WG_MSG_INITIATION);

    /* Only once ("last minute"), even if the response is lost. */
    wgpair_take(&p, 0);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    p.now_ms += WG_REKEY_TIMEOUT_MS;
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(initiations(&p, 0) == 2);
    wgpair_destroy(&p);
    printf("rekey on receive ok\n");
}
WGTEST_REGISTER("device-rekey-on-receive", test_device_rekey_on_receive);

static void
test_device_reject_time(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg late;
    struct wgpair p;
    long long int t0;

    wgpair_init(&p, NULL, NULL);
    t0 = p.now_ms;
    wgpair_handshake(&p, 0);
    p.hold = true;

    /* Just before REJECT_AFTER_TIME both still send (A also tries to
     * rekey; that initiation is lost). */
    p.now_ms = t0 + WG_REJECT_AFTER_TIME_MS - 1;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    late = take_last_data(&p);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    p.n_msgs = 0;

    /* At REJECT_AFTER_TIME neither sends nor receives on that keypair. */
    p.now_ms = t0 + WG_REJECT_AFTER_TIME_MS;
    WGTEST_CHECK(wgpair_inject(&p, &late) == WG_DEVICE_DROP_KEY_EXPIRED);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) == WG_DEVICE_TX_NO_SESSION);
    WGTEST_CHECK(!wg_device_peer_has_session(p.node[0].dev,
                                             p.node[0].peer));
    WGTEST_CHECK(p.node[1].n_pending == 1);

    /* B's packet waits for the new handshake that it started. */
    p.hold = false;
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[1].session_ready == 2);
    WGTEST_CHECK(p.node[1].n_pending == 0);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_DATA] == 1);
    wgpair_destroy(&p);
    printf("reject after time ok\n");
}
WGTEST_REGISTER("device-reject-time", test_device_reject_time);

/* A frozen clock reads the time of the freeze, also for the timers of the
 * packets sent meanwhile; thawed, it follows the clock again. */
static void
test_device_clock_freeze(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_device *a;
    struct wgpair p;
    long long int t0;

    wgpair_init(&p, NULL, NULL);
    a = p.node[0].dev;
    t0 = p.now_ms;
    WGTEST_CHECK(wg_device_now(a) == t0);
    wgpair_handshake(&p, 0);

    wg_device_clock_freeze(a);
    p.now_ms = t0 + WG_REJECT_AFTER_TIME_MS;
    WGTEST_CHECK(wg_device_now(a) == t0);
    WGTEST_CHECK(wg_device_now(p.node[1].dev) == p.now_ms);
    /* At the frozen time the keypair is still valid. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);

    wg_device_clock_thaw(a);
    WGTEST_CHECK(wg_device_now(a) == p.now_ms);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    wgpair_destroy(&p);
    printf("clock freeze ok\n");
}
WGTEST_REGISTER("device-clock-freeze", test_device_clock_freeze);

static void
test_device_previous_keypair(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg old1, old2, from_b;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    p.hold = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    old1 = wgpair_take(&p, 0);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    old2 = wgpair_take(&p, 0);

    /* New handshake: A has the new keypair at once, B only once it gets
     * A's keepalive.  Meanwhile B still sends on the old keypair, which A
     * decrypts as its previous one. */
    p.now_ms += WG_REKEY_TIMEOUT_MS;
    WGTEST_CHECK(!wg_device_peer_initiate(p.node[0].dev, p.node[0].peer));
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_HANDSHAKE);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_HANDSHAKE);
    WGTEST_CHECK(keypairs(&p, 1)->next && keypairs(&p, 0)->previous);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 120) > 0);
    from_b = take_last_data(&p);
    WGTEST_CHECK(wgpair_inject(&p, &from_b) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(p.node[0].last_inner_len == 120);

    /* A's keepalive confirms; B rotates. */
    WGTEST_CHECK(p.n_msgs == 1 && p.node[0].keepalives_sent == 1);
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_KEEPALIVE);
    WGTEST_CHECK(!keypairs(&p, 1)->next && keypairs(&p, 1)->previous);

    /* A late packet of the old keypair still decrypts. */
    WGTEST_CHECK(wgpair_inject(&p, &old1) == WG_DEVICE_RX_DATA);

    /* After one more rotation, the old keypair is gone. */
    p.now_ms += WG_REKEY_TIMEOUT_MS;
    p.hold = false;
    WGTEST_CHECK(!wg_device_peer_initiate(p.node[0].dev, p.node[0].peer));
    wgpair_deliver(&p);
    WGTEST_CHECK(wgpair_inject(&p, &old2) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    wgpair_destroy(&p);
    printf("previous keypair ok\n");
}
WGTEST_REGISTER("device-previous-keypair", test_device_previous_keypair);

static void
test_device_keepalive(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);

    /* B got data and sent nothing back: keepalive after 10 s. */
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS - 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == 0);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == 1);
    WGTEST_CHECK(p.node[0].rx[WG_DEVICE_RX_KEEPALIVE] == 1);
    wgpair_advance(&p, 3 * WG_KEEPALIVE_TIMEOUT_MS);
    WGTEST_CHECK(p.node[1].keepalives_sent == 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 0);

    /* B answers with data within 10 s: no keepalive from B; A, which got
     * that data and sent nothing, sends one 10 s later. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    wgpair_deliver(&p);
    wgpair_advance(&p, 1000);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    wgpair_deliver(&p);
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS - 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 0);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == 1);
    WGTEST_CHECK(initiations(&p, 0) == 1 && initiations(&p, 1) == 0);

    /* More data while B's keepalive is pending: one more keepalive 10 s
     * after the first, then none. */
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    wgpair_deliver(&p);
    wgpair_advance(&p, 5000);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    wgpair_deliver(&p);
    wgpair_advance(&p, 5000);
    WGTEST_CHECK(p.node[1].keepalives_sent == 2);
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS - 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == 2);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == 3);
    wgpair_advance(&p, 3 * WG_KEEPALIVE_TIMEOUT_MS);
    WGTEST_CHECK(p.node[1].keepalives_sent == 3);
    wgpair_destroy(&p);
    printf("keepalive ok\n");
}
WGTEST_REGISTER("device-keepalive", test_device_keepalive);

/* Data sent with nothing back for KEEPALIVE + REKEY_TIMEOUT: new
 * handshake. */
static void
test_device_new_handshake(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, 30000);
    p.node[1].blackhole = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS + WG_REKEY_TIMEOUT_MS - 1);
    WGTEST_CHECK(initiations(&p, 0) == 1);
    wgpair_advance(&p, WG_REKEY_TIMEOUT_JITTER_MAX_MS + 1);
    WGTEST_CHECK(initiations(&p, 0) == 2);
    wgpair_destroy(&p);
    printf("new handshake ok\n");
}
WGTEST_REGISTER("device-new-handshake", test_device_new_handshake);

/* The jitter added to handshake timers: within [0, REKEY_TIMEOUT_JITTER_MAX]
 * and spread over that range; a pending timer is not moved. */
static void
test_timers_jitter(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    const long long int now = 1000;
    const long long int base[] = {
        now + WG_KEEPALIVE_TIMEOUT_MS + WG_REKEY_TIMEOUT_MS,
        now + WG_REKEY_TIMEOUT_MS,
    };
    const enum wg_timer timer[] = {
        WG_TIMER_NEW_HANDSHAKE, WG_TIMER_RETRANSMIT_HANDSHAKE,
    };

    for (size_t k = 0; k < ARRAY_SIZE(timer); k++) {
        long long int lo = LLONG_MAX, hi = LLONG_MIN;

        for (int i = 0; i < 2000; i++) {
            struct wg_timers t;
            long long int jitter;

            wg_timers_init(&t);
            if (timer[k] == WG_TIMER_NEW_HANDSHAKE) {
                long long int first;

                wg_timers_data_sent(&t, now);
                first = t.deadline_ms[timer[k]];
                wg_timers_data_sent(&t, now + 1);   /* Pending: kept. */
                WGTEST_CHECK(t.deadline_ms[timer[k]] == first);
            } else {
                wg_timers_handshake_initiated(&t, now);
            }
            jitter = t.deadline_ms[timer[k]] - base[k];
            WGTEST_CHECK(jitter >= 0);
            WGTEST_CHECK(jitter <= WG_REKEY_TIMEOUT_JITTER_MAX_MS);
            lo = MIN(lo, jitter);
            hi = MAX(hi, jitter);
        }
        WGTEST_CHECK(lo < WG_REKEY_TIMEOUT_JITTER_MAX_MS / 8);
        WGTEST_CHECK(hi > WG_REKEY_TIMEOUT_JITTER_MAX_MS * 7 / 8);
    }
    printf("timer jitter ok\n");
}
WGTEST_REGISTER("timers-jitter", test_timers_jitter);

static void
test_device_persistent_keepalive(int argc OVS_UNUSED,
                                 char *argv[] OVS_UNUSED)
{
    struct wg_peer_info info;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);

    /* Enabling it starts a handshake, which ends with a keepalive. */
    wg_device_peer_set_persistent_keepalive(p.node[0].dev, p.node[0].peer,
                                            25);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[0].session_ready == 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 1);
    wg_device_peer_get_info(p.node[0].dev, p.node[0].peer, &info);
    WGTEST_CHECK(info.persistent_keepalive_s == 25);

    /* Then one every 25 s of silence. */
    wgpair_advance(&p, 99999);
    WGTEST_CHECK(p.node[0].keepalives_sent == 4);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 5);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_KEEPALIVE] == 5);
    WGTEST_CHECK(p.node[1].keepalives_sent == 0);

    /* Traffic pushes it back: B's data at +105 s re-arms it for +130 s,
     * and A's ordinary keepalive for that data at +115 s for +140 s. */
    wgpair_advance(&p, 5000);
    WGTEST_CHECK(wgpair_send_ip(&p, 1, 100) > 0);
    wgpair_deliver(&p);
    wgpair_advance(&p, 9999);
    WGTEST_CHECK(p.node[0].keepalives_sent == 5);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[0].keepalives_sent == 6);
    wgpair_advance(&p, 20000);
    WGTEST_CHECK(p.node[0].keepalives_sent == 6);

    /* Disabled: silence. */
    wg_device_peer_set_persistent_keepalive(p.node[0].dev, p.node[0].peer,
                                            0);
    wgpair_advance(&p, 100000);
    WGTEST_CHECK(p.node[0].keepalives_sent == 6);
    wgpair_destroy(&p);
    printf("persistent keepalive ok\n");
}
WGTEST_REGISTER("device-persistent-keepalive",
                test_device_persistent_keepalive);

/* Many peers, each retransmitting its initiation at its own deadlines:
 * every retransmission happens, and a run looks only at the peers that
 * are due, not at every peer. */
static void
test_device_timers_many_peers(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    enum { N = 500, RETRIES = 4 };
    struct sockaddr_in nobody = {
        .sin_family = AF_INET,
        .sin_port = htons(51899),
        .sin_addr.s_addr = htonl(0x7f000063),   /* 127.0.0.99. */
    };
    struct wg_peer *peers[N];
    struct wg_device_sizes sz;
    struct wg_device *dev;
    uint64_t runs;
    struct wgpair p;
    int sent;

    wgpair_init(&p, NULL, NULL);
    dev = p.node[0].dev;
    for (int i = 0; i < N; i++) {
        uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];

        wg_crypto_generate_private_key(priv);
        WGTEST_CHECK(wg_crypto_public_key(pub, priv));
        WGTEST_CHECK(!wg_device_peer_add(dev, pub, &peers[i]));
        WGTEST_CHECK(!wg_device_peer_set_endpoint(
                         dev, peers[i], (struct sockaddr *) &nobody,
                         sizeof nobody));
        /* Its first keepalive finds no session and starts a handshake
         * with nobody, whose initiation is retransmitted. */
        wg_device_peer_set_persistent_keepalive(dev, peers[i], 25);
        wgpair_deliver(&p);
    }
    sent = initiations(&p, 0);
    WGTEST_CHECK(sent == N);

    /* Each retransmission comes REKEY_TIMEOUT plus up to a third of a
     * second after the last, so RETRIES of them within 22 s. */
    runs = wg_device_timer_runs_for_test(dev);
    wgpair_advance(&p, 22000);
    WGTEST_CHECK(initiations(&p, 0) - sent == RETRIES * N);
    runs = wg_device_timer_runs_for_test(dev) - runs;
    printf("%d peers: %d retransmissions, %"PRIu64" peer timer runs\n",
           N, RETRIES * N, runs);
    WGTEST_CHECK(runs >= RETRIES * N && runs <= (RETRIES + 1) * N);

    for (int i = 0; i < N; i++) {
        wg_device_peer_remove(dev, peers[i]);
    }
    wg_device_get_sizes_for_test(dev, &sz);
    WGTEST_CHECK(sz.n_peers == 1 && sz.n_due == 1);
    wgpair_destroy(&p);
    printf("timers of many peers ok\n");
}
WGTEST_REGISTER("device-timers-many-peers", test_device_timers_many_peers);

static void
test_device_give_up(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;
    long long int t0, gave_up = 0;

    wgpair_init(&p, NULL, NULL);
    t0 = p.now_ms;
    p.node[0].blackhole = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    WGTEST_CHECK(initiations(&p, 0) == 1);

    /* Retransmissions every REKEY_TIMEOUT (+ jitter), then give up. */
    while (p.now_ms < t0 + 200000) {
        int before = initiations(&p, 0);

        wgpair_advance(&p, 100);
        WGTEST_CHECK(initiations(&p, 0) - before <= 1);
        if (p.node[0].handshake_failed && !gave_up) {
            gave_up = p.now_ms;
        }
    }
    WGTEST_CHECK(initiations(&p, 0) == 1 + WG_MAX_TIMER_HANDSHAKES + 1);
    WGTEST_CHECK(p.node[0].handshake_failed == 1);
    WGTEST_CHECK(p.node[0].n_pending == 0);
    WGTEST_CHECK(gave_up > t0 + WG_REKEY_ATTEMPT_TIME_MS);
    WGTEST_CHECK(gave_up <= t0 + (WG_MAX_TIMER_HANDSHAKES + 2)
                 * (WG_REKEY_TIMEOUT_MS + WG_REKEY_TIMEOUT_JITTER_MAX_MS)
                 + 100);

    /* A new packet starts over. */
    p.node[0].blackhole = false;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[0].session_ready == 1);
    WGTEST_CHECK(p.node[1].last_inner_len == 100);
    wgpair_destroy(&p);
    printf("retransmit and give up ok\n");
}
WGTEST_REGISTER("device-give-up", test_device_give_up);

static void
check_no_keys(struct wgpair *p, int node)
{
    struct wg_peer *peer = p->node[node].peer;

    WGTEST_CHECK(!wg_noise_keypairs_current(&peer->keypairs)
                 && !peer->keypairs.previous && !peer->keypairs.next);
    WGTEST_CHECK(peer->handshake.state == WG_NOISE_ZEROED);
    WGTEST_CHECK(wg_crypto_is_zero(peer->handshake.chaining_key,
                                   WG_HASH_LEN));
    WGTEST_CHECK(wg_peer_index_count(peer->indices) == 0);
}

static void
test_device_zero_keys(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;
    long long int t0;

    wgpair_init(&p, NULL, NULL);
    t0 = p.now_ms;
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, WG_ZERO_KEYS_AFTER_TIME_MS - 1);
    WGTEST_CHECK(wg_noise_keypairs_current(keypairs(&p, 0))
                 && wg_noise_keypairs_current(keypairs(&p, 1)));
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    p.node[0].n_pending = 0;
    p.n_msgs = 0;
    p.now_ms = t0 + WG_ZERO_KEYS_AFTER_TIME_MS;
    wg_device_run(p.node[0].dev);
    wg_device_run(p.node[1].dev);
    check_no_keys(&p, 0);
    check_no_keys(&p, 1);
    wgpair_destroy(&p);
    printf("keys zeroed ok\n");
}
WGTEST_REGISTER("device-zero-keys", test_device_zero_keys);

/* No more than one initiation per REKEY_TIMEOUT, however many packets. */
static void
test_device_initiation_rate(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    p.hold = true;
    for (int i = 0; i < 10; i++) {
        WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    }
    WGTEST_CHECK(initiations(&p, 0) == 1);
    p.now_ms += WG_REKEY_TIMEOUT_MS - 1;
    WGTEST_CHECK(wg_device_peer_initiate(p.node[0].dev, p.node[0].peer)
                 == EAGAIN);
    WGTEST_CHECK(initiations(&p, 0) == 1);
    p.now_ms += 1;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) == WG_DEVICE_TX_NO_SESSION);
    WGTEST_CHECK(initiations(&p, 0) == 2);

    /* Only the latest initiation is answerable: the response to the
     * first one finds its index released. */
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_RX_HANDSHAKE);
    WGTEST_CHECK(p.msgs[1].data[0] == WG_MSG_RESPONSE);
    WGTEST_CHECK(wgpair_deliver_one(&p, 1) == WG_DEVICE_DROP_UNKNOWN_INDEX);

    /* The second, arriving at the same moment as the first, is a flood;
     * the retransmission 5 s later gets through. */
    WGTEST_CHECK(wgpair_deliver_one(&p, 0) == WG_DEVICE_DROP_HANDSHAKE_FLOOD);
    p.hold = false;
    wgpair_advance(&p, WG_REKEY_TIMEOUT_MS + WG_REKEY_TIMEOUT_JITTER_MAX_MS);
    WGTEST_CHECK(initiations(&p, 0) == 3);
    WGTEST_CHECK(p.node[1].last_inner_len == 100);
    WGTEST_CHECK(p.node[0].n_pending == 0);
    wgpair_destroy(&p);
    printf("initiation rate limit ok\n");
}
WGTEST_REGISTER("device-initiation-rate", test_device_initiation_rate);

/* A device that forgot its sessions (its daemon restarted) while the peer
 * still sends on one starts a handshake on the first such message that
 * comes from the peer's endpoint, once per REKEY_TIMEOUT; a message from
 * elsewhere, under load, or while it has a session, starts nothing. */
static void
test_device_forgotten_session(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wgpair_msg m;
    struct wgpair p;
    int n;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, WG_REKEY_TIMEOUT_MS);
    n = initiations(&p, 1);

    /* With its session, "b" ignores a message for an unknown index. */
    p.hold = true;
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    m = wgpair_take(&p, p.n_msgs - 1);
    m.data[4] ^= 1;
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(initiations(&p, 1) == n);

    /* "b" forgets; "a" still sends on the old session. */
    wg_peer_clear_sessions(p.node[1].peer);
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    m = wgpair_take(&p, p.n_msgs - 1);
    m.src.sin_port = htons(9);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(initiations(&p, 1) == n);
    m.src = p.node[0].addr;

    /* Under handshake load, unauthenticated packets start nothing. */
    wg_device_set_under_load_for_test(p.node[1].dev, true);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(initiations(&p, 1) == n);
    wg_device_set_under_load_for_test(p.node[1].dev, false);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(initiations(&p, 1) == n + 1);
    WGTEST_CHECK(wgpair_inject(&p, &m) == WG_DEVICE_DROP_UNKNOWN_INDEX);
    WGTEST_CHECK(initiations(&p, 1) == n + 1);

    /* The handshake completes; "a" sends on the new session. */
    p.hold = false;
    wgpair_deliver(&p);
    WGTEST_CHECK(wg_device_peer_has_session(p.node[0].dev, p.node[0].peer));
    WGTEST_CHECK(wg_device_peer_has_session(p.node[1].dev, p.node[1].peer));
    n = p.node[1].rx[WG_DEVICE_RX_DATA];
    WGTEST_CHECK(wgpair_send_ip(&p, 0, 100) > 0);
    wgpair_deliver(&p);
    WGTEST_CHECK(p.node[1].rx[WG_DEVICE_RX_DATA] == n + 1);
    wgpair_destroy(&p);
    printf("forgotten session ok\n");
}
WGTEST_REGISTER("device-forgotten-session", test_device_forgotten_session);
