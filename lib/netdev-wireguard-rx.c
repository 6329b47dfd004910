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

#include <errno.h>
#include <poll.h>
#include <string.h>

#include "bridge-l2.h"
#include "coverage.h"
#include "dp-packet.h"
#include "hash.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-rx.h"
#include "netdev-wireguard-underlay.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "seq.h"
#include "ovs-compat.h"
#include "pkt-ecn.h"
#include "pkt-gro.h"
#include "pkt-ip.h"
#include "pkt-pool.h"
#include "timeval.h"
#include "socket-util.h"
#include "util.h"
#include "wg-device.h"

/* Peer to bridge: the receive path of a wireguard port, top to bottom.
 *
 * netdev_wg_rx_recv() runs a receive round on a queue when nothing of it
 * waits for the bridge, on one socket of the queue (the family that last
 * had something, mostly), and on the other only if the first had
 * nothing:
 *
 *   1. recvmmsg() with UDP GRO, holding only the sockets' read lock;
 *   2. the device begins each data message to its peer's current keypair,
 *      which it then holds, without the port's lock
 *      (wg_device_decrypt_begin_unlocked(), under RCU); only if the round
 *      has other messages, the lock is taken for them: the device handles
 *      each handshake or cookie message (or leaves it to the main thread,
 *      on a PMD thread) and begins the other data messages
 *      (wg_device_decrypt_begin());
 *   3. (netdev-wireguard-rx-place.c) without the lock, each data message is
 *      opened (wg_device_decrypt_finish()): queues polled by different
 *      threads decrypt at the same time; in place, but for a message that
 *      continues the TCP run of the one before it from its keypair, whose
 *      bytes the cipher writes straight behind that run, for step 5;
 *   4. without the lock, the device ends each in one run (the keypair's
 *      replay window under its own lock, cryptokey routing under RCU;
 *      counters and timers left for the device to take in) and ECN is
 *      decapsulated, until a
 *      message needs the port's lock (roaming, key confirmation, a rekey, a
 *      bad tag): that one and the rest of the round end under it
 *      (wg_device_decrypt_end());
 *   5. (netdev-wireguard-rx-bridge.c, like step 6) without the lock,
 *      pkt-gro coalesces the inner packets, when
 *      userspace-tso is on, into super-packets;
 *   6. the inner packets go to the bridge.  A round that took the lock
 *      nowhere above, whose messages were all data, each inner packet to
 *      a destination the layer-2 adapter gave this queue an Ethernet
 *      header for within NETDEV_WG_RX_RESOLVED_MS (with no probe due),
 *      goes without the lock, with those headers
 *      (netdev_wg_rx_deliver_unlocked()).  Any other round goes under it:
 *      it is counted, the adapter gives each inner packet its header (the
 *      queue remembers it) or holds it until its neighbor answers
 *      (netdev_wg_rx_to_bridge()), and messages the round queued
 *      (handshake responses, keepalives) leave.  So a stream of data to
 *      known guests takes the port's lock once per destination and second.
 *
 * The packets wait in the queue's 'to_bridge' ring, and the call returns at
 * most NETDEV_MAX_BURST of them, all of one source: their buffers come from
 * pkt-pool (mbufs of DPDK mempools once DPDK runs, else the heap; see
 * pkt-pool.h for why a batch must not mix them).  A queue is polled by one
 * thread at a time and OVS reconfigures it only while nobody polls it, so its
 * buffers and remembered headers need no lock; its ring has its own (a
 * leaf), because queue 0's also carries what the port makes itself; its
 * counters are atomics that only its thread writes.  A peer's messages all
 * come to one queue, so its replay window and coalescing see them in order.
 * Every drop has a coverage counter and a rate-limited log line (the
 * device's own for protocol drops).  Never calls the send path. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_rx);

COVERAGE_DEFINE(wg_rx_call);
COVERAGE_DEFINE(wg_rx_read);
COVERAGE_DEFINE(wg_rx_round_full);
COVERAGE_DEFINE(wg_rx_handshake_deferred);

/* Distance between receive buffers: room for the largest read, rounded up
 * to a cache line. */
#define NETDEV_WG_RX_STRIDE ROUND_UP(UDP_BATCH_RX_BUF_SIZE, CACHE_LINE_SIZE)

/* Most inner packets one receive round decrypts. */
#define NETDEV_WG_RX_INNER_MAX (NETDEV_WG_RX_READS * 64)

static struct netdev_wg_rxq *
netdev_wg_rxq_create(void)
{
    struct netdev_wg_rxq *q = xzalloc(sizeof *q);

    /* Buffers start on cache-line boundaries: decrypted inner headers are
     * read in place and must stay aligned. */
    q->mem = xmalloc_cacheline(NETDEV_WG_RX_READS * NETDEV_WG_RX_STRIDE);
    for (size_t i = 0; i < NETDEV_WG_RX_READS; i++) {
        q->bufs[i].data = q->mem + i * NETDEV_WG_RX_STRIDE;
        q->bufs[i].size = UDP_BATCH_RX_BUF_SIZE;
    }
    q->inner = xmalloc(NETDEV_WG_RX_INNER_MAX * sizeof *q->inner);
    q->owner = xmalloc(NETDEV_WG_RX_INNER_MAX * sizeof *q->owner);
    q->msgs = xmalloc(NETDEV_WG_RX_INNER_MAX * sizeof *q->msgs);
    ovs_mutex_init(&q->ring_mutex);
    ovs_mutex_lock(&q->ring_mutex);
    netdev_wg_ring_init(&q->to_bridge, NETDEV_WG_TO_BRIDGE_MAX);
    ovs_mutex_unlock(&q->ring_mutex);
    addr_memo_init(&q->resolved, NETDEV_WG_RX_RESOLVED,
                   NETDEV_WG_RX_RESOLVED_MS);
    return q;
}

static void
netdev_wg_rxq_destroy(struct netdev_wg_rxq *q)
{
    if (q) {
        ovs_mutex_lock(&q->ring_mutex);
        netdev_wg_ring_destroy(&q->to_bridge);
        ovs_mutex_unlock(&q->ring_mutex);
        ovs_mutex_destroy(&q->ring_mutex);
        addr_memo_destroy(&q->resolved);
        free_cacheline(q->mem);
        free(q->inner);
        free(q->owner);
        free(q->msgs);
        free(q);
    }
}

void
netdev_wg_rx_init(struct netdev_wireguard *wg)
{
    wg->rxqs[0] = netdev_wg_rxq_create();
    wg->n_rxq = 1;
}

void
netdev_wg_rx_destroy(struct netdev_wireguard *wg)
{
    for (size_t i = 0; i < ARRAY_SIZE(wg->rxqs); i++) {
        netdev_wg_rxq_destroy(wg->rxqs[i]);
        wg->rxqs[i] = NULL;
    }
    free(wg->hs_queue);
    wg->hs_queue = NULL;
    wg->hs_n = 0;
}

void
netdev_wg_rx_add_queues(struct netdev_wireguard *wg, int n)
{
    for (int i = 0; i < n; i++) {
        if (!wg->rxqs[i]) {
            wg->rxqs[i] = netdev_wg_rxq_create();
        }
    }
}

/* Adds what 'c' counted to 'stats' and 'o'. */
static void
netdev_wg_rx_counts_add(const struct netdev_wg_rx_counts *c,
                        struct netdev_stats *stats,
                        struct netdev_wg_offload_stats *o)
{
    stats->rx_packets += netdev_wg_counter_get(&c->packets);
    stats->rx_bytes += netdev_wg_counter_get(&c->inner_bytes);
    o->coalesced += netdev_wg_counter_get(&c->coalesced);
    o->merged += netdev_wg_counter_get(&c->merged);
    o->rx_pooled += netdev_wg_counter_get(&c->rx_pooled);
    o->rx_allocated += netdev_wg_counter_get(&c->rx_allocated);
}

void
netdev_wg_rx_add_counts(const struct netdev_wireguard *wg,
                        struct netdev_stats *stats,
                        struct netdev_wg_offload_stats *o)
{
    for (size_t i = 0; i < ARRAY_SIZE(wg->rxqs); i++) {
        if (wg->rxqs[i]) {
            netdev_wg_rx_counts_add(&wg->rxqs[i]->counts, stats, o);
        }
    }
}

void
netdev_wg_rx_set_n_rxq(struct netdev_wireguard *wg, int n)
{
    netdev_wg_rx_add_queues(wg, n);
    for (size_t i = MAX(n, 1); i < ARRAY_SIZE(wg->rxqs); i++) {
        struct netdev_wg_rxq *q = wg->rxqs[i];
        size_t left;

        if (!q) {
            continue;
        }
        ovs_mutex_lock(&q->ring_mutex);
        left = q->to_bridge.n;
        ovs_mutex_unlock(&q->ring_mutex);
        if (left) {
            wg->stats.rx_dropped += left;
            netdev_wg_count_n(wg, NETDEV_WG_RX_QUEUE_REMOVED, left);
        }
        /* What it counted stays in the port's statistics. */
        netdev_wg_rx_counts_add(&q->counts, &wg->stats, &wg->offload);
        netdev_wg_rxq_destroy(q);
        wg->rxqs[i] = NULL;
    }
    wg->n_rxq = n;
    if (wg->ul) {
        netdev_wg_ul_set_n_rxq(wg->ul, n);
    }
}

/* Receive rounds. */

static void
netdev_wg_count_rx_drop(struct netdev_wireguard *wg, enum wg_device_rx rx)
{
    /* wg-device counts and logs each drop reason itself. */
    if (wg_device_rx_is_drop(rx)) {
        wg->stats.rx_errors++;
    }
}

/* Handshake messages on PMD threads. */

/* The length of the sender's address of 'buf' (the socket's family). */
static socklen_t
netdev_wg_src_len(const struct udp_batch_rx_buf *buf)
{
    return sa_length(&buf->src.sa);
}

/* Leaves handshake message 'msg' from 'buf''s source to the main thread
 * (the X25519 work of a handshake never runs on a PMD thread), or drops it
 * if NETDEV_WG_HS_QUEUE_MAX already wait. */
static void
netdev_wg_rx_defer(struct netdev_wireguard *wg,
                   const struct udp_batch_rx_buf *buf, const void *msg,
                   size_t len)
{
    struct netdev_wg_hs_msg *m;

    if (wg->hs_n >= NETDEV_WG_HS_QUEUE_MAX) {
        wg->stats.rx_dropped++;
        netdev_wg_count(wg, NETDEV_WG_RX_HS_QUEUE_FULL);
        return;
    }
    if (!wg->hs_queue) {
        wg->hs_queue = xmalloc(NETDEV_WG_HS_QUEUE_MAX * sizeof *wg->hs_queue);
    }
    m = &wg->hs_queue[(wg->hs_head + wg->hs_n++) % NETDEV_WG_HS_QUEUE_MAX];
    m->src_len = netdev_wg_src_len(buf);
    memcpy(&m->src, &buf->src, m->src_len);
    m->len = len;
    memcpy(m->msg, msg, len);
    COVERAGE_INC(wg_rx_handshake_deferred);
    seq_change(wg->ctl_seq);
}

bool
netdev_wg_rx_handshakes(struct netdev_wireguard *wg)
{
    size_t n = MIN(wg->hs_n, NETDEV_WG_HS_PER_RUN);

    if (!n) {
        return false;
    }
    /* The queue's depth is the load, as the kernel reads its own. */
    wg_device_note_pending_handshakes(wg->dev, wg->hs_n);
    for (size_t i = 0; i < n; i++) {
        struct netdev_wg_hs_msg *m = &wg->hs_queue[wg->hs_head];
        struct wg_device_rx_result out;
        enum wg_device_rx rx;

        wg->hs_head = (wg->hs_head + 1) % NETDEV_WG_HS_QUEUE_MAX;
        wg->hs_n--;
        rx = wg_device_receive(wg->dev, (struct sockaddr *) &m->src,
                               m->src_len, m->msg, m->len, &out);
        netdev_wg_count_rx_drop(wg, rx);
        netdev_wg_count_rx(wg, rx, (struct sockaddr *) &m->src);
    }
    netdev_wg_sock_flush(wg);
    return wg->hs_n > 0;
}

/* Step 1: reads queue 'qid''s socket for 'family' into q->bufs.  Returns
 * how many reads it made. */
static size_t
netdev_wg_rx_read(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                  int qid, int family)
    OVS_EXCLUDED(wg->mutex)
{
    struct udp_batch_sock *sock = NULL;
    size_t n = 0;

    ovs_rwlock_rdlock(&wg->sock_rwlock);
    if (wg->ul) {
        n = netdev_wg_ul_read(wg->ul, qid, q->bufs, NETDEV_WG_RX_READS);
    } else if (qid < wg->n_socks) {
        sock = family == AF_INET6 ? wg->sock6[qid] : wg->sock4[qid];
    }
    if (sock) {
        COVERAGE_INC(wg_rx_read);
        if (udp_batch_recv(sock, q->bufs, NETDEV_WG_RX_READS, &n)) {
            n = 0;
        }
    }
    ovs_rwlock_unlock(&wg->sock_rwlock);
    return n;
}

/* Step 1, continued: lists every datagram of the round's 'n_reads' reads
 * in q->msgs (those beyond NETDEV_WG_RX_INNER_MAX in '*over') and returns
 * how many of them are handshake messages. */
static size_t
netdev_wg_rx_split(struct netdev_wg_rxq *q, size_t n_reads, size_t *over)
{
    size_t n_handshakes = 0;

    q->n_msgs = *over = 0;
    q->round_bytes = 0;
    for (size_t i = 0; i < n_reads; i++) {
        struct udp_batch_rx_buf *buf = &q->bufs[i];
        struct udp_batch_seg seg;
        const void *data;
        size_t len;

        udp_batch_seg_init(&seg, buf->data, buf->len, buf->gro_size);
        while (udp_batch_seg_next(&seg, &data, &len)) {
            struct netdev_wg_rx_msg *m = &q->msgs[q->n_msgs];

            q->round_bytes += len;
            if (q->n_msgs >= NETDEV_WG_RX_INNER_MAX) {
                (*over)++;
                continue;
            }
            m->data = CONST_CAST(uint8_t *, data);
            m->len = len;
            m->buf = buf;
            q->n_msgs++;
            n_handshakes += wg_device_is_handshake_msg(data, len);
        }
    }
    return n_handshakes;
}

/* Step 2 without the lock: begins each data message to its peer's current
 * keypair.  Returns how many messages are left for the lock. */
static size_t
netdev_wg_rx_begin_unlocked(struct netdev_wireguard *wg,
                            struct netdev_wg_rxq *q, long long int now)
{
    size_t left = 0;

    for (size_t i = 0; i < q->n_msgs; i++) {
        struct netdev_wg_rx_msg *m = &q->msgs[i];

        m->begun = wg_device_decrypt_begin_unlocked(wg->dev, m->data, m->len,
                                                    now, &m->opener);
        left += !m->begun;
    }
    return left;
}

/* Step 2 under the lock for message 'm' that the unlocked step left:
 * handled whole, deferred to the main thread, or begun. */
static void
netdev_wg_rx_begin_one(struct netdev_wireguard *wg,
                       struct netdev_wg_rx_msg *m)
    OVS_REQUIRES(wg->mutex)
{
    struct wg_device_rx_result out;
    enum wg_device_rx rx;

    if (wg->defer_handshakes && wg_device_is_handshake_msg(m->data, m->len)) {
        netdev_wg_rx_defer(wg, m->buf, m->data, m->len);
        return;
    }
    m->begun = wg_device_decrypt_begin(wg->dev, &m->buf->src.sa,
                                       netdev_wg_src_len(m->buf), m->data,
                                       m->len, &m->opener, &out, &rx);
    if (!m->begun) {
        netdev_wg_count_rx_drop(wg, rx);
        netdev_wg_count_rx(wg, rx, &m->buf->src.sa);
    }
}

/* Step 2 under the lock for the round: the messages the unlocked step
 * left, and those beyond the round's room ('over').  The device learns
 * first how many handshake messages the round holds ('n_handshakes'), as
 * the kernel looks at its handshake queue. */
static void
netdev_wg_rx_begin_locked(struct netdev_wireguard *wg,
                          struct netdev_wg_rxq *q, size_t n_handshakes,
                          size_t over)
    OVS_REQUIRES(wg->mutex)
{
    if (over) {
        COVERAGE_ADD(wg_rx_round_full, over);
        wg->stats.rx_dropped += over;
        netdev_wg_count_n(wg, NETDEV_WG_RX_ROUND_FULL, over);
    }
    if (!wg->defer_handshakes && n_handshakes) {
        wg_device_note_pending_handshakes(wg->dev, n_handshakes);
    }
    for (size_t i = 0; i < q->n_msgs; i++) {
        if (!q->msgs[i].begun) {
            netdev_wg_rx_begin_one(wg, &q->msgs[i]);
        }
    }
}

/* Step 2, last: keeps in q->msgs, in order, the data messages begun. */
static void
netdev_wg_rx_keep_begun(struct netdev_wg_rxq *q)
{
    size_t n = q->n_msgs;

    q->n_msgs = 0;
    for (size_t i = 0; i < n; i++) {
        if (q->msgs[i].begun) {
            q->msgs[q->n_msgs++] = q->msgs[i];
        }
    }
}

/* Step 2: begins the round's data messages, taking the lock only for
 * those that need it (and for the round's counts, if it overflowed). */
static void
netdev_wg_rx_begin(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                   size_t n_handshakes, size_t over, long long int now)
    OVS_EXCLUDED(wg->mutex)
{
    q->round_locked = false;
    if (netdev_wg_rx_begin_unlocked(wg, q, now) || over) {
        q->round_locked = true;
        ovs_mutex_lock(&wg->mutex);
        wg_device_clock_freeze(wg->dev);
        netdev_wg_rx_begin_locked(wg, q, n_handshakes, over);
        wg_device_clock_thaw(wg->dev);
        ovs_mutex_unlock(&wg->mutex);
    }
    netdev_wg_rx_keep_begun(q);
}

/* Step 4 for an inner packet 'out' of message 'm': ECN decapsulation, then
 * q->inner[*n], at the copy of it that step 3 made if it heads a run.
 * Returns false if ECN drops it. */
static bool
netdev_wg_rx_inner(struct netdev_wg_rxq *q, struct netdev_wg_rx_msg *m,
                   const struct wg_device_rx_result *out, size_t *n)
{
    uint8_t *ip = m->pkt ? dp_packet_data(m->pkt) : out->inner;
    struct pkt_gro_pkt *g;

    if (pkt_ecn_decap(ip, out->inner_len, m->buf->tos)
        == PKT_ECN_DECAP_DROP) {
        return false;
    }
    g = q->inner + *n;
    memset(g, 0, sizeof *g);
    g->data = ip;
    g->len = g->room = out->inner_len;
    g->placed = m->placed;
    g->placed_ofs = m->placed_ofs;
    q->owner[(*n)++] = m->pkt;
    if (m->pkt) {
        g->room = dp_packet_size(m->pkt) + dp_packet_tailroom(m->pkt);
        m->pkt = NULL;
    }
    return true;
}

/* Counts the ECN drop of an inner packet. */
static void
netdev_wg_count_ecn_drop(struct netdev_wireguard *wg)
    OVS_REQUIRES(wg->mutex)
{
    wg->stats.rx_dropped++;
    netdev_wg_count(wg, NETDEV_WG_RX_ECN_NOT_ECT);
}

/* Step 4 under the lock for message 'm': its inner packet goes to
 * q->inner[*n], or it is counted. */
static void
netdev_wg_rx_end_one(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                     struct netdev_wg_rx_msg *m, size_t *n)
    OVS_REQUIRES(wg->mutex)
{
    const struct sockaddr *src = &m->buf->src.sa;
    struct wg_device_rx_result out;
    enum wg_device_rx rx;

    rx = wg_device_decrypt_end(wg->dev, src, netdev_wg_src_len(m->buf),
                               m->data, m->len, &m->opener, &out);
    if (rx == WG_DEVICE_RX_DATA && !netdev_wg_rx_inner(q, m, &out, n)) {
        netdev_wg_count_ecn_drop(wg);
    } else if (rx != WG_DEVICE_RX_DATA) {
        netdev_wg_count_rx_drop(wg, rx);
    }
    netdev_wg_count_rx(wg, rx, src);
}

/* Step 4 without the lock, from the round's first message on until one
 * needs the lock: its inner packets go to q->inner (their number in '*n'),
 * and each message's outcome stays in it to be counted later.  Returns
 * how many messages it ended. */
static size_t
netdev_wg_rx_end_unlocked(struct netdev_wireguard *wg,
                          struct netdev_wg_rxq *q, long long int now,
                          size_t *n)
{
    struct wg_device_rx_run run;
    size_t i;

    wg_device_rx_run_init(&run);
    for (i = 0; i < q->n_msgs; i++) {
        struct netdev_wg_rx_msg *m = &q->msgs[i];
        struct wg_device_rx_result out;

        if (!wg_device_decrypt_end_unlocked(wg->dev, &run, &m->buf->src.sa,
                                            netdev_wg_src_len(m->buf),
                                            m->data, m->len, now,
                                            &m->opener, &out, &m->rx)) {
            break;
        }
        m->ecn_drop = (m->rx == WG_DEVICE_RX_DATA
                       && !netdev_wg_rx_inner(q, m, &out, n));
    }
    wg_device_rx_run_end(wg->dev, &run);
    return i;
}

/* Step 4: ends the round's data messages (replay window, timers,
 * cryptokey routing) and decapsulates ECN; once a message needs the lock,
 * it and the rest of the round end under it, so that inner packets keep
 * their order.  Returns how many inner packets the round gave; the
 * messages ended without the lock are q->msgs[0 .. *n_unlocked - 1]. */
static size_t
netdev_wg_rx_end(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                 long long int now, size_t *n_unlocked)
    OVS_EXCLUDED(wg->mutex)
{
    size_t n = 0;

    *n_unlocked = netdev_wg_rx_end_unlocked(wg, q, now, &n);
    if (*n_unlocked < q->n_msgs) {
        q->round_locked = true;
        ovs_mutex_lock(&wg->mutex);
        wg_device_clock_freeze(wg->dev);
        for (size_t i = *n_unlocked; i < q->n_msgs; i++) {
            netdev_wg_rx_end_one(wg, q, &q->msgs[i], &n);
        }
        wg_device_clock_thaw(wg->dev);
        ovs_mutex_unlock(&wg->mutex);
    }
    return n;
}

/* Counts the round's reads ('n_read' messages of q->round_bytes), of which
 * step 4 ended 'n_unlocked' without the lock. */
static void
netdev_wg_rx_count_reads(struct netdev_wg_rxq *q, size_t n_unlocked,
                         size_t n_read)
{
    netdev_wg_counter_add(&q->counts.messages, n_read);
    netdev_wg_counter_add(&q->counts.bytes, q->round_bytes);
    netdev_wg_counter_add(&q->counts.unlocked, n_unlocked);
    netdev_wg_counter_add(&q->counts.rounds, 1);
}

/* Whether what step 4 ended without the lock (the first 'n_unlocked' of
 * q->msgs) is data with nothing to count under it: no drop, no
 * keepalive. */
static bool
netdev_wg_rx_all_data(const struct netdev_wg_rxq *q, size_t n_unlocked)
{
    for (size_t i = 0; i < n_unlocked; i++) {
        if (q->msgs[i].rx != WG_DEVICE_RX_DATA || q->msgs[i].ecn_drop) {
            return false;
        }
    }
    return true;
}

/* Counts the outcomes of what step 4 ended without the lock: the first
 * 'n_unlocked' of q->msgs. */
static void
netdev_wg_rx_count(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                   size_t n_unlocked)
    OVS_REQUIRES(wg->mutex)
{
    for (size_t i = 0; i < n_unlocked; i++) {
        const struct netdev_wg_rx_msg *m = &q->msgs[i];

        if (m->ecn_drop) {
            netdev_wg_count_ecn_drop(wg);
        }
        netdev_wg_count_rx_drop(wg, m->rx);
        netdev_wg_count_rx(wg, m->rx, &m->buf->src.sa);
    }
}

/* One receive round of queue 'q' on its socket for 'family'.  Returns
 * false if the socket had nothing to read. */
static bool
netdev_wg_rx_round(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                   int qid, int family)
    OVS_EXCLUDED(wg->mutex)
{
    size_t n_reads = netdev_wg_rx_read(wg, q, qid, family);
    size_t n_handshakes, n_inner, n_unlocked, n_read, over;
    long long int now, wall;
    bool gro;

    if (!n_reads) {
        return false;
    }
    n_handshakes = netdev_wg_rx_split(q, n_reads, &over);
    n_read = q->n_msgs + over;
    now = wg_device_now_unlocked(wg->dev);

    netdev_wg_rx_begin(wg, q, n_handshakes, over, now);
    atomic_read_relaxed(&wg->unlocked_gro, &gro);
    netdev_wg_rx_open(q, gro);
    n_inner = netdev_wg_rx_end(wg, q, now, &n_unlocked);

    netdev_wg_rx_coalesce(q, n_inner, gro && n_inner > 1);

    netdev_wg_rx_count_reads(q, n_unlocked, n_read);
    /* The adapter's clock, once a round; under the lock read once it is
     * held, so that it never runs behind what other holders wrote. */
    wall = time_msec();
    if (!q->round_locked && netdev_wg_rx_all_data(q, n_unlocked)
        && netdev_wg_rx_deliver_unlocked(q, n_inner, wall)) {
        netdev_wg_counter_add(&q->counts.rounds_unlocked, 1);
    } else {
        ovs_mutex_lock(&wg->mutex);
        wall = time_msec();
        netdev_wg_rx_count(wg, q, n_unlocked);
        netdev_wg_rx_deliver(wg, q, n_inner, wall);
        netdev_wg_sock_flush(wg);
        ovs_mutex_unlock(&wg->mutex);
    }
    netdev_wg_rx_place_release(q);
    q->n_msgs = 0;
    return true;
}

/* The receive rounds of one call: one read when the first socket had
 * something.  The family that last had something goes first, but for
 * every NETDEV_WG_RX_OTHER_FIRST-th call, so that neither starves the
 * other. */
#define NETDEV_WG_RX_OTHER_FIRST 8
static void
netdev_wg_rx_rounds(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                    int qid)
    OVS_EXCLUDED(wg->mutex)
{
    bool ipv6 = q->ipv6_first ^ !(++q->n_calls % NETDEV_WG_RX_OTHER_FIRST);

    COVERAGE_INC(wg_rx_call);
    if (netdev_wg_rx_round(wg, q, qid, ipv6 ? AF_INET6 : AF_INET)) {
        q->ipv6_first = ipv6;
    } else if (netdev_wg_rx_round(wg, q, qid, ipv6 ? AF_INET : AF_INET6)) {
        q->ipv6_first = !ipv6;
    }
}

/* Moves at most NETDEV_MAX_BURST packets of 'q''s ring into 'batch', all
 * of the source of the first (pkt-pool.h). */
static int
netdev_wg_rx_pop(struct netdev_wireguard *wg, struct netdev_wg_rxq *q,
                 struct dp_packet_batch *batch)
    OVS_EXCLUDED(wg->mutex)
{
    ovs_mutex_lock(&q->ring_mutex);
    netdev_wg_ring_pop_batch(&q->to_bridge, batch);
    ovs_mutex_unlock(&q->ring_mutex);
    return dp_packet_batch_is_empty(batch) ? EAGAIN : 0;
}

/* Whether 'q' has packets waiting for the bridge. */
static bool
netdev_wg_rx_waiting(struct netdev_wg_rxq *q)
{
    bool waiting;

    ovs_mutex_lock(&q->ring_mutex);
    waiting = q->to_bridge.n > 0;
    ovs_mutex_unlock(&q->ring_mutex);
    return waiting;
}

int
netdev_wg_rx_recv(struct netdev_wireguard *wg, int qid,
                  struct dp_packet_batch *batch)
    OVS_EXCLUDED(wg->mutex)
{
    /* Queues come and go only in reconfiguration, while no thread polls
     * the port. */
    struct netdev_wg_rxq *q = wg->rxqs[qid];

    if (!q) {
        return EAGAIN;          /* A queue being removed. */
    }
    if (!netdev_wg_rx_waiting(q)) {
        netdev_wg_rx_rounds(wg, q, qid);
    }
    return netdev_wg_rx_pop(wg, q, batch);
}

void
netdev_wg_rx_wait(struct netdev_wireguard *wg, int qid)
{
    if (wg->rxqs[qid] && netdev_wg_rx_waiting(wg->rxqs[qid])) {
        poll_immediate_wake();
    }
    if (wg->ul) {
        netdev_wg_ul_read_wait(wg->ul, qid);
    }
    if (qid < wg->n_socks) {
        if (wg->sock4[qid]) {
            poll_fd_wait(udp_batch_fd(wg->sock4[qid]), POLLIN);
        }
        if (wg->sock6[qid]) {
            poll_fd_wait(udp_batch_fd(wg->sock6[qid]), POLLIN);
        }
    }
}
