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
#include <stdlib.h>

#include "coverage.h"
#include "netdev-wireguard-private.h"
#include "wg-messages.h"
#include "openvswitch/vlog.h"
#include "util.h"
#include "wg-device.h"

/* The UDP sockets of a wireguard port and its send batch: opening them
 * (configured port, or one set through the UAPI), the message slots and
 * per-family queues that tx fills, flushing them (also after a receive
 * round, whose handshakes may have queued messages), and the engine's hook
 * for handshake and cookie messages, which leave at once.  Calls nothing of
 * the tx and rx files. */

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
    return family == AF_INET6 ? wg->sock6 : wg->sock4;
}

static void
netdev_wg_flush_queue(struct netdev_wireguard *wg, struct udp_batch_tx *q,
                      struct udp_batch_sock *sock)
{
    size_t n = udp_batch_tx_count(q);

    /* Messages are queued only for a family whose socket exists. */
    if (n) {
        size_t sent = udp_batch_tx_flush(q, sock, NULL);
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
    netdev_wg_flush_queue(wg, wg->tx.q4, wg->sock4);
    netdev_wg_flush_queue(wg, wg->tx.q6, wg->sock6);
    tx_slots_reset(&wg->tx.slots);
}

void
netdev_wg_sock_send_control(void *aux, const struct sockaddr *dst,
                          socklen_t dst_len OVS_UNUSED, const void *msg,
                          size_t len)
{
    struct netdev_wireguard *wg = aux;
    struct udp_batch_sock *sock = netdev_wg_sock_for(wg, dst->sa_family);

    if (!sock) {
        COVERAGE_INC(wg_ctl_no_socket);
        netdev_wg_count(wg, NETDEV_WG_TX_CONTROL_NO_SOCKET);
        return;
    }
    udp_batch_tx_add(wg->tx.ctl, msg, len, dst);
    if (!udp_batch_tx_flush(wg->tx.ctl, sock, NULL)) {
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
    tx_slots_destroy(&wg->tx.slots);
    tx_slots_init(&wg->tx.slots, NETDEV_WG_TX_SLOTS,
                  netdev_wg_slot_size(mtu));
}

void
netdev_wg_sock_init(struct netdev_wireguard *wg)
{
    tx_slots_init(&wg->tx.slots, NETDEV_WG_TX_SLOTS,
                  netdev_wg_slot_size(wg->mtu));
    wg->tx.q4 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.q6 = udp_batch_tx_create(NETDEV_WG_TX_SLOTS);
    wg->tx.ctl = udp_batch_tx_create(1);
}

void
netdev_wg_sock_destroy(struct netdev_wireguard *wg)
{
    udp_batch_tx_destroy(wg->tx.q4);
    udp_batch_tx_destroy(wg->tx.q6);
    udp_batch_tx_destroy(wg->tx.ctl);
    tx_slots_destroy(&wg->tx.slots);
    udp_batch_close(wg->sock4);
    udp_batch_close(wg->sock6);
    wg->sock4 = wg->sock6 = NULL;
}

/* Opening the sockets. */

static int
netdev_wg_open_socket(int family, int port, const struct wg_config *cfg,
                      struct udp_batch_sock **sockp, char **errp)
{
    struct udp_batch_options opts = {
        .family = family,
        .port = port,
        .gso = cfg->udp_gso,
        .gro = cfg->udp_gro,
    };
    return udp_batch_open(&opts, sockp, errp);
}

/* Opens the IPv4 and IPv6 sockets on 'port' (0: the same ephemeral port for
 * both).  IPv6 is optional when the system lacks it. */
static int
netdev_wg_open_sockets(int port, const struct wg_config *cfg,
                       struct udp_batch_sock **s4, struct udp_batch_sock **s6,
                       char **errp)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        char *err6 = NULL;
        int error;

        error = netdev_wg_open_socket(AF_INET, port, cfg, s4, errp);
        if (error) {
            return error;
        }
        error = netdev_wg_open_socket(AF_INET6, udp_batch_port(*s4), cfg,
                                      s6, &err6);
        if (!error || error == EAFNOSUPPORT || error == EADDRNOTAVAIL) {
            free(err6);
            return 0;
        }
        udp_batch_close(*s4);
        *s4 = NULL;
        if (port || error != EADDRINUSE) {
            *errp = err6;
            return error;
        }
        free(err6);             /* Ephemeral port taken for IPv6: retry. */
    }
    *errp = xstrdup("no UDP port free for both IPv4 and IPv6");
    return EADDRINUSE;
}

/* Sends what is queued on the old sockets, then puts 's4' and 's6' in
 * their place. */
static void
netdev_wg_sock_replace(struct netdev_wireguard *wg,
                       struct udp_batch_sock *s4, struct udp_batch_sock *s6)
{
    netdev_wg_sock_flush(wg);
    udp_batch_close(wg->sock4);
    udp_batch_close(wg->sock6);
    wg->sock4 = s4;
    wg->sock6 = s6;
    wg->bound_port = udp_batch_port(s4);
}

int
netdev_wg_sock_apply(struct netdev_wireguard *wg,
                        const struct wg_config *cfg, char **errp)
{
    /* Like the private key, only a change in the database moves the port
     * (a port set through the UAPI stays). */
    bool reopen = !wg->sock4
                  || (wg->configured
                      && cfg->listen_port != wg->cfg.listen_port
                      && cfg->listen_port != wg->bound_port);

    if (reopen) {
        struct udp_batch_sock *s4 = NULL, *s6 = NULL;
        int error = netdev_wg_open_sockets(cfg->listen_port, cfg,
                                           &s4, &s6, errp);
        if (error) {
            return error;
        }
        netdev_wg_sock_replace(wg, s4, s6);
    }
    udp_batch_set_gso(wg->sock4, cfg->udp_gso);
    udp_batch_set_gro(wg->sock4, cfg->udp_gro);
    if (wg->sock6) {
        udp_batch_set_gso(wg->sock6, cfg->udp_gso);
        udp_batch_set_gro(wg->sock6, cfg->udp_gro);
    }
    return 0;
}

/* Changes the listening port at run time (UAPI "listen_port=").  Returns 0
 * or an errno value. */
int
netdev_wg_sock_set_listen_port(struct netdev_wireguard *wg, int port)
{
    struct udp_batch_sock *s4 = NULL, *s6 = NULL;
    char *err = NULL;
    int error;

    if (port && port == wg->bound_port) {
        return 0;
    }
    error = netdev_wg_open_sockets(port, &wg->cfg, &s4, &s6, &err);
    if (error) {
        VLOG_WARN_RL(&rl, "%s: %s", netdev_get_name(&wg->up), err);
        free(err);
        return error;
    }
    netdev_wg_sock_replace(wg, s4, s6);
    return 0;
}
