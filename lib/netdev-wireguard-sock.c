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
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "coverage.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-underlay.h"
#include "wg-messages.h"
#include "openvswitch/vlog.h"
#include "util.h"
#include "wg-device.h"

/* The UDP sockets of a wireguard port and its send batch: opening them
 * (configured port, or one set through the UAPI), the message slots and
 * per-family queues that tx fills, flushing them (also after a receive
 * round, whose handshakes may have queued messages; each transmit queue
 * through its own socket of the port's group), and the engine's hook for
 * handshake and cookie messages, which leave at once.  With a datapath
 * underlay companion paired ('wg->ul', netdev-wireguard-underlay.h) the
 * sockets are closed and every flush hands the messages to it instead
 * (netdev_wg_sock_underlay()).  Calls nothing of the tx and rx files. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_sock);

COVERAGE_DEFINE(wg_tx_socket_drop);
COVERAGE_DEFINE(wg_ctl_no_socket);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

static size_t
netdev_wg_slot_size(int mtu)
{
    return ROUND_UP(WG_DEVICE_HEADROOM + mtu + WG_DEVICE_TAILROOM, 64);
}

struct udp_batch_sock *
netdev_wg_sock_for(const struct netdev_wireguard *wg, int family)
{
    return family == AF_INET6 ? wg->sock6[0] : wg->sock4[0];
}

bool
netdev_wg_sock_can_send(const struct netdev_wireguard *wg, int family)
{
    /* The caller holds 'mutex' or 'sock_rwlock': pairing and unpairing
     * hold both, so the companion stays. */
    return (wg->ul ? netdev_wg_ul_can_send(wg->ul, family)
            : netdev_wg_sock_for(wg, family) != NULL);
}

/* The datapath underlay in place of the socket: hands what 'q' holds to
 * the companion, each message with the packet of its slot of 'slots' if
 * it has one (the companion takes it), and empties 'q'.  Returns how many
 * messages it dropped. */
static size_t
netdev_wg_sock_underlay(struct netdev_wireguard *wg, struct udp_batch_tx *q,
                        struct tx_slots *slots)
{
    struct dp_packet *pkts[NETDEV_WG_TXQ_SLOTS];
    const struct udp_batch_msg *msgs = udp_batch_tx_msgs(q);
    size_t n = udp_batch_tx_count(q);
    size_t dropped;

    ovs_assert(n <= ARRAY_SIZE(pkts));
    for (size_t i = 0; i < n; i++) {
        pkts[i] = (msgs[i].tag == UDP_BATCH_NO_TAG ? NULL
                   : tx_slots_take(slots, msgs[i].tag));
    }
    dropped = n ? netdev_wg_ul_send(wg->ul, msgs, pkts, n) : 0;
    udp_batch_tx_clear(q);
    return dropped;
}

/* Makes 'slots' 'n' slots of the port's size and of the kind its
 * transport wants: in packets while it is paired with a datapath
 * underlay, so that each message is sent as it was sealed. */
static void
netdev_wg_slots_init(const struct netdev_wireguard *wg,
                     struct tx_slots *slots, size_t n)
{
    tx_slots_init(slots, n, wg->slot_size,
                  wg->ul ? NETDEV_WG_UL_SLOT_FRONT : 0,
                  NETDEV_WG_UL_SLOT_HEADROOM);
}

bool
netdev_wg_sock_slots_fit(const struct netdev_wireguard *wg,
                         const struct tx_slots *slots)
{
    return (slots->slot_size == wg->slot_size
            && slots->front == (wg->ul ? NETDEV_WG_UL_SLOT_FRONT : 0));
}

static void
netdev_wg_flush_queue(struct netdev_wireguard *wg, struct udp_batch_tx *q,
                      struct udp_batch_sock *sock)
{
    size_t n = udp_batch_tx_count(q);

    /* Messages are queued only for a family whose socket exists. */
    if (n) {
        size_t sent = (wg->ul
                       ? n - netdev_wg_sock_underlay(wg, q, &wg->tx.slots)
                       : udp_batch_tx_flush(q, sock, NULL));
        if (sent < n) {
            COVERAGE_ADD(wg_tx_socket_drop, n - sent);
            VLOG_DBG_RL(&rl, "%s: the socket took %"PRIuSIZE" of %"PRIuSIZE
                        " messages", netdev_get_name(&wg->up), sent, n);
            wg->stats.tx_dropped += n - sent;
            netdev_wg_count_n(wg, NETDEV_WG_TX_SOCKET, n - sent);
        }
    }
}

void
netdev_wg_sock_flush(struct netdev_wireguard *wg)
{
    netdev_wg_flush_queue(wg, wg->tx.q4, wg->sock4[0]);
    netdev_wg_flush_queue(wg, wg->tx.q6, wg->sock6[0]);
    tx_slots_reset(&wg->tx.slots);
}

void
netdev_wg_sock_send_control(void *aux, const struct sockaddr *dst,
                          socklen_t dst_len OVS_UNUSED, const void *msg,
                          size_t len)
{
    struct netdev_wireguard *wg = aux;
    struct udp_batch_sock *sock = netdev_wg_sock_for(wg, dst->sa_family);

    if (!sock && !netdev_wg_sock_can_send(wg, dst->sa_family)) {
        COVERAGE_INC(wg_ctl_no_socket);
        netdev_wg_count(wg, NETDEV_WG_TX_CONTROL_NO_SOCKET);
        return;
    }
    udp_batch_tx_add(wg->tx.ctl, msg, len, dst);
    if (wg->ul ? netdev_wg_sock_underlay(wg, wg->tx.ctl, &wg->tx.slots)
        : !udp_batch_tx_flush(wg->tx.ctl, sock, NULL)) {
        COVERAGE_INC(wg_tx_socket_drop);
        netdev_wg_count(wg, NETDEV_WG_TX_CONTROL_SOCKET);
    } else if (len == WG_MSG_INITIATION_LEN) {
        netdev_wg_count(wg, NETDEV_WG_HANDSHAKE_INITIATION_SENT);
    } else if (len == WG_MSG_RESPONSE_LEN) {
        netdev_wg_count(wg, NETDEV_WG_HANDSHAKE_RESPONSE_SENT);
    }
}

void
netdev_wg_sock_set_mtu(struct netdev_wireguard *wg, int mtu)
{
    netdev_wg_sock_flush(wg);
    wg->slot_size = netdev_wg_slot_size(mtu);
    tx_slots_destroy(&wg->tx.slots);
    netdev_wg_slots_init(wg, &wg->tx.slots, NETDEV_WG_TX_SLOTS);
    netdev_wg_sock_publish(wg);
}

void
netdev_wg_sock_publish(struct netdev_wireguard *wg)
{
    atomic_store_relaxed(&wg->unlocked_mtu, wg->mtu);
    atomic_store_relaxed(&wg->unlocked_slot_size, wg->slot_size);
    atomic_store_relaxed(&wg->unlocked_slot_front, wg->tx.slots.front);
    atomic_store_relaxed(&wg->unlocked_tso, wg->tso);
    atomic_store_relaxed(&wg->unlocked_gro, wg->tso && wg->cfg.tcp_gro);
    atomic_store(&wg->unlocked_ready, wg->configured);
}

/* Transmit queues. */

static struct netdev_wg_txq *
netdev_wg_txq_create(const struct netdev_wireguard *wg, int id)
{
    struct netdev_wg_txq *txq = xzalloc(sizeof *txq);

    txq->id = id;
    ovs_mutex_init_adaptive(&txq->lock);
    netdev_wg_slots_init(wg, &txq->tx.slots, NETDEV_WG_TXQ_SLOTS);
    txq->tx.q4 = udp_batch_tx_create(NETDEV_WG_TXQ_SLOTS);
    txq->tx.q6 = udp_batch_tx_create(NETDEV_WG_TXQ_SLOTS);
    txq->tx.pending = xmalloc(NETDEV_WG_TXQ_SLOTS * sizeof *txq->tx.pending);
    txq->tx.cuts = xmalloc(NETDEV_WG_TXQ_SLOTS * sizeof *txq->tx.cuts);
    addr_memo_init(&txq->tx.learned, NETDEV_WG_TX_LEARNED,
                   NETDEV_WG_TX_LEARNED_MS);
    return txq;
}

static void
netdev_wg_txq_destroy(struct netdev_wg_txq *txq)
{
    if (txq) {
        udp_batch_tx_destroy(txq->tx.q4);
        udp_batch_tx_destroy(txq->tx.q6);
        tx_slots_destroy(&txq->tx.slots);
        free(txq->tx.pending);
        free(txq->tx.cuts);
        addr_memo_destroy(&txq->tx.learned);
        ovs_mutex_destroy(&txq->lock);
        free(txq);
    }
}

/* Adds what 'c' counted to 'stats' and 'o'. */
static void
netdev_wg_counts_add(const struct netdev_wg_tx_counts *c,
                     struct netdev_stats *stats,
                     struct netdev_wg_offload_stats *o)
{
    stats->tx_packets += netdev_wg_counter_get(&c->packets);
    stats->tx_bytes += netdev_wg_counter_get(&c->bytes);
    o->super_packets += netdev_wg_counter_get(&c->super_packets);
    o->segments += netdev_wg_counter_get(&c->segments);
    o->csum_filled += netdev_wg_counter_get(&c->csum_filled);
}

void
netdev_wg_sock_add_counts(const struct netdev_wireguard *wg,
                          struct netdev_stats *stats,
                          struct netdev_wg_offload_stats *o)
{
    netdev_wg_counts_add(&wg->tx.counts, stats, o);
    for (int i = 0; i < wg->n_txq; i++) {
        netdev_wg_counts_add(&wg->txqs[i]->tx.counts, stats, o);
    }
}

uint64_t
netdev_wg_sock_messages(const struct netdev_wg_tx *tx, uint64_t *unlocked)
{
    *unlocked = netdev_wg_counter_get(&tx->counts.unlocked);
    return netdev_wg_counter_get(&tx->counts.messages);
}

void
netdev_wg_sock_set_n_txq(struct netdev_wireguard *wg, int n)
{
    for (int i = n; i < wg->n_txq; i++) {
        /* What it counted stays in the port's statistics. */
        netdev_wg_counts_add(&wg->txqs[i]->tx.counts, &wg->stats,
                             &wg->offload);
        netdev_wg_txq_destroy(wg->txqs[i]);
    }
    wg->txqs = xrealloc(wg->txqs, n * sizeof *wg->txqs);
    for (int i = wg->n_txq; i < n; i++) {
        wg->txqs[i] = netdev_wg_txq_create(wg, i);
    }
    wg->n_txq = n;
}

void
netdev_wg_sock_fit_txq(struct netdev_wireguard *wg, struct netdev_wg_txq *txq)
{
    if (!netdev_wg_sock_slots_fit(wg, &txq->tx.slots)) {
        tx_slots_destroy(&txq->tx.slots);
        netdev_wg_slots_init(wg, &txq->tx.slots, NETDEV_WG_TXQ_SLOTS);
    }
}

/* Returns the socket for 'family' that transmit queue 'txq' sends on, or
 * NULL if the port has none.  A port with several sockets per family (one
 * per receive queue, all bound to its address and port) spreads its
 * transmit queues over them, so that queues on different threads do not
 * send through one socket (nor take its lock for its counters). */
static struct udp_batch_sock *
netdev_wg_txq_sock(const struct netdev_wireguard *wg,
                   const struct netdev_wg_txq *txq, int family)
    OVS_REQ_RDLOCK(wg->sock_rwlock)
{
    struct udp_batch_sock *const *socks = (family == AF_INET6
                                           ? wg->sock6 : wg->sock4);

    return wg->n_socks ? socks[txq->id % wg->n_socks] : NULL;
}

/* Sends what queue 'q' of 'txq' holds on its socket for 'family', if the
 * port still has one.  Returns how many datagrams were dropped. */
static size_t
netdev_wg_txq_flush(struct netdev_wireguard *wg,
                    struct netdev_wg_txq *txq, struct udp_batch_tx *q,
                    int family)
    OVS_REQ_RDLOCK(wg->sock_rwlock)
{
    size_t n = udp_batch_tx_count(q);
    struct udp_batch_sock *sock = netdev_wg_txq_sock(wg, txq, family);

    if (!n) {
        return 0;
    } else if (wg->ul) {
        return netdev_wg_sock_underlay(wg, q, &txq->tx.slots);
    } else if (!sock) {
        udp_batch_tx_clear(q);
        return n;
    }
    n -= udp_batch_tx_flush(q, sock, NULL);
    COVERAGE_ADD(wg_tx_socket_drop, n);
    return n;
}

size_t
netdev_wg_sock_send_txq(struct netdev_wireguard *wg,
                        struct netdev_wg_txq *txq)
    OVS_EXCLUDED(wg->mutex)
{
    size_t dropped;

    ovs_rwlock_rdlock(&wg->sock_rwlock);
    dropped = netdev_wg_txq_flush(wg, txq, txq->tx.q4, AF_INET);
    dropped += netdev_wg_txq_flush(wg, txq, txq->tx.q6, AF_INET6);
    ovs_rwlock_unlock(&wg->sock_rwlock);
    tx_slots_reset(&txq->tx.slots);
    return dropped;
}

void
netdev_wg_sock_init(struct netdev_wireguard *wg)
{
    ovs_rwlock_init(&wg->sock_rwlock);
    wg->slot_size = netdev_wg_slot_size(wg->mtu);
    netdev_wg_slots_init(wg, &wg->tx.slots, NETDEV_WG_TX_SLOTS);
    atomic_init(&wg->unlocked_mtu, wg->mtu);
    atomic_init(&wg->unlocked_slot_size, wg->slot_size);
    atomic_init(&wg->unlocked_slot_front, wg->tx.slots.front);
    atomic_init(&wg->unlocked_tso, false);
    atomic_init(&wg->unlocked_ready, false);
    wg->tx.q4 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.q6 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.ctl = udp_batch_tx_create(1);
}

/* Closes the sockets of every queue. */
static void
netdev_wg_close_sockets(struct udp_batch_sock **s4, struct udp_batch_sock **s6)
{
    for (int i = 0; i < WG_CONFIG_N_RXQ_MAX; i++) {
        udp_batch_close(s4[i]);
        udp_batch_close(s6[i]);
        s4[i] = s6[i] = NULL;
    }
}

void
netdev_wg_sock_destroy(struct netdev_wireguard *wg)
{
    udp_batch_tx_destroy(wg->tx.q4);
    udp_batch_tx_destroy(wg->tx.q6);
    udp_batch_tx_destroy(wg->tx.ctl);
    tx_slots_destroy(&wg->tx.slots);
    netdev_wg_sock_set_n_txq(wg, 0);
    free(wg->txqs);
    wg->txqs = NULL;
    netdev_wg_close_sockets(wg->sock4, wg->sock6);
    wg->n_socks = 0;
    ovs_rwlock_destroy(&wg->sock_rwlock);
}

/* Opening the sockets. */

static int
netdev_wg_open_socket(int family, int port, int n, const struct wg_config *cfg,
                      struct udp_batch_sock **sockp, char **errp)
{
    struct udp_batch_options opts = {
        .family = family,
        .port = port,
        .gso = cfg->udp_gso,
        .gro = cfg->udp_gro,
        .reuseport = n > 1,
    };
    return udp_batch_open(&opts, sockp, errp);
}

/* Steering of a group of 'n' sockets (SO_ATTACH_REUSEPORT_CBPF, socket(7)):
 * a classic BPF program that runs on the UDP payload and returns the index
 * of the socket in the group, in the order they were bound.  It reads the
 * lowest byte of the receiver index (data messages and cookie replies: at
 * offset 4; handshake responses: at 8) modulo 'n', so that the messages of
 * one session reach one queue (wg_device_peer_set_rx_class() picks it).
 * Handshake initiations carry no receiver index: an index out of range
 * makes the kernel pick a socket by the 4-tuple hash. */
static int
netdev_wg_steer(struct udp_batch_sock *sock, int n)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WG_MSG_DATA, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WG_MSG_COOKIE_REPLY, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WG_MSG_RESPONSE, 4, 0),
        BPF_STMT(BPF_RET | BPF_K, UINT32_MAX),
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 4),
        BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, n),
        BPF_STMT(BPF_RET | BPF_A, 0),
        BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8),
        BPF_STMT(BPF_ALU | BPF_MOD | BPF_K, n),
        BPF_STMT(BPF_RET | BPF_A, 0),
    };
    struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

    if (setsockopt(udp_batch_fd(sock), SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF,
                   &prog, sizeof prog)) {
        return errno;
    }
    return 0;
}

/* Opens 'n' sockets of 'family' on 'port' into 'socks' (the first picks
 * the port if it is 0; the others join its group, steered).  Returns 0 or
 * an errno value with a message in '*errp'. */
static int
netdev_wg_open_group(int family, int port, int n, const struct wg_config *cfg,
                     struct udp_batch_sock **socks, char **errp)
{
    int error = 0;

    for (int i = 0; i < n && !error; i++) {
        error = netdev_wg_open_socket(family, i ? udp_batch_port(socks[0])
                                      : port, n, cfg, &socks[i], errp);
    }
    if (!error && n > 1) {
        error = netdev_wg_steer(socks[0], n);
        if (error) {
            *errp = xasprintf("cannot steer %s UDP sockets to receive "
                              "queues (%s)", family == AF_INET ? "IPv4"
                              : "IPv6", ovs_strerror(error));
        }
    }
    if (error) {
        for (int i = 0; i < n; i++) {
            udp_batch_close(socks[i]);
            socks[i] = NULL;
        }
    }
    return error;
}

/* Opens 'n' IPv4 and 'n' IPv6 sockets on 'port' (0: the same ephemeral
 * port for both families).  IPv6 is optional when the system lacks it. */
static int
netdev_wg_open_sockets(int port, int n, const struct wg_config *cfg,
                       struct udp_batch_sock **s4, struct udp_batch_sock **s6,
                       char **errp)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        char *err6 = NULL;
        int error;

        error = netdev_wg_open_group(AF_INET, port, n, cfg, s4, errp);
        if (error) {
            return error;
        }
        error = netdev_wg_open_group(AF_INET6, udp_batch_port(s4[0]), n,
                                     cfg, s6, &err6);
        if (!error || error == EAFNOSUPPORT || error == EADDRNOTAVAIL) {
            free(err6);
            return 0;
        }
        netdev_wg_close_sockets(s4, s6);
        if (port || error != EADDRINUSE) {
            *errp = err6;
            return error;
        }
        free(err6);             /* Ephemeral port taken for IPv6: retry. */
    }
    *errp = xstrdup("no UDP port free for both IPv4 and IPv6");
    return EADDRINUSE;
}

/* Sends what is queued on the port's sockets and closes them. */
static void
netdev_wg_sock_close_all(struct netdev_wireguard *wg)
{
    netdev_wg_sock_flush(wg);
    ovs_rwlock_wrlock(&wg->sock_rwlock);
    netdev_wg_close_sockets(wg->sock4, wg->sock6);
    wg->n_socks = 0;
    ovs_rwlock_unlock(&wg->sock_rwlock);
}

/* Puts the 'n' sockets per family of 's4' and 's6' in place of the port's,
 * which are closed. */
static void
netdev_wg_sock_replace(struct netdev_wireguard *wg, int n,
                       struct udp_batch_sock **s4, struct udp_batch_sock **s6)
{
    netdev_wg_sock_close_all(wg);
    ovs_rwlock_wrlock(&wg->sock_rwlock);
    memcpy(wg->sock4, s4, sizeof wg->sock4);
    memcpy(wg->sock6, s6, sizeof wg->sock6);
    wg->n_socks = n;
    ovs_rwlock_unlock(&wg->sock_rwlock);
    wg->bound_port = udp_batch_port(s4[0]);
    wg_device_set_rx_classes(wg->dev, n);
}

/* Opens 'n' sockets per family on 'port' for the port, in place of its
 * own.  A group on the port's own port number can only be bound once the
 * old one is closed: if the new one then fails, the old count is opened
 * again.  Returns 0 or an errno value with a message in '*errp'. */
static int
netdev_wg_sock_reopen(struct netdev_wireguard *wg, int port, int n,
                      const struct wg_config *cfg, char **errp)
{
    struct udp_batch_sock *s4[WG_CONFIG_N_RXQ_MAX] = { NULL };
    struct udp_batch_sock *s6[WG_CONFIG_N_RXQ_MAX] = { NULL };
    int old_n = wg->n_socks;
    int error;

    if (old_n && port && port == wg->bound_port) {
        netdev_wg_sock_close_all(wg);
    }
    error = netdev_wg_open_sockets(port, n, cfg, s4, s6, errp);
    if (error && old_n && !wg->n_socks) {
        char *err2 = NULL;

        if (!netdev_wg_open_sockets(port, old_n, &wg->cfg, s4, s6, &err2)) {
            netdev_wg_sock_replace(wg, old_n, s4, s6);
        }
        free(err2);
    } else if (!error) {
        netdev_wg_sock_replace(wg, n, s4, s6);
    }
    return error;
}

static void
netdev_wg_sock_set_offloads(struct netdev_wireguard *wg,
                            const struct wg_config *cfg)
{
    for (int i = 0; i < wg->n_socks; i++) {
        udp_batch_set_gso(wg->sock4[i], cfg->udp_gso);
        udp_batch_set_gro(wg->sock4[i], cfg->udp_gro);
        if (wg->sock6[i]) {
            udp_batch_set_gso(wg->sock6[i], cfg->udp_gso);
            udp_batch_set_gro(wg->sock6[i], cfg->udp_gro);
        }
    }
}

int
netdev_wg_sock_apply(struct netdev_wireguard *wg,
                        const struct wg_config *cfg, char **errp)
{
    /* Like the private key, only a change in the database moves the port
     * (a port set through the UAPI stays). */
    bool move = (wg->configured
                 && cfg->listen_port != wg->cfg.listen_port
                 && cfg->listen_port != wg->bound_port);

    if (wg->ul) {
        if (move) {
            wg->bound_port = cfg->listen_port;
            netdev_wg_ul_set_port(wg->ul, wg->bound_port);
        }
        return 0;
    }

    if (!wg->n_socks || move || cfg->n_rxq != wg->n_socks) {
        int port = move || !wg->n_socks ? cfg->listen_port : wg->bound_port;
        int error = netdev_wg_sock_reopen(wg, port, cfg->n_rxq, cfg, errp);
        if (error) {
            return error;
        }
    }
    netdev_wg_sock_set_offloads(wg, cfg);
    return 0;
}

/* Changes the listening port at run time (UAPI "listen_port=").  Returns 0
 * or an errno value. */
int
netdev_wg_sock_set_listen_port(struct netdev_wireguard *wg, int port)
{
    char *err = NULL;
    int error;

    if (port && port == wg->bound_port) {
        return 0;
    } else if (wg->ul) {
        return EBUSY;           /* The underlay's port is configured. */
    }
    error = netdev_wg_sock_reopen(wg, port, MAX(wg->n_socks, 1), &wg->cfg,
                                  &err);
    if (error) {
        VLOG_WARN_RL(&rl, "%s: %s", netdev_get_name(&wg->up), err);
        free(err);
    }
    return error;
}

/* The datapath underlay. */

/* Gives the port's own batch slots of the kind its transport wants now
 * (its transmit queues' follow at their next locked send,
 * netdev_wg_sock_fit_txq()). */
static void
netdev_wg_slots_renew(struct netdev_wireguard *wg)
{
    tx_slots_destroy(&wg->tx.slots);
    netdev_wg_slots_init(wg, &wg->tx.slots, NETDEV_WG_TX_SLOTS);
    netdev_wg_sock_publish(wg);
}

/* The UDP port the underlay uses when the port had none. */
#define NETDEV_WG_UNDERLAY_PORT 51820

uint16_t
netdev_wg_sock_set_underlay(struct netdev_wireguard *wg,
                            struct netdev_wg_ul *ul)
{
    char *err = NULL;

    if (ul) {
        netdev_wg_sock_close_all(wg);       /* Flushes first. */
        ovs_rwlock_wrlock(&wg->sock_rwlock);
        wg->ul = ul;
        ovs_rwlock_unlock(&wg->sock_rwlock);
        netdev_wg_slots_renew(wg);
        if (!wg->bound_port) {
            wg->bound_port = (wg->cfg.listen_port ? wg->cfg.listen_port
                              : NETDEV_WG_UNDERLAY_PORT);
        }
        return wg->bound_port;
    }
    netdev_wg_sock_flush(wg);
    ovs_rwlock_wrlock(&wg->sock_rwlock);
    wg->ul = NULL;
    ovs_rwlock_unlock(&wg->sock_rwlock);
    netdev_wg_slots_renew(wg);
    if (wg->configured && netdev_wg_sock_apply(wg, &wg->cfg, &err)) {
        VLOG_WARN("%s: %s", netdev_get_name(&wg->up), err);
        free(err);
    }
    return 0;
}
