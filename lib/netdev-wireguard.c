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
#include "netdev-wireguard.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bridge-l2.h"
#include "coverage.h"
#include "dp-packet.h"
#include "hash.h"
#include "netdev-wireguard-private.h"
#include "netdev-wireguard-underlay.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "ovs-thread.h"
#include "seq.h"
#include "smap.h"
#include "timeval.h"
#include "userspace-tso.h"
#include "util.h"
#include "wg-crypto-selftest.h"
#include "wg-device.h"
#include "wg-test-hooks.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard);

static struct vlog_rate_limit netdev_wg_rl = VLOG_RATE_LIMIT_INIT(5, 20);


/* Inner MTU of a WireGuard port unless mtu_request says otherwise: 1500
 * minus the outer IPv6 (40), UDP (8) and WireGuard data (32) overhead. */
#define NETDEV_WG_DEFAULT_MTU 1420
#define NETDEV_WG_MAX_MTU 9000

struct ovs_mutex netdev_wg_list_mutex = OVS_MUTEX_INITIALIZER;
struct ovs_list netdev_wg_list OVS_GUARDED_BY(netdev_wg_list_mutex)
    = OVS_LIST_INITIALIZER(&netdev_wg_list);

static bool
is_netdev_wireguard_class(const struct netdev_class *class)
{
    return class->construct == netdev_wireguard_class.construct;
}

static struct netdev_wireguard *
netdev_wireguard_cast(const struct netdev *netdev)
{
    ovs_assert(is_netdev_wireguard_class(netdev_get_class(netdev)));
    return CONTAINER_OF(netdev, struct netdev_wireguard, up);
}

static struct netdev *
netdev_wireguard_alloc(void)
{
    struct netdev_wireguard *wg = xzalloc(sizeof *wg);
    return &wg->up;
}

/* A stable, locally administered unicast MAC derived from the port name, so
 * guests' neighbor caches survive a daemon restart. */
static struct eth_addr
netdev_wireguard_stable_mac(const char *name)
{
    uint32_t h = hash_string(name, 0x77670000);
    struct eth_addr mac = ETH_ADDR_C(aa, 77, 67, 00, 00, 00);

    mac.ea[3] = h >> 16;
    mac.ea[4] = h >> 8;
    mac.ea[5] = h;
    return mac;
}

/* Engine hook: a handshake initiation waits for the main thread. */
static void
netdev_wireguard_wake(void *aux)
{
    struct netdev_wireguard *wg = aux;

    seq_change(wg->ctl_seq);
}

static int
netdev_wireguard_construct(struct netdev *netdev)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);
    struct wg_device_hooks hooks = {
        .send = netdev_wg_sock_send_control,
        .session_ready = netdev_wg_events_session_ready,
        .handshake_failed = netdev_wg_events_handshake_failed,
        .wake = netdev_wireguard_wake,
    };

    ovs_mutex_init(&wg->mutex);
    ovs_mutex_init(&wg->flags_mutex);
    wg->mac = netdev_wireguard_stable_mac(netdev_get_name(netdev));
    wg->mtu = NETDEV_WG_DEFAULT_MTU;
    ovs_mutex_lock(&wg->flags_mutex);
    wg->flags = NETDEV_UP;      /* Administratively up, like a tunnel;
                                 * carrier: netdev_wg_events_carrier(). */
    ovs_mutex_unlock(&wg->flags_mutex);
    wg_config_init(&wg->cfg);
    smap_init(&wg->uapi_removed);
    wg->ctl_seq = seq_create();
    wg->ctl_seq_seen = seq_read(wg->ctl_seq);
    wg->defer_handshakes = netdev_is_pmd(netdev);
    wg->dev = wg_device_create(&hooks, wg);
    wg_device_set_deferred(wg->dev, true);
    wg_device_set_mtu(wg->dev, wg->mtu);
#ifdef WG_TEST_HOOKS
    if (wg_test_rekey_after()) {
        wg_device_set_rekey_after_messages_for_test(wg->dev,
                                                    wg_test_rekey_after());
    }
#endif
    netdev_wg_bridge_init(wg);
    netdev_wg_sock_init(wg);
    wg->requested_n_txq = 1;
    netdev_wg_sock_set_n_txq(wg, 1);
    netdev_wg_rx_init(wg);

    ovs_mutex_lock(&netdev_wg_list_mutex);
    ovs_list_push_back(&netdev_wg_list, &wg->list_node);
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    return 0;
}

static void
netdev_wireguard_destruct(struct netdev *netdev)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&netdev_wg_list_mutex);
    ovs_list_remove(&wg->list_node);
    ovs_mutex_unlock(&netdev_wg_list_mutex);

    ovs_mutex_lock(&wg->mutex);
    netdev_wg_uapi_stop_later(wg);
    netdev_wg_ul_port_gone(wg);
    netdev_wg_peers_clear(wg);
    wg_device_destroy(wg->dev);
    netdev_wg_rx_destroy(wg);
    netdev_wg_sock_destroy(wg);
    netdev_wg_bridge_destroy(wg);
    wg_config_destroy(&wg->cfg);
    free(wg->mtu_error);
    smap_destroy(&wg->uapi_removed);
    ovs_mutex_unlock(&wg->mutex);
    ovs_mutex_destroy(&wg->mutex);
    ovs_mutex_destroy(&wg->flags_mutex);
    seq_destroy(wg->ctl_seq);
}

static void
netdev_wireguard_dealloc(struct netdev *netdev)
{
    free(netdev_wireguard_cast(netdev));
}

/* Crypto. */

/* Logs, once, the crypto in use. */
static void
netdev_wg_log_crypto(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        wg_crypto_log_config();
        ovsthread_once_done(&once);
    }
}

/* A port comes up only on crypto that passed the self-test, which runs
 * (and logs) once, before the first port's configuration is applied. */
static int
netdev_wg_check_crypto(char **errp)
{
    const char *failed;

    netdev_wg_log_crypto();
    failed = wg_crypto_selftest();

    if (failed) {
        *errp = xasprintf("crypto self-test failed: %s", failed);
        return EINVAL;
    }
    return 0;
}

static int
netdev_wireguard_set_config(struct netdev *netdev, const struct smap *args,
                            char **errp)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);
    struct wg_config cfg;
    int error;

    wg_config_init(&cfg);
    error = netdev_wg_check_crypto(errp);

    ovs_mutex_lock(&wg->mutex);
    if (!error) {
        error = wg_config_parse_from(args, wg->configured ? &wg->cfg : NULL,
                                     &cfg, errp);
    }
    if (!error) {
        error = netdev_wg_apply_addresses(wg, &cfg, errp);
    }
    if (!error) {
        error = netdev_wg_config_check_mtu(wg, &cfg, errp);
        if (error) {
            netdev_wg_restore_addresses(wg);
        }
    }
    if (!error) {
        netdev_wg_rx_add_queues(wg, cfg.n_rxq);
        error = netdev_wg_sock_apply(wg, &cfg, errp);
        if (error) {
            /* Nothing of the new configuration stays live. */
            netdev_wg_restore_addresses(wg);
        }
    }
    if (!error) {
        netdev_wg_keys_log_errors(wg, &cfg);
        netdev_wg_keys_apply(wg, &cfg);
        netdev_wg_apply_peers(wg, &cfg);
        netdev_wg_apply_offloads(wg);
        netdev_wg_apply_aead(wg, &cfg);
        netdev_wg_log_peer_errors(wg, &cfg.peer_errors);
        if (cfg.n_rxq != netdev_n_rxq(netdev)) {
            netdev_request_reconfigure(netdev);
        }
        wg_config_move(&wg->cfg, &cfg);
        wg->configured = true;
        netdev_wg_sock_publish(wg);
    } else {
        wg_config_destroy(&cfg);
    }
    ovs_mutex_unlock(&wg->mutex);
    if (!error) {
        netdev_wg_uapi_update(wg);
    }
    return error;
}

static int
netdev_wireguard_get_config(const struct netdev *netdev, struct smap *args)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    if (wg->bound_port) {
        smap_add_format(args, "listen_port", "%d", wg->bound_port);
    }
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

/* Geneve as OVN sends it over an IPv4 (IPv6) outer header: outer IP, UDP,
 * Geneve, OVN's 8-byte option and the inner Ethernet header. */
#define NETDEV_WG_GENEVE4_OVERHEAD 58
#define NETDEV_WG_GENEVE6_OVERHEAD 78

/* Says in 'smap' why packets of OVS's tunnels (Geneve, VXLAN) over the
 * port were dropped, if any were: too big for the inner MTU (the tunnel
 * sets DF and never hears the ICMP answer), or tunnel super-packets the
 * port cannot segment.  Their only trace is this. */
static void
netdev_wg_mtu_status(const struct netdev_wireguard *wg, struct smap *smap)
    OVS_REQUIRES(wg->mutex)
{
    uint64_t n = wg->counters[NETDEV_WG_TX_TOO_BIG];
    uint64_t n_tunnel_tso = wg->counters[NETDEV_WG_TX_TUNNEL_TSO];

    if (n_tunnel_tso) {
        smap_add_format(smap, "tx_tunnel_tso",
                        "%"PRIu64" tunnel super-packets (Geneve or VXLAN "
                        "over this port, userspace-tso on) dropped: this "
                        "Open vSwitch passes them unsegmented (3.5 and later "
                        "segment them); turn other_config:"
                        "userspace-tso-enable off, or TSO off in the "
                        "guests", n_tunnel_tso);
    }
    if (n) {
        smap_add_format(smap, "tx_too_big",
                        "%"PRIu64" packets over the inner MTU %d dropped "
                        "(Geneve over this port, as OVN sends it: logical "
                        "MTU at most %d with an IPv4 encap IP, %d with "
                        "IPv6)", n, wg->mtu,
                        wg->mtu - NETDEV_WG_GENEVE4_OVERHEAD,
                        wg->mtu - NETDEV_WG_GENEVE6_OVERHEAD);
    }
}

static int
netdev_wireguard_get_status(const struct netdev *netdev, struct smap *smap)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);
    uint8_t pub[WG_KEY_LEN];
    struct smap_node *node;

    ovs_mutex_lock(&wg->mutex);
    if (wg_device_get_public_key(wg->dev, pub)) {
        char b64[WG_KEY_B64_LEN];
        wg_crypto_key_to_base64(b64, pub);
        smap_add(smap, "public_key", b64);
    } else {
        smap_add(smap, "public_key", "none (no private key configured)");
    }
    smap_add_format(smap, "listen_port", "%d", wg->bound_port);
    smap_add_format(smap, "n_rxq", "%d", wg->n_socks);
    smap_add(smap, "underlay", wg->ul ? "datapath" : "kernel");
    smap_add_format(smap, "peers", "%"PRIuSIZE,
                    wg_device_peer_count(wg->dev));
    smap_add_format(smap, "peers_up", "%"PRIuSIZE,
                    netdev_wg_events_peers_up(wg));
    SMAP_FOR_EACH (node, &wg->cfg.peer_errors) {
        smap_add_nocopy(smap, xasprintf("peer_error.%s", node->key),
                        xstrdup(node->value));
    }
    netdev_wg_dns_status(wg, smap);
    netdev_wg_keys_status(wg, smap);
    if (wg->mtu_error) {
        smap_add(smap, "mtu_error", wg->mtu_error);
    }
    netdev_wg_mtu_status(wg, smap);
    netdev_wg_uapi_status(wg, smap);
    smap_add(smap, "userspace_tso", wg->tso ? "true" : "false");
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

/* Ethernet-level properties. */

static int
netdev_wireguard_set_etheraddr(struct netdev *netdev,
                               const struct eth_addr mac)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    if (!eth_addr_equals(wg->mac, mac)) {
        wg->mac = mac;
        bridge_l2_set_mac(wg->l2, mac);
        netdev_change_seq_changed(netdev);
    }
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_get_etheraddr(const struct netdev *netdev,
                               struct eth_addr *mac)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    *mac = wg->mac;
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_get_mtu(const struct netdev *netdev, int *mtup)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    *mtup = wg->mtu;
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

/* Why inner MTU 'mtu' cannot be used, or NULL (caller frees). */
static char *
netdev_wg_mtu_refusal(const struct netdev_wireguard *wg, int mtu)
{
    int min = netdev_wg_min_mtu(wg, &wg->cfg);

    if (mtu < min || mtu > NETDEV_WG_MAX_MTU) {
        return xasprintf("mtu_request %d refused: the inner MTU must be "
                         "%d to %d%s", mtu, min, NETDEV_WG_MAX_MTU,
                         min == NETDEV_WG_MIN_MTU_IPV6
                         ? " with IPv6 in allowed_ips or address" : "");
    }
    return NULL;
}

static int
netdev_wireguard_set_mtu(struct netdev *netdev, int mtu)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);
    char *refusal;

    ovs_mutex_lock(&wg->mutex);
    refusal = netdev_wg_mtu_refusal(wg, mtu);
    if (nullable_string_is_equal(refusal, wg->mtu_error)) {
        free(refusal);
    } else {
        if (refusal) {
            VLOG_WARN_RL(&netdev_wg_rl, "%s: %s", netdev_get_name(netdev),
                         refusal);
        }
        free(wg->mtu_error);
        wg->mtu_error = refusal;
        netdev_change_seq_changed(netdev);
    }
    if (wg->mtu_error) {
        ovs_mutex_unlock(&wg->mutex);
        return EINVAL;
    }
    if (wg->mtu != mtu) {
        netdev_wg_sock_flush(wg);
        wg->mtu = mtu;
        wg_device_set_mtu(wg->dev, mtu);
        netdev_wg_sock_set_mtu(wg, mtu);
        netdev_change_seq_changed(netdev);
    }
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_get_stats(const struct netdev *netdev,
                           struct netdev_stats *stats)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    struct netdev_wg_offload_stats o = { .super_packets = 0 };

    ovs_mutex_lock(&wg->mutex);
    *stats = wg->stats;
    netdev_wg_sock_add_counts(wg, stats, &o);
    netdev_wg_rx_add_counts(wg, stats, &o);
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_get_carrier(const struct netdev *netdev, bool *carrier)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    *carrier = netdev_wg_events_carrier(wg);
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_get_custom_stats(const struct netdev *netdev,
                                  struct netdev_custom_stats *stats)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    netdev_wg_get_custom_stats(wg, stats);
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

static int
netdev_wireguard_update_flags(struct netdev *netdev, enum netdev_flags off,
                              enum netdev_flags on,
                              enum netdev_flags *old_flagsp)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    if ((off | on) & ~(NETDEV_UP | NETDEV_PROMISC)) {
        return EINVAL;
    }
    ovs_mutex_lock(&wg->flags_mutex);
    *old_flagsp = wg->flags;
    wg->flags = (wg->flags | on) & ~off;
    ovs_mutex_unlock(&wg->flags_mutex);
    if (*old_flagsp != ((*old_flagsp | on) & ~off)) {
        netdev_change_seq_changed(netdev);
    }
    return 0;
}

/* The datapath has closed the port's receive queues: as many open again
 * as configured. */
static int
netdev_wireguard_reconfigure(struct netdev *netdev)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    netdev->n_rxq = wg->cfg.n_rxq;
    netdev_wg_rx_set_n_rxq(wg, wg->cfg.n_rxq);
    netdev->n_txq = wg->requested_n_txq;
    netdev_wg_sock_set_n_txq(wg, wg->requested_n_txq);
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

/* Data path. */

/* As netdev-dpdk: each qid has its transmit queue, which a thread locks
 * only when OVS says that several share the qid.  Not a spinlock, as
 * netdev-dpdk's: a send may wait for the port's lock (wg->mutex), which
 * the main thread holds for whole reconfigurations, so the queue's lock is
 * an adaptive mutex, which spins briefly and then sleeps. */
static int
netdev_wireguard_send(struct netdev *netdev, int qid,
                      struct dp_packet_batch *batch, bool concurrent_txq)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);
    struct netdev_wg_txq *txq = wg->txqs[qid % wg->n_txq];

    if (OVS_UNLIKELY(concurrent_txq)) {
        ovs_mutex_lock(&txq->lock);
        netdev_wg_tx_send(wg, txq, batch);
        ovs_mutex_unlock(&txq->lock);
    } else {
        netdev_wg_tx_send(wg, txq, batch);
    }
    return 0;
}

/* OVS asks for one transmit queue per thread that may send to the port
 * (PMD threads and the main thread). */
static int
netdev_wireguard_set_tx_multiq(struct netdev *netdev, unsigned int n_txq)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&wg->mutex);
    n_txq = MAX(1, MIN(n_txq, NETDEV_WG_TXQ_MAX));
    if (n_txq != wg->requested_n_txq) {
        wg->requested_n_txq = n_txq;
        netdev_request_reconfigure(netdev);
    }
    ovs_mutex_unlock(&wg->mutex);
    return 0;
}

struct netdev_wireguard_rxq {
    struct netdev_rxq up;
};

static struct netdev_rxq *
netdev_wireguard_rxq_alloc(void)
{
    struct netdev_wireguard_rxq *rx = xzalloc(sizeof *rx);
    return &rx->up;
}

static int
netdev_wireguard_rxq_construct(struct netdev_rxq *rxq OVS_UNUSED)
{
    return 0;
}

static void
netdev_wireguard_rxq_destruct(struct netdev_rxq *rxq OVS_UNUSED)
{
}

static void
netdev_wireguard_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(CONTAINER_OF(rxq, struct netdev_wireguard_rxq, up));
}

static int
netdev_wireguard_rxq_recv(struct netdev_rxq *rxq,
                          struct dp_packet_batch *batch, int *qfill)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(rxq->netdev);
    int error;

    error = netdev_wg_rx_recv(wg, rxq->queue_id, batch);
    if (qfill) {
        *qfill = 0;
    }
    return error;
}

static void
netdev_wireguard_rxq_wait(struct netdev_rxq *rxq)
{
    struct netdev_wireguard *wg = netdev_wireguard_cast(rxq->netdev);

    ovs_mutex_lock(&wg->mutex);
    netdev_wg_rx_wait(wg, rxq->queue_id);
    ovs_mutex_unlock(&wg->mutex);
}

/* Timers and the UAPI socket, from the main loop. */

static void
netdev_wireguard_run(const struct netdev_class *class OVS_UNUSED)
{
    struct netdev_wireguard *wg;

    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        ovs_mutex_lock(&wg->mutex);
        wg->ctl_seq_seen = seq_read(wg->ctl_seq);
        netdev_wg_rx_handshakes(wg);
        wg_device_run(wg->dev);
        netdev_wg_bridge_run(wg);
        netdev_wg_uapi_run(wg);
        netdev_wg_events_run(wg);
        netdev_wg_sock_flush(wg);
        ovs_mutex_unlock(&wg->mutex);
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    netdev_wg_uapi_reap();
    netdev_wg_appctl_run();
}

static void
netdev_wireguard_wait(const struct netdev_class *class OVS_UNUSED)
{
    struct netdev_wireguard *wg;

    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        ovs_mutex_lock(&wg->mutex);
        long long int deadline = MIN(wg_device_next_deadline(wg->dev),
                                     bridge_l2_next_deadline(wg->l2));
        deadline = MIN(deadline, netdev_wg_events_next_scan(wg));
        if (deadline != LLONG_MAX) {
            poll_timer_wait_until(deadline);
        }
        if (wg->hs_n) {
            poll_immediate_wake();
        }
        seq_wait(wg->ctl_seq, wg->ctl_seq_seen);
        netdev_wg_uapi_wait(wg);
        ovs_mutex_unlock(&wg->mutex);
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    netdev_wg_uapi_reap_wait();
    netdev_wg_appctl_wait();
}

#define NETDEV_WIREGUARD_CLASS_COMMON                           \
    .alloc = netdev_wireguard_alloc,                            \
    .construct = netdev_wireguard_construct,                    \
    .destruct = netdev_wireguard_destruct,                      \
    .dealloc = netdev_wireguard_dealloc,                        \
    .get_config = netdev_wireguard_get_config,                  \
    .set_config = netdev_wireguard_set_config,                  \
    .reconfigure = netdev_wireguard_reconfigure,                \
    .set_tx_multiq = netdev_wireguard_set_tx_multiq,            \
    .send = netdev_wireguard_send,                              \
    .set_etheraddr = netdev_wireguard_set_etheraddr,            \
    .get_etheraddr = netdev_wireguard_get_etheraddr,            \
    .get_mtu = netdev_wireguard_get_mtu,                        \
    .set_mtu = netdev_wireguard_set_mtu,                        \
    .get_stats = netdev_wireguard_get_stats,                    \
    .get_custom_stats = netdev_wireguard_get_custom_stats,      \
    .get_carrier = netdev_wireguard_get_carrier,                \
    .get_status = netdev_wireguard_get_status,                  \
    .update_flags = netdev_wireguard_update_flags,              \
    .rxq_alloc = netdev_wireguard_rxq_alloc,                    \
    .rxq_construct = netdev_wireguard_rxq_construct,            \
    .rxq_destruct = netdev_wireguard_rxq_destruct,              \
    .rxq_dealloc = netdev_wireguard_rxq_dealloc,                \
    .rxq_recv = netdev_wireguard_rxq_recv,                      \
    .rxq_wait = netdev_wireguard_rxq_wait

/* Type "wireguard": the receive queues are polled by the main thread with
 * the other system ports.  Its run and wait hooks serve the ports of both
 * types (timers, UAPI sockets, appctl). */
const struct netdev_class netdev_wireguard_class = {
    .type = "wireguard",
    .is_pmd = false,
    .run = netdev_wireguard_run,
    .wait = netdev_wireguard_wait,
    NETDEV_WIREGUARD_CLASS_COMMON,
};

/* Type "wireguard-pmd": the same port, its receive queues polled by the
 * datapath's PMD threads (pmd-cpu-mask, pmd-rxq-affinity, pmd-sleep-max
 * apply), as OVS pairs "afxdp" and "afxdp-nonpmd". */
static const struct netdev_class netdev_wireguard_pmd_class = {
    .type = "wireguard-pmd",
    .is_pmd = true,
    NETDEV_WIREGUARD_CLASS_COMMON,
};

void
netdev_wireguard_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        if (wg_crypto_init()) {
            ovs_fatal(0, "wireguard: crypto libraries failed to start");
        }
        wg_test_hooks_read_env();      /* Test builds only. */
        netdev_register_provider(&netdev_wireguard_class);
        netdev_register_provider(&netdev_wireguard_pmd_class);
        netdev_wg_ul_register();
        netdev_wg_appctl_register();
        ovsthread_once_done(&once);
    }
}
