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

#include "coverage.h"
#include "dp-packet.h"
#include "hash.h"
#include "netdev-provider.h"
#include "openvswitch/vlog.h"
#include "ovs-thread.h"
#include "packets.h"
#include "smap.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard);

COVERAGE_DEFINE(wg_tx_drop_no_engine);

/* Inner MTU of a WireGuard port unless mtu_request says otherwise: 1500
 * minus the outer IPv6 (40), UDP (8) and WireGuard data (32) overhead. */
#define NETDEV_WG_DEFAULT_MTU 1420
#define NETDEV_WG_MIN_MTU 576
#define NETDEV_WG_MAX_MTU 9000

struct netdev_wireguard {
    struct netdev up;

    struct ovs_mutex mutex;
    struct eth_addr mac OVS_GUARDED;
    int mtu OVS_GUARDED;
    enum netdev_flags flags OVS_GUARDED;
    struct netdev_stats stats OVS_GUARDED;
    struct smap options OVS_GUARDED;    /* Last applied options. */
};

struct netdev_wireguard_rxq {
    struct netdev_rxq up;
};

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
    struct netdev_wireguard *dev = xzalloc(sizeof *dev);
    return &dev->up;
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

static int
netdev_wireguard_construct(struct netdev *netdev)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_init(&dev->mutex);
    dev->mac = netdev_wireguard_stable_mac(netdev_get_name(netdev));
    dev->mtu = NETDEV_WG_DEFAULT_MTU;
    dev->flags = 0;
    smap_init(&dev->options);
    return 0;
}

static void
netdev_wireguard_destruct(struct netdev *netdev)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    smap_destroy(&dev->options);
    ovs_mutex_destroy(&dev->mutex);
}

static void
netdev_wireguard_dealloc(struct netdev *netdev)
{
    free(netdev_wireguard_cast(netdev));
}

static int
netdev_wireguard_get_config(const struct netdev *netdev, struct smap *args)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);
    struct smap_node *node;

    ovs_mutex_lock(&dev->mutex);
    SMAP_FOR_EACH (node, &dev->options) {
        /* Never echo key material back into the database or logs. */
        if (!strstr(node->key, "private_key")
            && !strstr(node->key, "preshared_key")) {
            smap_add(args, node->key, node->value);
        }
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_set_config(struct netdev *netdev, const struct smap *args,
                            char **errp OVS_UNUSED)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    smap_destroy(&dev->options);
    smap_clone(&dev->options, args);
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_send(struct netdev *netdev, int qid OVS_UNUSED,
                      struct dp_packet_batch *batch,
                      bool concurrent_txq OVS_UNUSED)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);
    size_t n = dp_packet_batch_size(batch);

    /* No protocol engine behind the port yet: count and drop. */
    ovs_mutex_lock(&dev->mutex);
    dev->stats.tx_dropped += n;
    ovs_mutex_unlock(&dev->mutex);
    COVERAGE_ADD(wg_tx_drop_no_engine, n);
    dp_packet_delete_batch(batch, true);
    return 0;
}

static int
netdev_wireguard_set_etheraddr(struct netdev *netdev,
                               const struct eth_addr mac)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    if (!eth_addr_equals(dev->mac, mac)) {
        dev->mac = mac;
        netdev_change_seq_changed(netdev);
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_get_etheraddr(const struct netdev *netdev,
                               struct eth_addr *mac)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    *mac = dev->mac;
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_get_mtu(const struct netdev *netdev, int *mtup)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    *mtup = dev->mtu;
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_set_mtu(struct netdev *netdev, int mtu)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    if (mtu < NETDEV_WG_MIN_MTU || mtu > NETDEV_WG_MAX_MTU) {
        return EINVAL;
    }
    ovs_mutex_lock(&dev->mutex);
    if (dev->mtu != mtu) {
        dev->mtu = mtu;
        netdev_change_seq_changed(netdev);
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_get_stats(const struct netdev *netdev,
                           struct netdev_stats *stats)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    ovs_mutex_lock(&dev->mutex);
    *stats = dev->stats;
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

static int
netdev_wireguard_update_flags(struct netdev *netdev, enum netdev_flags off,
                              enum netdev_flags on,
                              enum netdev_flags *old_flagsp)
{
    struct netdev_wireguard *dev = netdev_wireguard_cast(netdev);

    if ((off | on) & ~(NETDEV_UP | NETDEV_PROMISC)) {
        return EINVAL;
    }
    ovs_mutex_lock(&dev->mutex);
    *old_flagsp = dev->flags;
    dev->flags = (dev->flags | on) & ~off;
    if (dev->flags != *old_flagsp) {
        netdev_change_seq_changed(netdev);
    }
    ovs_mutex_unlock(&dev->mutex);
    return 0;
}

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
netdev_wireguard_rxq_recv(struct netdev_rxq *rxq OVS_UNUSED,
                          struct dp_packet_batch *batch OVS_UNUSED,
                          int *qfill)
{
    if (qfill) {
        *qfill = 0;
    }
    return EAGAIN;
}

static void
netdev_wireguard_rxq_wait(struct netdev_rxq *rxq OVS_UNUSED)
{
}

const struct netdev_class netdev_wireguard_class = {
    .type = "wireguard",
    .is_pmd = false,
    .alloc = netdev_wireguard_alloc,
    .construct = netdev_wireguard_construct,
    .destruct = netdev_wireguard_destruct,
    .dealloc = netdev_wireguard_dealloc,
    .get_config = netdev_wireguard_get_config,
    .set_config = netdev_wireguard_set_config,
    .send = netdev_wireguard_send,
    .set_etheraddr = netdev_wireguard_set_etheraddr,
    .get_etheraddr = netdev_wireguard_get_etheraddr,
    .get_mtu = netdev_wireguard_get_mtu,
    .set_mtu = netdev_wireguard_set_mtu,
    .get_stats = netdev_wireguard_get_stats,
    .update_flags = netdev_wireguard_update_flags,
    .rxq_alloc = netdev_wireguard_rxq_alloc,
    .rxq_construct = netdev_wireguard_rxq_construct,
    .rxq_destruct = netdev_wireguard_rxq_destruct,
    .rxq_dealloc = netdev_wireguard_rxq_dealloc,
    .rxq_recv = netdev_wireguard_rxq_recv,
    .rxq_wait = netdev_wireguard_rxq_wait,
};

void
netdev_wireguard_register(void)
{
    static struct ovsthread_once once = OVSTHREAD_ONCE_INITIALIZER;

    if (ovsthread_once_start(&once)) {
        netdev_register_provider(&netdev_wireguard_class);
        ovsthread_once_done(&once);
    }
}
