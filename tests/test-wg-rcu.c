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

#include <arpa/inet.h>
#include <netinet/in.h>

#include "bitmap.h"
#include "ovs-atomic.h"
#include "ovs-rcu.h"
#include "ovs-thread.h"
#include "random.h"
#include "test-wg-pair.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-noise.h"
#include "wg-peer.h"
#include "wgtest.h"

/* What the engine lets threads read without its caller's lock, read by
 * threads while the main thread changes it: the allowed-IPs trie, a peer
 * and its current keypair under OVS RCU, and the keypair's nonce counter
 * (atomic).  Each reader checks what it finds; a node, peer or keypair
 * freed too early is a use after free, which the ASan and TSan builds
 * report ("./quickstart check --asan", "--tsan"). */

#define N_READERS 2

/* Readers quiesce after this many reads: a grace period can then end. */
#define READS_PER_QUIESCE 64

/* allowedips-rcu: fake peers, each owning prefixes of 10.ID.0.0/16. */

#define N_IDS 16

struct fake_peer {
    int id;
    atomic_bool alive;          /* False once freed (a grace period after
                                 * its removal). */
};

static void
fake_peer_free(struct fake_peer *fp)
{
    atomic_store(&fp->alive, false);
    free(fp);
}

struct trie_test {
    struct wg_allowedips *t;
    atomic_bool stop;
    atomic_ullong hits;         /* Lookups that found a peer. */
    atomic_ullong lookups;
};

/* A lookup of 10.ID.X.Y finds no peer or one with that ID, alive. */
static void
trie_read_one(struct trie_test *tt, uint32_t r)
{
    int id = r % N_IDS;
    ovs_be32 addr = htonl((10u << 24) | (id << 16) | ((r >> 8) & 0xffff));
    struct fake_peer *fp = wg_allowedips_lookup(tt->t, AF_INET, &addr);
    unsigned long long orig;
    bool alive;

    if (fp) {
        atomic_read(&fp->alive, &alive);
        WGTEST_CHECK(fp->id == id && alive);
        atomic_add_relaxed(&tt->hits, 1, &orig);
    }
}

static void *
trie_reader(void *tt_)
{
    struct trie_test *tt = tt_;
    uint32_t r = random_uint32();
    bool stop = false;
    unsigned long long n = 0;

    while (!stop) {
        for (int i = 0; i < READS_PER_QUIESCE; i++) {
            r = r * 1103515245 + 12345;
            trie_read_one(tt, r);
        }
        n += READS_PER_QUIESCE;
        ovsrcu_quiesce();
        atomic_read(&tt->stop, &stop);
    }
    atomic_add_relaxed(&tt->lookups, n, &n);
    return NULL;
}

static void
trie_insert(struct wg_allowedips *t, uint32_t host, unsigned int plen,
            struct fake_peer *fp)
{
    ovs_be32 addr = htonl(host);

    WGTEST_CHECK(!wg_allowedips_insert(t, AF_INET, &addr, plen, fp));
}

/* Gives peer 'fp' (id 'id') a /16, a few /24s and host routes, which split
 * nodes of the trie; the other peer of the same id, 'other', takes one /24
 * over (a reassignment readers must never see as no peer at all). */
static void
trie_populate(struct wg_allowedips *t, struct fake_peer *fp,
              struct fake_peer *other, uint32_t round)
{
    uint32_t base = (10u << 24) | (fp->id << 16);

    trie_insert(t, base, 16, fp);
    for (uint32_t i = 0; i < 8; i++) {
        trie_insert(t, base | (((round + i * 37) & 0xff) << 8), 24, fp);
        trie_insert(t, base | ((round * 7 + i) & 0xffff), 32, fp);
    }
    if (other) {
        trie_insert(t, base | (5 << 8), 24, other);
    }
}

static void
test_allowedips_rcu(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct fake_peer *peers[N_IDS][2] = { { NULL } };
    struct trie_test tt = { .t = wg_allowedips_create() };
    pthread_t readers[N_READERS];
    unsigned long long hits, lookups;

    atomic_init(&tt.stop, false);
    atomic_init(&tt.hits, 0);
    atomic_init(&tt.lookups, 0);
    for (int i = 0; i < N_READERS; i++) {
        readers[i] = ovs_thread_create("rcu-reader", trie_reader, &tt);
    }
    for (uint32_t round = 0; round < 20000; round++) {
        int id = round % N_IDS, which = (round / N_IDS) % 2;
        struct fake_peer **fpp = &peers[id][which];

        if (*fpp) {
            wg_allowedips_remove_peer(tt.t, *fpp);
            ovsrcu_postpone(fake_peer_free, *fpp);
            *fpp = NULL;
        } else {
            *fpp = xzalloc(sizeof **fpp);
            (*fpp)->id = id;
            atomic_init(&(*fpp)->alive, true);
            trie_populate(tt.t, *fpp, peers[id][!which], round);
        }
        if (round % 64 == 0) {
            ovsrcu_quiesce();
        }
    }
    atomic_store(&tt.stop, true);
    for (int i = 0; i < N_READERS; i++) {
        xpthread_join(readers[i], NULL);
    }
    atomic_read(&tt.hits, &hits);
    atomic_read(&tt.lookups, &lookups);
    WGTEST_CHECK(hits > 0 && lookups > hits);
    for (int id = 0; id < N_IDS; id++) {
        for (int which = 0; which < 2; which++) {
            if (peers[id][which]) {
                wg_allowedips_remove_peer(tt.t, peers[id][which]);
                ovsrcu_postpone(fake_peer_free, peers[id][which]);
            }
        }
    }
    WGTEST_CHECK(!wg_allowedips_count(tt.t) && !wg_allowedips_n_nodes(tt.t));
    wg_allowedips_destroy(tt.t);
    printf("%llu lookups by %d threads, %llu found a peer\n",
           lookups, N_READERS, hits);
}
WGTEST_REGISTER("allowedips-rcu", test_allowedips_rcu);

/* index-table-rcu: lookups of receiver indices while the main thread hands
 * out new ones and frees old ones; an entry freed too early is a use after
 * free. */

#define N_SLOTS 64

struct index_test {
    struct wg_index_table t;
    struct wg_peer *peers[2];
    atomic_uint32_t slots[N_SLOTS];     /* Indices in use (or just freed). */
    atomic_bool stop;
    atomic_ullong hits;
};

static void *
index_reader(void *it_)
{
    struct index_test *it = it_;
    uint32_t r = random_uint32();
    unsigned long long hits = 0;
    bool stop = false;

    while (!stop) {
        for (int i = 0; i < READS_PER_QUIESCE; i++) {
            struct wg_peer *peer;
            uint32_t index;

            r = r * 1103515245 + 12345;
            atomic_read_relaxed(&it->slots[(r >> 16) % N_SLOTS], &index);
            peer = index ? wg_peer_index_lookup(&it->t, index) : NULL;
            WGTEST_CHECK(!peer || peer == it->peers[0]
                         || peer == it->peers[1]);
            hits += peer != NULL;
        }
        ovsrcu_quiesce();
        atomic_read(&it->stop, &stop);
    }
    atomic_add_relaxed(&it->hits, hits, &hits);
    return NULL;
}

static void
test_index_table_rcu(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    pthread_t readers[N_READERS];
    struct index_test it;
    unsigned long long hits;

    memset(&it, 0, sizeof it);
    wg_peer_index_table_init(&it.t);
    for (int i = 0; i < 2; i++) {
        it.peers[i] = xzalloc(sizeof *it.peers[i]);
        it.peers[i]->rx_n_classes = 1;
    }
    for (int i = 0; i < N_READERS; i++) {
        readers[i] = ovs_thread_create("rcu-index", index_reader, &it);
    }
    for (int k = 0; k < 100000; k++) {
        uint32_t old, new = wg_peer_index_alloc(&it.t, it.peers[k % 2]);

        atomic_read_relaxed(&it.slots[k % N_SLOTS], &old);
        atomic_store_relaxed(&it.slots[k % N_SLOTS], new);
        wg_peer_index_free(&it.t, old);
        if (!(k % READS_PER_QUIESCE)) {
            ovsrcu_quiesce();
        }
    }
    atomic_store(&it.stop, true);
    for (int i = 0; i < N_READERS; i++) {
        xpthread_join(readers[i], NULL);
    }
    atomic_read(&it.hits, &hits);
    WGTEST_CHECK(hits > 0 && wg_peer_index_count(&it.t) == N_SLOTS);
    wg_peer_index_table_destroy(&it.t);
    free(it.peers[0]);
    free(it.peers[1]);
    printf("100000 indices handed out and freed while %d threads looked "
           "them up\n", N_READERS);
}
WGTEST_REGISTER("index-table-rcu", test_index_table_rcu);

/* noise-counter-threads: nonces taken by several threads at once. */

#define COUNTERS_PER_THREAD 100000

struct counter_test {
    struct wg_noise_keypair *kp;
    unsigned long *taken[N_READERS];   /* Bitmaps of the nonces each took. */
    size_t n_ok[N_READERS];
    uint64_t base;
};

struct counter_arg {
    struct counter_test *ct;
    int idx;
};

static void *
counter_taker(void *arg_)
{
    struct counter_arg *arg = arg_;
    struct counter_test *ct = arg->ct;
    uint64_t counter;

    for (size_t i = 0; i < COUNTERS_PER_THREAD; i++) {
        if (wg_noise_keypair_take_counters(ct->kp, 1, &counter)) {
            counter -= ct->base;
            WGTEST_CHECK(counter < N_READERS * COUNTERS_PER_THREAD);
            bitmap_set1(ct->taken[arg->idx], counter);
            ct->n_ok[arg->idx]++;
        }
    }
    return NULL;
}

/* Runs the takers from nonce 'base' on; returns how many nonces they got,
 * checking that no two got the same one. */
static size_t
counter_run(struct counter_test *ct, uint64_t base)
{
    size_t n = N_READERS * COUNTERS_PER_THREAD, total = 0;
    struct counter_arg args[N_READERS];
    pthread_t threads[N_READERS];

    ct->base = base;
    atomic_store(&ct->kp->send_counter, base);
    for (int i = 0; i < N_READERS; i++) {
        ct->taken[i] = bitmap_allocate(n);
        ct->n_ok[i] = 0;
        args[i] = (struct counter_arg) { .ct = ct, .idx = i };
        threads[i] = ovs_thread_create("counter", counter_taker, &args[i]);
    }
    for (int i = 0; i < N_READERS; i++) {
        xpthread_join(threads[i], NULL);
    }
    for (size_t c = 0; c < n; c++) {
        int owners = 0;

        for (int i = 0; i < N_READERS; i++) {
            owners += bitmap_is_set(ct->taken[i], c);
        }
        WGTEST_CHECK(owners <= 1);
        total += owners;
    }
    for (int i = 0; i < N_READERS; i++) {
        WGTEST_CHECK(bitmap_count1(ct->taken[i], n) == ct->n_ok[i]);
        bitmap_free(ct->taken[i]);
    }
    return total;
}

static void
test_noise_counter_threads(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    size_t n = N_READERS * COUNTERS_PER_THREAD;
    struct counter_test ct;
    struct wgpair p;
    uint64_t first;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    ct.kp = wg_noise_keypairs_current(&p.node[0].peer->keypairs);

    /* Every nonce goes to exactly one thread. */
    WGTEST_CHECK(counter_run(&ct, 0) == n);
    WGTEST_CHECK(wg_noise_keypair_send_counter(ct.kp) == n);

    /* 1000 nonces before REJECT_AFTER_MESSAGES: exactly 1000 are given. */
    WGTEST_CHECK(counter_run(&ct, WG_REJECT_AFTER_MESSAGES - 1000) == 1000);

    /* Several at once: all or none. */
    atomic_store(&ct.kp->send_counter, WG_REJECT_AFTER_MESSAGES - 4);
    WGTEST_CHECK(wg_noise_keypair_take_counters(ct.kp, 3, &first)
                 && first == WG_REJECT_AFTER_MESSAGES - 4);
    WGTEST_CHECK(!wg_noise_keypair_take_counters(ct.kp, 2, &first));
    WGTEST_CHECK(wg_noise_keypair_take_counters(ct.kp, 1, &first)
                 && first == WG_REJECT_AFTER_MESSAGES - 1);
    WGTEST_CHECK(!wg_noise_keypair_take_counters(ct.kp, 1, &first));
    WGTEST_CHECK(!wg_device_peer_has_session(p.node[0].dev,
                                             p.node[0].peer));
    wgpair_destroy(&p);
    printf("%zu nonces taken by %d threads, each once\n", n, N_READERS);
}
WGTEST_REGISTER("noise-counter-threads", test_noise_counter_threads);

/* device-rcu-readers: threads send without the lock (routing, the peer,
 * its current keypair and endpoint, nonces, counters), and node 1 receives
 * without its lock (receiver indices, keypairs, the replay window, cryptokey
 * routing), while the main
 * thread runs the device's timers, rekeys, then removes and adds the
 * peer. */

struct device_test {
    struct wgpair *p;
    atomic_bool stop;
    atomic_ullong sends;        /* Messages sealed without the lock. */
    atomic_ullong receives;     /* Messages node 1 took without it. */
};

/* Node 1 receives message 'msg' of 'len' bytes from node 0 without the
 * lock, as far as it can: returns true if it ended it as data.  The only
 * other outcome allowed is a replay refusal of a message that really fell
 * out of the window: its sender was preempted between taking the nonce and
 * handing the message over while the other thread sent more than a window
 * (WG_REPLAY_WINDOW_SIZE) of messages on the same keypair, as a kernel
 * peer would refuse it too. */
static bool
device_receive(struct device_test *dt, uint8_t *msg, size_t len)
{
    struct wgpair_node *a = &dt->p->node[0], *b = &dt->p->node[1];
    long long int now = wg_device_now_unlocked(b->dev);
    struct wg_device_rx_result out;
    struct wg_device_rx_run run;
    struct wg_noise_keypair *kp;
    struct wg_device_opener op;
    enum wg_device_rx rx;
    uint64_t counter;
    bool ended;

    if (!wg_device_decrypt_begin_unlocked(b->dev, msg, len, now, &op)) {
        return false;
    }
    wg_device_decrypt_finish(&op, msg, len);
    kp = op.kp;
    counter = op.counter;
    wg_noise_keypair_ref(kp);           /* To read its window afterward. */
    wg_device_rx_run_init(&run);
    ended = wg_device_decrypt_end_unlocked(b->dev, &run,
                                           (const struct sockaddr *) &a->addr,
                                           sizeof a->addr, msg, len, now, &op,
                                           &out, &rx);
    wg_device_rx_run_end(b->dev, &run);
    if (!ended) {
        wg_noise_keypair_unref(op.kp);  /* What the locked end would do. */
    } else if (rx == WG_DEVICE_DROP_REPLAYED) {
        WGTEST_CHECK(wg_noise_keypair_replay_greatest(kp)
                     > counter + 1 + WG_REPLAY_WINDOW_SIZE);
    } else {
        WGTEST_CHECK(rx == WG_DEVICE_RX_DATA && out.peer == b->peer);
    }
    wg_noise_keypair_unref(kp);
    return ended && rx == WG_DEVICE_RX_DATA;
}

/* What a sender without the device's lock does for a batch: routes once,
 * then begins, seals and reports a message per packet, to the endpoint it
 * copies; node 1 receives each without its lock too.  Returns the messages
 * sealed, and adds those received to '*received'. */
static unsigned long long
device_read_batch(struct device_test *dt, unsigned long long *received)
{
    ovs_be32 dst = htonl(0x0a000002);  /* 10.0.0.2, node 1. */
    struct wgpair_node *a = &dt->p->node[0];
    struct wg_peer *peer = wg_device_route(a->dev, AF_INET, &dst);
    unsigned long long n = 0;

    for (int i = 0; peer && i < READS_PER_QUIESCE; i++) {
        uint8_t msg[WG_DEVICE_HEADROOM + 64 + WG_DEVICE_TAILROOM] = { 0 };
        struct wg_device_sealer sealer;
        struct sockaddr_storage ss;
        socklen_t ss_len;
        int len;

        wgpair_make_ip(dt->p, 0, false, 64, i, msg + WG_DEVICE_HEADROOM);
        len = wg_device_encrypt_begin_unlocked(
            a->dev, peer, msg, 64, sizeof msg,
            wg_device_now_unlocked(a->dev), &sealer);
        if (len > 0) {
            WGTEST_CHECK(wg_device_encrypt_finish(&sealer, msg));
            wg_device_note_sent_unlocked(a->dev, peer, 1, len, true,
                                         wg_device_now_unlocked(a->dev));
            n++;
            *received += device_receive(dt, msg, len);
        } else {
            WGTEST_CHECK(len == WG_DEVICE_TX_LOCKED);
        }
        if (wg_device_peer_endpoint_copy(peer, &ss, &ss_len)) {
            WGTEST_CHECK(ss.ss_family == AF_INET);
        }
    }
    return n;
}

static void *
device_reader(void *dt_)
{
    struct device_test *dt = dt_;
    unsigned long long n = 0, received = 0;
    bool stop = false;

    while (!stop) {
        n += device_read_batch(dt, &received);
        ovsrcu_quiesce();
        atomic_read(&dt->stop, &stop);
    }
    atomic_add_relaxed(&dt->sends, n, &n);
    atomic_add_relaxed(&dt->receives, received, &received);
    return NULL;
}

static void
test_device_rcu_readers(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct device_test dt;
    pthread_t readers[N_READERS];
    unsigned long long sends, receives;
    struct wgpair p;
    int rekeys = 0;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    dt.p = &p;
    atomic_init(&dt.stop, false);
    atomic_init(&dt.sends, 0);
    atomic_init(&dt.receives, 0);
    for (int i = 0; i < N_READERS; i++) {
        readers[i] = ovs_thread_create("rcu-reader", device_reader, &dt);
    }

    /* New sessions: each replaces the current keypair and destroys an
     * older one. */
    for (int i = 0; i < 200; i++) {
        struct wg_noise_keypair *before
            = wg_noise_keypairs_current(&p.node[0].peer->keypairs);

        wgpair_advance(&p, WG_REKEY_TIMEOUT_MS + 1);
        WGTEST_CHECK(!wg_device_peer_initiate(p.node[0].dev,
                                              p.node[0].peer));
        wgpair_deliver(&p);
        rekeys += (wg_noise_keypairs_current(&p.node[0].peer->keypairs)
                   != before);
        ovsrcu_quiesce();
    }

    /* The peer goes while the readers still route to it, and comes back
     * with a new session, again and again.  Node 1 may have a keepalive due
     * meanwhile (for the data it received): the new peer answers that
     * message to a forgotten session with a handshake of its own. */
    for (int i = 0; i < 50; i++) {
        wgpair_readd_peer(&p, 0);
        ovsrcu_quiesce();
        wgpair_advance(&p, WG_REKEY_TIMEOUT_MS + 1);
        if (!wg_device_peer_has_session(p.node[0].dev, p.node[0].peer)) {
            wgpair_handshake(&p, 0);
        }
        WGTEST_CHECK(wg_device_peer_has_session(p.node[0].dev,
                                                p.node[0].peer));
        ovsrcu_quiesce();
    }
    atomic_store(&dt.stop, true);
    for (int i = 0; i < N_READERS; i++) {
        xpthread_join(readers[i], NULL);
    }
    atomic_read(&dt.sends, &sends);
    atomic_read(&dt.receives, &receives);
    WGTEST_CHECK(rekeys == 200 && sends > 0 && receives > 0);
    wgpair_destroy(&p);
    printf("%d new sessions, then the peer removed and added 50 times; "
           "%llu messages sealed and %llu received by %d threads "
           "meanwhile\n", rekeys, sends, receives, N_READERS);
}
WGTEST_REGISTER("device-rcu-readers", test_device_rcu_readers);

/* device-unlocked-send: what a sender without the lock begins is a data
 * message like any other, counted, and its timers run once the device
 * takes them in. */

/* Node 0 sends an IPv4 packet of 'len' bytes to node 1 without the lock:
 * returns the message length or an enum wg_device_tx value; a message
 * goes to node 1 unless node 1 is a black hole. */
static int
unlocked_send(struct wgpair *p, size_t len, uint8_t seed)
{
    struct wgpair_node *a = &p->node[0];
    struct wg_device_sealer sealer;
    struct wgpair_msg m;
    socklen_t dst_len;
    int n;

    memset(&m, 0, sizeof m);
    wgpair_make_ip(p, 0, false, len, seed, m.data + WG_DEVICE_HEADROOM);
    n = wg_device_encrypt_begin_unlocked(a->dev, a->peer, m.data, len,
                                         sizeof m.data, p->now_ms, &sealer);
    if (n < 0) {
        return n;
    }
    WGTEST_CHECK(wg_device_encrypt_finish(&sealer, m.data));
    wg_device_note_sent_unlocked(a->dev, a->peer, 1, n, len > 0,
                                 p->now_ms);
    WGTEST_CHECK(wg_device_peer_endpoint_copy(
                     a->peer, (struct sockaddr_storage *) &m.src, &dst_len));
    WGTEST_CHECK(dst_len == sizeof m.src
                 && m.src.sin_port == p->node[1].addr.sin_port);
    if (!p->node[1].blackhole) {
        m.from = 0;
        m.to = 1;
        m.src = a->addr;
        m.len = n;
        WGTEST_CHECK(wgpair_inject(p, &m) == WG_DEVICE_RX_DATA);
    }
    return n;
}

static void
test_device_unlocked_send(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t want[WGPAIR_MSG_SIZE];
    struct wg_peer_info info;
    struct wgpair p;
    int n;

    wgpair_init(&p, NULL, NULL);

    /* No session yet: that is for the locked path. */
    WGTEST_CHECK(unlocked_send(&p, 100, 1) == WG_DEVICE_TX_LOCKED);
    wgpair_handshake(&p, 0);

    /* A data message node 1 takes, counted for the peer at once. */
    n = unlocked_send(&p, 100, 2);
    WGTEST_CHECK(n > 0);
    wgpair_make_ip(&p, 0, false, 100, 2, want);
    WGTEST_CHECK(p.node[1].last_inner_len == 100);
    WGTEST_CHECK_MEM(p.node[1].last_inner, want, 100);
    wg_device_peer_get_info(p.node[0].dev, p.node[0].peer, &info);
    WGTEST_CHECK(info.tx_packets == 2 && info.tx_bytes > (size_t) n);

    /* The device wakes within WG_DEVICE_SYNC_MS to take in its timers: with
     * nothing back, a new handshake KEEPALIVE + REKEY_TIMEOUT after the
     * message, as after a locked send (device-new-handshake). */
    wgpair_advance(&p, 30000);
    p.node[1].blackhole = true;
    WGTEST_CHECK(unlocked_send(&p, 100, 3) > 0);
    WGTEST_CHECK(wg_device_next_deadline(p.node[0].dev)
                 <= p.now_ms + WG_DEVICE_SYNC_MS);
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS + WG_REKEY_TIMEOUT_MS - 1);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == 1);
    wgpair_advance(&p, WG_REKEY_TIMEOUT_JITTER_MAX_MS + 1);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == 2);

    wgpair_destroy(&p);

    /* A session due for a rekey is for the locked path too. */
    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    wgpair_advance(&p, WG_REKEY_AFTER_TIME_MS - 1);
    WGTEST_CHECK(unlocked_send(&p, 100, 4) > 0);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(unlocked_send(&p, 100, 5) == WG_DEVICE_TX_LOCKED);
    wgpair_destroy(&p);
    printf("unlocked send ok\n");
}
WGTEST_REGISTER("device-unlocked-send", test_device_unlocked_send);

/* device-unlocked-receive: a data message to its peer's current keypair is
 * begun and ended without the lock like any other, replays are refused,
 * the counters include it, and its timers run once the device takes them
 * in; every other message is left to the locked path. */

/* How unlocked_receive() went when it did not end the message itself. */
enum {
    RX_BEGIN_LOCKED = -1,       /* Begin needs the lock. */
    RX_END_LOCKED = -2,         /* End needs the lock (then done with it). */
};

/* Node 'm->to' receives 'm' (decrypted in place) as the port's receive
 * path does, on any thread, in 'run' (NULL: a run of its own): returns the
 * outcome, or one of the values above.  With RX_END_LOCKED, if 'locked' is
 * nonnull, the message was ended under the "lock" (the test's only thread)
 * and its outcome is in '*locked'. */
static int
receive_without_lock(struct wgpair *p, struct wgpair_msg *m,
                     struct wg_device_rx_run *run,
                     struct wg_device_rx_result *out,
                     enum wg_device_rx *locked)
{
    struct wgpair_node *b = &p->node[m->to];
    const struct sockaddr *src = (const struct sockaddr *) &m->src;
    struct wg_device_rx_run own;
    struct wg_device_opener op;
    enum wg_device_rx rx;
    bool ended;

    if (!wg_device_decrypt_begin_unlocked(b->dev, m->data, m->len,
                                          p->now_ms, &op)) {
        return RX_BEGIN_LOCKED;
    }
    wg_device_decrypt_finish(&op, m->data, m->len);
    if (!run) {
        wg_device_rx_run_init(&own);
    }
    ended = wg_device_decrypt_end_unlocked(b->dev, run ? run : &own, src,
                                           sizeof m->src, m->data, m->len,
                                           p->now_ms, &op, out, &rx);
    if (!run) {
        wg_device_rx_run_end(b->dev, &own);
    }
    if (!ended) {
        WGTEST_CHECK(op.kp && locked);
        *locked = wg_device_decrypt_end(b->dev, src, sizeof m->src, m->data,
                                        m->len, &op, out);
        return RX_END_LOCKED;
    }
    WGTEST_CHECK(!op.kp);
    return rx;
}

/* The same on the test's only thread, keeping the inner packet as
 * wgpair_inject() does. */
static int
unlocked_receive(struct wgpair *p, struct wgpair_msg *m,
                 enum wg_device_rx *locked)
{
    struct wgpair_node *b = &p->node[m->to];
    struct wg_device_rx_result out;
    int rx = receive_without_lock(p, m, NULL, &out, locked);

    if (rx == WG_DEVICE_RX_DATA) {
        WGTEST_CHECK(out.peer == b->peer);
        memcpy(b->last_inner, out.inner, out.inner_len);
        b->last_inner_len = out.inner_len;
    }
    return rx;
}

/* Node 'from' seals an IPv4 packet of 'len' bytes (seed 'seed'), held back
 * from delivery: returns it. */
static struct wgpair_msg
held_data(struct wgpair *p, int from, size_t len, uint8_t seed)
{
    uint8_t pkt[WGPAIR_MSG_SIZE];

    p->hold = true;
    wgpair_make_ip(p, from, false, len, seed, pkt);
    WGTEST_CHECK(wgpair_send(p, from, pkt, len) > 0);
    WGTEST_CHECK(p->n_msgs == 1);
    p->hold = false;
    return wgpair_take(p, 0);
}

/* Node 1 receives three messages from node 0 in one run, the second a
 * replay of the first; '*info' is the peer as it is when the run ends. */
static void
unlocked_receive_run(struct wgpair *p, struct wg_peer_info *info)
{
    struct wgpair_msg m[3];
    struct wg_device_rx_result out;
    struct wg_device_rx_run run;
    uint64_t packets, bytes;
    int rx[3];

    m[0] = held_data(p, 0, 100, 20);
    m[1] = m[0];
    m[2] = held_data(p, 0, 200, 21);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, info);
    packets = info->rx_packets;
    bytes = info->rx_bytes;
    wg_device_rx_run_init(&run);
    for (int i = 0; i < 3; i++) {
        rx[i] = receive_without_lock(p, &m[i], &run, &out, NULL);
    }
    WGTEST_CHECK(rx[0] == WG_DEVICE_RX_DATA
                 && rx[1] == WG_DEVICE_DROP_REPLAYED
                 && rx[2] == WG_DEVICE_RX_DATA);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, info);
    WGTEST_CHECK(info->rx_packets == packets);
    wg_device_rx_run_end(p->node[1].dev, &run);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, info);
    WGTEST_CHECK(info->rx_bytes == bytes + m[0].len + m[2].len);
}

/* Data messages node 1 receives from node 0 without the lock, and a
 * replay of one. */
static void
unlocked_receive_data(struct wgpair *p)
{
    struct wgpair_msg m = held_data(p, 0, 100, 7), copy = m;
    uint8_t want[WGPAIR_MSG_SIZE];
    struct wg_peer_info before, after;
    enum wg_device_rx locked;

    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, &before);
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == WG_DEVICE_RX_DATA);
    wgpair_make_ip(p, 0, false, 100, 7, want);
    WGTEST_CHECK(p->node[1].last_inner_len == 100);
    WGTEST_CHECK_MEM(p->node[1].last_inner, want, 100);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, &after);
    WGTEST_CHECK(after.rx_packets == before.rx_packets + 1);
    WGTEST_CHECK(after.rx_bytes == before.rx_bytes + m.len);

    /* The same message again: refused by the keypair's window. */
    WGTEST_CHECK(unlocked_receive(p, &copy, &locked)
                 == WG_DEVICE_DROP_REPLAYED);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, &before);
    WGTEST_CHECK(before.rx_packets == after.rx_packets);

    /* Three in one run, the second a replay: counted when the run ends. */
    unlocked_receive_run(p, &after);
    WGTEST_CHECK(after.rx_packets == before.rx_packets + 2);
}

/* What the locked path must do: roaming, a bad tag, a handshake message,
 * an unconfirmed keypair. */
static void
unlocked_receive_leaves(struct wgpair *p)
{
    struct wgpair_msg m = held_data(p, 0, 100, 8);
    struct wg_peer_info info;
    enum wg_device_rx locked;

    /* From another port: the locked end makes it the endpoint. */
    m.src.sin_port = htons(ntohs(m.src.sin_port) + 1);
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == RX_END_LOCKED);
    WGTEST_CHECK(locked == WG_DEVICE_RX_DATA);
    wg_device_peer_get_info(p->node[1].dev, p->node[1].peer, &info);
    WGTEST_CHECK(((struct sockaddr_in *) &info.endpoint)->sin_port
                 == m.src.sin_port);

    /* A tag that does not verify. */
    m = held_data(p, 0, 100, 9);
    m.data[WG_MSG_DATA_HEADER_LEN + 3] ^= 1;
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == RX_END_LOCKED);
    WGTEST_CHECK(locked == WG_DEVICE_DROP_BAD_TAG);

    /* A handshake, and the data of the session it makes, which node 1 has
     * not confirmed yet. */
    wgpair_advance(p, WG_REKEY_TIMEOUT_MS + 1);
    p->hold = true;
    WGTEST_CHECK(!wg_device_peer_initiate(p->node[0].dev, p->node[0].peer));
    m = wgpair_take(p, 0);
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == RX_BEGIN_LOCKED);
    WGTEST_CHECK(wgpair_inject(p, &m) == WG_DEVICE_RX_HANDSHAKE);
    WGTEST_CHECK(p->n_msgs == 1);
    WGTEST_CHECK(wgpair_deliver_one(p, 0) == WG_DEVICE_RX_HANDSHAKE);
    WGTEST_CHECK(p->n_msgs == 1);       /* Node 0's keepalive. */
    m = wgpair_take(p, 0);
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == RX_BEGIN_LOCKED);
    WGTEST_CHECK(wgpair_inject(p, &m) == WG_DEVICE_RX_KEEPALIVE);
    p->hold = false;
    m = held_data(p, 0, 100, 11);
    WGTEST_CHECK(unlocked_receive(p, &m, &locked) == WG_DEVICE_RX_DATA);
}

static void
test_device_unlocked_receive(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_noise_keypair *kp;
    enum wg_device_rx locked;
    int keepalives, initiations;
    struct wgpair_msg m;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    unlocked_receive_data(&p);
    unlocked_receive_leaves(&p);

    /* Data received and nothing sent back: the device wakes within
     * WG_DEVICE_SYNC_MS and node 1 sends a keepalive KEEPALIVE_TIMEOUT
     * after the message, as after a locked receive. */
    wgpair_advance(&p, 30000);
    keepalives = p.node[1].keepalives_sent;
    m = held_data(&p, 0, 100, 12);
    WGTEST_CHECK(unlocked_receive(&p, &m, &locked) == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(wg_device_next_deadline(p.node[1].dev)
                 <= p.now_ms + WG_DEVICE_SYNC_MS);
    wgpair_advance(&p, WG_KEEPALIVE_TIMEOUT_MS - 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == keepalives);
    wgpair_advance(&p, 1);
    WGTEST_CHECK(p.node[1].keepalives_sent == keepalives + 1);

    /* Node 0, the initiator, near the end of its keypair's life: a
     * received message is for the locked path, which rekeys. */
    kp = wg_noise_keypairs_current(&p.node[0].peer->keypairs);
    WGTEST_CHECK(kp && kp->i_am_initiator);
    wgpair_advance(&p, kp->birth_ms + WG_REKEY_ON_RECEIVE_AFTER_TIME_MS - 1
                       - p.now_ms);
    m = held_data(&p, 1, 100, 13);
    WGTEST_CHECK(unlocked_receive(&p, &m, &locked) == WG_DEVICE_RX_DATA);
    wgpair_advance(&p, 1);
    initiations = wgpair_sent(&p, 0, WG_MSG_INITIATION);
    p.hold = true;
    m = held_data(&p, 1, 100, 14);
    WGTEST_CHECK(unlocked_receive(&p, &m, &locked) == RX_END_LOCKED);
    WGTEST_CHECK(locked == WG_DEVICE_RX_DATA);
    WGTEST_CHECK(wgpair_sent(&p, 0, WG_MSG_INITIATION) == initiations + 1);
    wgpair_destroy(&p);
    printf("unlocked receive ok\n");
}
WGTEST_REGISTER("device-unlocked-receive", test_device_unlocked_receive);

/* device-rcu-receivers: threads end the same messages without the lock at
 * once; the keypair's replay window lets each through exactly once. */

#define RX_BATCH 200            /* Messages per round, < WGPAIR_MAX_MSGS. */
#define RX_ROUNDS 50

struct receiver_test {
    struct wgpair *p;
    struct wgpair_msg *msgs;    /* RX_BATCH messages of the round. */
    struct ovs_barrier start, done;
    atomic_uint accepted;       /* Outcomes WG_DEVICE_RX_DATA. */
    atomic_uint replayed;       /* Outcomes WG_DEVICE_DROP_REPLAYED. */
};

/* One thread's round: its own copy of every message, received without the
 * lock. */
static void
receiver_round(struct receiver_test *rt)
{
    unsigned int accepted = 0, replayed = 0, orig;
    struct wg_device_rx_run run;

    /* Runs of 10 messages: the thread holds the window between them. */
    wg_device_rx_run_init(&run);
    for (size_t i = 0; i < RX_BATCH; i++) {
        struct wgpair_msg m = rt->msgs[i];
        struct wg_device_rx_result out;
        int rx = receive_without_lock(rt->p, &m, &run, &out, NULL);

        accepted += rx == WG_DEVICE_RX_DATA;
        replayed += rx == WG_DEVICE_DROP_REPLAYED;
        if (i % 10 == 9) {
            wg_device_rx_run_end(rt->p->node[1].dev, &run);
        }
    }
    wg_device_rx_run_end(rt->p->node[1].dev, &run);
    atomic_add(&rt->accepted, accepted, &orig);
    atomic_add(&rt->replayed, replayed, &orig);
}

static void *
receiver_thread(void *rt_)
{
    struct receiver_test *rt = rt_;

    for (int r = 0; r < RX_ROUNDS; r++) {
        ovs_barrier_block(&rt->start);
        receiver_round(rt);
        ovsrcu_quiesce();
        ovs_barrier_block(&rt->done);
    }
    return NULL;
}

/* Node 0 seals a round's messages, held back. */
static void
receiver_fill(struct receiver_test *rt)
{
    struct wgpair *p = rt->p;

    p->hold = true;
    for (size_t i = 0; i < RX_BATCH; i++) {
        WGTEST_CHECK(wgpair_send_ip(p, 0, 64 + i % 512) > 0);
    }
    for (size_t i = 0; i < RX_BATCH; i++) {
        rt->msgs[i] = wgpair_take(p, 0);
    }
    p->hold = false;
}

static void
test_device_rcu_receivers(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct receiver_test rt;
    pthread_t threads[N_READERS];
    unsigned int accepted, replayed;
    struct wgpair p;

    wgpair_init(&p, NULL, NULL);
    wgpair_handshake(&p, 0);
    rt.p = &p;
    rt.msgs = xmalloc(RX_BATCH * sizeof *rt.msgs);
    ovs_barrier_init(&rt.start, N_READERS + 1);
    ovs_barrier_init(&rt.done, N_READERS + 1);
    atomic_init(&rt.accepted, 0);
    atomic_init(&rt.replayed, 0);
    for (int i = 0; i < N_READERS; i++) {
        threads[i] = ovs_thread_create("rcu-receiver", receiver_thread, &rt);
    }
    for (int r = 0; r < RX_ROUNDS; r++) {
        receiver_fill(&rt);
        ovs_barrier_block(&rt.start);
        ovs_barrier_block(&rt.done);
    }
    for (int i = 0; i < N_READERS; i++) {
        xpthread_join(threads[i], NULL);
    }
    atomic_read(&rt.accepted, &accepted);
    atomic_read(&rt.replayed, &replayed);
    WGTEST_CHECK(accepted == RX_BATCH * RX_ROUNDS);
    WGTEST_CHECK(replayed == RX_BATCH * RX_ROUNDS * (N_READERS - 1));
    ovs_barrier_destroy(&rt.start);
    ovs_barrier_destroy(&rt.done);
    free(rt.msgs);
    wgpair_destroy(&p);
    printf("%u messages received by %d threads at once, each once\n",
           accepted, N_READERS);
}
WGTEST_REGISTER("device-rcu-receivers", test_device_rcu_receivers);
