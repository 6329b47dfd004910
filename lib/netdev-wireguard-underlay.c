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
#include <string.h>

#include "dp-packet.h"
#include "hash.h"
#include "netdev-wireguard-underlay.h"
#include "netdev-wireguard-underlay-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "pkt-pool.h"
#include "seq.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"

/* The companion netdev class of the datapath underlay (see
 * netdev-wireguard-underlay.h): its options, its pairing with a wireguard
 * port, its receive queue (frames for the underlay bridge), its send
 * (the bridge's frames for it), status and counters.
 *
 * Options (all but "wireguard" optional):
 *   wireguard=PORT     the wireguard port it serves; once both exist, the
 *                      port closes its UDP sockets and sends and receives
 *                      through the companion ("underlay=datapath" in its
 *                      status); removing the companion reopens them.
 *   mac=MAC            its Ethernet address (default: a locally
 *                      administered one derived from its name, stable
 *                      across restarts).
 *   ip=A.B.C.D/N       its IPv4 address on the underlay and the prefix of
 *                      the link; ip6=X:X::X/N the same for IPv6.
 *   gateway=A.B.C.D    next hop for endpoints off the prefix; gateway6=.
 * Its UDP port is the wireguard port's (listen_port, or the one it had).
 *
 * Pairing runs on the main thread: at configuration and, while the port
 * named does not exist, at each run of the class. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_underlay);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

static struct ovs_mutex netdev_wg_ul_list_mutex = OVS_MUTEX_INITIALIZER;
static struct ovs_list netdev_wg_ul_list
    OVS_GUARDED_BY(netdev_wg_ul_list_mutex)
    = OVS_LIST_INITIALIZER(&netdev_wg_ul_list);

static const char *const netdev_wg_ul_counter_names[] = {
#define C(ENUM, NAME) NAME,
    NETDEV_WG_UL_COUNTERS
#undef C
};

static const char *const netdev_wg_ul_dp_counter_names[] = {
#define C(ENUM, NAME) NAME,
    NETDEV_WG_UL_DP_COUNTERS
#undef C
};

static int netdev_wg_ul_construct(struct netdev *);

static struct netdev_wg_ul *
netdev_wg_ul_cast(const struct netdev *netdev)
{
    ovs_assert(netdev_get_class(netdev)->construct == netdev_wg_ul_construct);
    return CONTAINER_OF(netdev, struct netdev_wg_ul, up);
}

static struct netdev *
netdev_wg_ul_alloc(void)
{
    struct netdev_wg_ul *ul = xzalloc(sizeof *ul);
    return &ul->up;
}

/* A stable, locally administered MAC derived from 'name'. */
static struct eth_addr
netdev_wg_ul_default_mac(const char *name)
{
    uint32_t h = hash_string(name, 0x756c0000);
    struct eth_addr mac = ETH_ADDR_C(aa, 75, 6c, 00, 00, 00);

    mac.ea[3] = h >> 16;
    mac.ea[4] = h >> 8;
    mac.ea[5] = h;
    return mac;
}

static int
netdev_wg_ul_construct(struct netdev *netdev)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    ovs_mutex_init(&ul->mutex);
    ovs_mutex_init(&ul->dp_mutex);
    atomic_init(&ul->has_ip4, false);
    atomic_init(&ul->has_ip6, false);
    ovs_mutex_lock(&ul->mutex);
    ul->host.mac = netdev_wg_ul_default_mac(netdev_get_name(netdev));
    ul->host.mtu = NETDEV_WG_UL_MTU;
    ul->neigh = ul_neigh_create(NULL);
    ul->flags = NETDEV_UP;
    netdev->ol_flags |= NETDEV_TX_OFFLOAD_UDP_CKSUM;   /* See -rx.c. */
    ovs_mutex_unlock(&ul->mutex);
    ovs_mutex_lock(&ul->dp_mutex);
    netdev_wg_ring_init(&ul->to_dp, NETDEV_WG_UL_RING_MAX);
    ovs_mutex_unlock(&ul->dp_mutex);
    ul->dp_seq = seq_create();
    netdev_wg_ul_rx_init(ul);

    ovs_mutex_lock(&netdev_wg_ul_list_mutex);
    ovs_list_push_back(&netdev_wg_ul_list, &ul->list_node);
    ovs_mutex_unlock(&netdev_wg_ul_list_mutex);
    return 0;
}

/* Pairing. */

/* Unpairs 'ul' from its port, which reopens its sockets. */
static void
netdev_wg_ul_unpair(struct netdev_wg_ul *ul)
{
    struct netdev_wireguard *wg = ul->wg;

    if (wg) {
        ovs_mutex_lock(&wg->mutex);
        netdev_wg_sock_set_underlay(wg, NULL);
        ovs_mutex_unlock(&wg->mutex);
        netdev_change_seq_changed(&wg->up);
        VLOG_INFO("%s: %s sends through its UDP sockets again",
                  netdev_get_name(&ul->up), netdev_get_name(&wg->up));
        ul->wg = NULL;
    }
    netdev_wg_ul_set_paired(ul, false);
    netdev_wg_ul_rx_clear(ul);
}

/* Pairs 'ul' with the wireguard port it names, if it exists and is not
 * paired with another companion. */
static void
netdev_wg_ul_pair(struct netdev_wg_ul *ul)
{
    struct netdev_wireguard *wg, *found = NULL;
    uint16_t port = 0;

    if (ul->wg || !ul->wg_name) {
        return;
    }
    ovs_mutex_lock(&netdev_wg_list_mutex);
    LIST_FOR_EACH (wg, list_node, &netdev_wg_list) {
        if (!strcmp(netdev_get_name(&wg->up), ul->wg_name)) {
            ovs_mutex_lock(&wg->mutex);
            if (!wg->ul) {
                port = netdev_wg_sock_set_underlay(wg, ul);
                netdev_wg_ul_set_n_rxq(ul, wg->n_rxq);
                found = wg;
            }
            ovs_mutex_unlock(&wg->mutex);
            break;
        }
    }
    ovs_mutex_unlock(&netdev_wg_list_mutex);
    if (found) {
        ul->wg = found;
        netdev_wg_ul_set_port(ul, port);
        netdev_wg_ul_set_paired(ul, true);
        netdev_change_seq_changed(&found->up);
        netdev_change_seq_changed(&ul->up);
        VLOG_INFO("%s: %s sends and receives through the datapath "
                  "underlay (UDP port %"PRIu16"), its sockets closed",
                  netdev_get_name(&ul->up), ul->wg_name, port);
    }
}

void
netdev_wg_ul_port_gone(struct netdev_wireguard *wg)
{
    if (wg->ul) {
        wg->ul->wg = NULL;
        netdev_wg_ul_set_paired(wg->ul, false);
        netdev_change_seq_changed(&wg->ul->up);
        wg->ul = NULL;
    }
}

static void
netdev_wg_ul_destruct(struct netdev *netdev)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    ovs_mutex_lock(&netdev_wg_ul_list_mutex);
    ovs_list_remove(&ul->list_node);
    ovs_mutex_unlock(&netdev_wg_ul_list_mutex);

    netdev_wg_ul_unpair(ul);
    free(ul->wg_name);
    ovs_mutex_lock(&ul->mutex);
    netdev_wg_ul_tx_clear(ul);
    ul_neigh_destroy(ul->neigh);
    ovs_mutex_unlock(&ul->mutex);
    ovs_mutex_lock(&ul->dp_mutex);
    netdev_wg_ring_destroy(&ul->to_dp);
    ovs_mutex_unlock(&ul->dp_mutex);
    netdev_wg_ul_rx_destroy(ul);
    seq_destroy(ul->dp_seq);
    ovs_mutex_destroy(&ul->mutex);
    ovs_mutex_destroy(&ul->dp_mutex);
}

static void
netdev_wg_ul_dealloc(struct netdev *netdev)
{
    free(netdev_wg_ul_cast(netdev));
}

/* Configuration. */

/* What the options say. */
struct netdev_wg_ul_opts {
    const char *wg_name;
    struct eth_addr mac;
    bool has_mac;
    struct ul_neigh_route route;
};

static bool
netdev_wg_ul_is_option(const char *key)
{
    static const char *const keys[] = {
        "wireguard", "mac", "ip", "ip6", "gateway", "gateway6",
    };
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        if (!strcmp(key, keys[i])) {
            return true;
        }
    }
    return false;
}

/* Parses the addresses of 'args' into 'o'.  Returns an error message or
 * NULL. */
static char *
netdev_wg_ul_parse_addrs(const struct smap *args, struct netdev_wg_ul_opts *o)
{
    const char *ip = smap_get(args, "ip"), *ip6 = smap_get(args, "ip6");
    const char *gw = smap_get(args, "gateway");
    const char *gw6 = smap_get(args, "gateway6");
    ovs_be32 a4;
    char *err;

    if (ip) {
        err = ip_parse_cidr(ip, &a4, &o->route.plen4);
        if (err) {
            return err;
        }
        in6_addr_set_mapped_ipv4(&o->route.addr4, a4);
    }
    if (ip6) {
        err = ipv6_parse_cidr(ip6, &o->route.addr6, &o->route.plen6);
        if (err) {
            return err;
        }
    }
    if (gw) {
        if (!ip_parse(gw, &a4)) {
            return xasprintf("gateway \"%s\" is not an IPv4 address", gw);
        }
        in6_addr_set_mapped_ipv4(&o->route.gw4, a4);
    }
    if (gw6 && !ipv6_parse(gw6, &o->route.gw6)) {
        return xasprintf("gateway6 \"%s\" is not an IPv6 address", gw6);
    }
    return NULL;
}

/* Parses 'args' into 'o'.  Returns an error message or NULL. */
static char *
netdev_wg_ul_parse(const struct smap *args, struct netdev_wg_ul_opts *o)
{
    struct smap_node *node;
    const char *mac;

    memset(o, 0, sizeof *o);
    SMAP_FOR_EACH (node, args) {
        if (!netdev_wg_ul_is_option(node->key)) {
            return xasprintf("unknown option \"%s\"", node->key);
        }
    }
    o->wg_name = smap_get(args, "wireguard");
    if (!o->wg_name || !o->wg_name[0]) {
        return xstrdup("option \"wireguard\" (the wireguard port served) "
                       "is missing");
    }
    mac = smap_get(args, "mac");
    if (mac) {
        if (!eth_addr_from_string(mac, &o->mac)
            || eth_addr_is_multicast(o->mac) || eth_addr_is_zero(o->mac)) {
            return xasprintf("mac \"%s\" is not a unicast Ethernet address",
                             mac);
        }
        o->has_mac = true;
    }
    return netdev_wg_ul_parse_addrs(args, o);
}

static int
netdev_wg_ul_set_config(struct netdev *netdev, const struct smap *args,
                        char **errp)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);
    struct netdev_wg_ul_opts o;

    *errp = netdev_wg_ul_parse(args, &o);
    if (*errp) {
        return EINVAL;
    }
    if (!nullable_string_is_equal(ul->wg_name, o.wg_name)) {
        netdev_wg_ul_unpair(ul);
        free(ul->wg_name);
        ul->wg_name = xstrdup(o.wg_name);
    }
    ovs_mutex_lock(&ul->mutex);
    ul->host.mac = (o.has_mac ? o.mac
                    : netdev_wg_ul_default_mac(netdev_get_name(netdev)));
    ul->host.ip4 = in6_addr_get_mapped_ipv4(&o.route.addr4);
    ul->host.ip6 = o.route.addr6;
    ul->route = o.route;
    atomic_store_relaxed(&ul->has_ip4, ul->host.ip4 != 0);
    atomic_store_relaxed(&ul->has_ip6, ipv6_addr_is_set(&ul->host.ip6));
    ovs_mutex_unlock(&ul->mutex);
    netdev_wg_ul_pair(ul);
    netdev_change_seq_changed(netdev);
    return 0;
}

static int
netdev_wg_ul_get_config(const struct netdev *netdev, struct smap *args)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    if (ul->wg_name) {
        smap_add(args, "wireguard", ul->wg_name);
    }
    return 0;
}

/* Status and counters. */

/* Adds the host's addresses to 'smap'. */
static void
netdev_wg_ul_put_addrs(const struct netdev_wg_ul *ul, struct smap *smap)
    OVS_REQUIRES(ul->mutex)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    if (ul->host.ip4) {
        ds_put_format(&s, IP_FMT "/%u", IP_ARGS(ul->host.ip4),
                      ul->route.plen4);
        smap_add(smap, "ip", ds_cstr(&s));
        ds_clear(&s);
    }
    if (ipv6_addr_is_set(&ul->host.ip6)) {
        ipv6_format_addr(&ul->host.ip6, &s);
        ds_put_format(&s, "/%u", ul->route.plen6);
        smap_add(smap, "ip6", ds_cstr(&s));
    }
    ds_destroy(&s);
}

static int
netdev_wg_ul_get_status(const struct netdev *netdev, struct smap *smap)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    smap_add(smap, "wireguard", ul->wg_name ? ul->wg_name : "");
    smap_add(smap, "paired", ul->wg ? "true" : "false");
    ovs_mutex_lock(&ul->mutex);
    smap_add_format(smap, "mac", ETH_ADDR_FMT, ETH_ADDR_ARGS(ul->host.mac));
    netdev_wg_ul_put_addrs(ul, smap);
    smap_add_format(smap, "udp_port", "%"PRIu16, ul->host.port);
    smap_add_format(smap, "neighbors", "%"PRIuSIZE,
                    ul_neigh_count(ul->neigh));
    smap_add_format(smap, "held", "%"PRIuSIZE, ul->n_held);
    ovs_mutex_unlock(&ul->mutex);
    return 0;
}

static void
netdev_wg_ul_put(struct netdev_custom_stats *stats, const char *name,
                 uint64_t value)
{
    struct netdev_custom_counter *c = &stats->counters[stats->size++];

    ovs_strlcpy(c->name, name, sizeof c->name);
    c->value = value;
}

/* The neighbour cache's counters. */
static void
netdev_wg_ul_put_neigh(const struct netdev_wg_ul *ul,
                       struct netdev_custom_stats *stats)
    OVS_REQUIRES(ul->mutex)
{
    struct ul_neigh_stats s;

    ul_neigh_get_stats(ul->neigh, &s);
    netdev_wg_ul_put(stats, "ul_neigh_learned", s.learned);
    netdev_wg_ul_put(stats, "ul_neigh_confirmed", s.confirmed);
    netdev_wg_ul_put(stats, "ul_neigh_evicted", s.evicted);
    netdev_wg_ul_put(stats, "ul_neigh_expired", s.expired);
    netdev_wg_ul_put(stats, "ul_neigh_failed", s.failed);
    netdev_wg_ul_put(stats, "ul_neigh_pending_full", s.pending_full);
}

static int
netdev_wg_ul_get_custom_stats(const struct netdev *netdev,
                              struct netdev_custom_stats *stats)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    stats->size = 0;
    stats->counters = xcalloc(UL_FRAME_N_REASONS + NETDEV_WG_UL_N_COUNTERS
                              + NETDEV_WG_UL_N_DP_COUNTERS + 6,
                              sizeof *stats->counters);
    ovs_mutex_lock(&ul->mutex);
    for (int r = UL_FRAME_R_OK + 1; r < UL_FRAME_N_REASONS; r++) {
        netdev_wg_ul_put(stats, ul_frame_reason_name(r),
                         ul->drops.reasons[r]);
    }
    for (int i = 0; i < NETDEV_WG_UL_N_COUNTERS; i++) {
        netdev_wg_ul_put(stats, netdev_wg_ul_counter_names[i],
                         ul->counters[i]);
    }
    netdev_wg_ul_put_neigh(ul, stats);
    ovs_mutex_unlock(&ul->mutex);
    ovs_mutex_lock(&ul->dp_mutex);
    for (int i = 0; i < NETDEV_WG_UL_N_DP_COUNTERS; i++) {
        netdev_wg_ul_put(stats, netdev_wg_ul_dp_counter_names[i],
                         ul->dp_counters[i]);
    }
    ovs_mutex_unlock(&ul->dp_mutex);
    return 0;
}

static int
netdev_wg_ul_get_stats(const struct netdev *netdev, struct netdev_stats *st)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);
    uint64_t drops = 0;

    memset(st, 0, sizeof *st);
    ovs_mutex_lock(&ul->mutex);
    st->tx_packets = ul->tx_packets;
    st->tx_bytes = ul->tx_bytes;
    for (int r = UL_FRAME_R_OK + 1; r < UL_FRAME_N_REASONS; r++) {
        drops += ul->drops.reasons[r];
    }
    st->tx_dropped = drops + ul->counters[NETDEV_WG_UL_RX_RING_FULL];
    ovs_mutex_unlock(&ul->mutex);
    ovs_mutex_lock(&ul->dp_mutex);
    st->rx_packets = ul->rx_packets;
    st->rx_bytes = ul->rx_bytes;
    ovs_mutex_unlock(&ul->dp_mutex);
    return 0;
}

/* Ethernet-level properties. */

static int
netdev_wg_ul_get_etheraddr(const struct netdev *netdev, struct eth_addr *mac)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    ovs_mutex_lock(&ul->mutex);
    *mac = ul->host.mac;
    ovs_mutex_unlock(&ul->mutex);
    return 0;
}

static int
netdev_wg_ul_set_etheraddr(struct netdev *netdev, const struct eth_addr mac)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    ovs_mutex_lock(&ul->mutex);
    ul->host.mac = mac;
    ovs_mutex_unlock(&ul->mutex);
    netdev_change_seq_changed(netdev);
    return 0;
}

static int
netdev_wg_ul_get_mtu(const struct netdev *netdev, int *mtu)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    ovs_mutex_lock(&ul->mutex);
    *mtu = ul->host.mtu;
    ovs_mutex_unlock(&ul->mutex);
    return 0;
}

static int
netdev_wg_ul_set_mtu(struct netdev *netdev, int mtu)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    if (mtu < 1280 || mtu > UINT16_MAX) {
        VLOG_WARN_RL(&rl, "%s: MTU %d is outside 1280..65535",
                     netdev_get_name(netdev), mtu);
        return EINVAL;
    }
    ovs_mutex_lock(&ul->mutex);
    ul->host.mtu = mtu;
    ovs_mutex_unlock(&ul->mutex);
    netdev_change_seq_changed(netdev);
    return 0;
}

static int
netdev_wg_ul_get_carrier(const struct netdev *netdev, bool *carrier)
{
    *carrier = netdev_wg_ul_cast(netdev)->wg != NULL;
    return 0;
}

static int
netdev_wg_ul_update_flags(struct netdev *netdev, enum netdev_flags off,
                          enum netdev_flags on, enum netdev_flags *old_flagsp)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(netdev);

    if ((off | on) & ~(NETDEV_UP | NETDEV_PROMISC)) {
        return EINVAL;
    }
    ovs_mutex_lock(&ul->mutex);
    *old_flagsp = ul->flags;
    ul->flags = (ul->flags | on) & ~off;
    ovs_mutex_unlock(&ul->mutex);
    return 0;
}

/* Data path. */

static int
netdev_wg_ul_send_frames(struct netdev *netdev, int qid OVS_UNUSED,
                         struct dp_packet_batch *batch,
                         bool concurrent_txq OVS_UNUSED)
{
    netdev_wg_ul_rx_frames(netdev_wg_ul_cast(netdev), batch);
    return 0;
}

struct netdev_wg_ul_rxq {
    struct netdev_rxq up;
};

static struct netdev_rxq *
netdev_wg_ul_rxq_alloc(void)
{
    struct netdev_wg_ul_rxq *rx = xzalloc(sizeof *rx);
    return &rx->up;
}

static int
netdev_wg_ul_rxq_construct(struct netdev_rxq *rxq OVS_UNUSED)
{
    return 0;
}

static void
netdev_wg_ul_rxq_destruct(struct netdev_rxq *rxq OVS_UNUSED)
{
}

static void
netdev_wg_ul_rxq_dealloc(struct netdev_rxq *rxq)
{
    free(CONTAINER_OF(rxq, struct netdev_wg_ul_rxq, up));
}

/* Moves at most NETDEV_MAX_BURST frames into 'batch', all of the source
 * of the first (pkt-pool.h). */
static int
netdev_wg_ul_rxq_recv(struct netdev_rxq *rxq, struct dp_packet_batch *batch,
                      int *qfill)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(rxq->netdev);
    struct dp_packet *pkt;

    ovs_mutex_lock(&ul->dp_mutex);
    netdev_wg_ring_pop_batch(&ul->to_dp, batch);
    DP_PACKET_BATCH_FOR_EACH (i, pkt, batch) {
        ul->rx_packets++;
        ul->rx_bytes += dp_packet_size(pkt);
    }
    if (qfill) {
        *qfill = ul->to_dp.n;
    }
    ovs_mutex_unlock(&ul->dp_mutex);
    return dp_packet_batch_is_empty(batch) ? EAGAIN : 0;
}

static void
netdev_wg_ul_rxq_wait(struct netdev_rxq *rxq)
{
    struct netdev_wg_ul *ul = netdev_wg_ul_cast(rxq->netdev);
    uint64_t seq = seq_read(ul->dp_seq);
    bool waiting;

    ovs_mutex_lock(&ul->dp_mutex);
    waiting = ul->to_dp.n > 0;
    ovs_mutex_unlock(&ul->dp_mutex);
    if (waiting) {
        poll_immediate_wake();
    } else {
        seq_wait(ul->dp_seq, seq);
    }
}

/* Timers and pairing, from the main loop. */

static void
netdev_wg_ul_run(const struct netdev_class *class OVS_UNUSED)
{
    long long int now = time_msec();
    struct netdev_wg_ul *ul;

    ovs_mutex_lock(&netdev_wg_ul_list_mutex);
    LIST_FOR_EACH (ul, list_node, &netdev_wg_ul_list) {
        netdev_wg_ul_pair(ul);
        ovs_mutex_lock(&ul->mutex);
        netdev_wg_ul_tx_run(ul, now);
        ovs_mutex_unlock(&ul->mutex);
    }
    ovs_mutex_unlock(&netdev_wg_ul_list_mutex);
}

static void
netdev_wg_ul_wait(const struct netdev_class *class OVS_UNUSED)
{
    struct netdev_wg_ul *ul;

    ovs_mutex_lock(&netdev_wg_ul_list_mutex);
    LIST_FOR_EACH (ul, list_node, &netdev_wg_ul_list) {
        long long int deadline;

        if (!ul->wg && ul->wg_name) {
            /* The port may come: look again within a second. */
            poll_timer_wait(1000);
        }
        ovs_mutex_lock(&ul->mutex);
        deadline = netdev_wg_ul_tx_deadline(ul);
        ovs_mutex_unlock(&ul->mutex);
        if (deadline != LLONG_MAX) {
            poll_timer_wait_until(deadline);
        }
    }
    ovs_mutex_unlock(&netdev_wg_ul_list_mutex);
}

#define NETDEV_WG_UL_CLASS_COMMON                               \
    .alloc = netdev_wg_ul_alloc,                                \
    .construct = netdev_wg_ul_construct,                        \
    .destruct = netdev_wg_ul_destruct,                          \
    .dealloc = netdev_wg_ul_dealloc,                            \
    .get_config = netdev_wg_ul_get_config,                      \
    .set_config = netdev_wg_ul_set_config,                      \
    .send = netdev_wg_ul_send_frames,                           \
    .set_etheraddr = netdev_wg_ul_set_etheraddr,                \
    .get_etheraddr = netdev_wg_ul_get_etheraddr,                \
    .get_mtu = netdev_wg_ul_get_mtu,                            \
    .set_mtu = netdev_wg_ul_set_mtu,                            \
    .get_stats = netdev_wg_ul_get_stats,                        \
    .get_custom_stats = netdev_wg_ul_get_custom_stats,          \
    .get_carrier = netdev_wg_ul_get_carrier,                    \
    .get_status = netdev_wg_ul_get_status,                      \
    .update_flags = netdev_wg_ul_update_flags,                  \
    .rxq_alloc = netdev_wg_ul_rxq_alloc,                        \
    .rxq_construct = netdev_wg_ul_rxq_construct,                \
    .rxq_destruct = netdev_wg_ul_rxq_destruct,                  \
    .rxq_dealloc = netdev_wg_ul_rxq_dealloc,                    \
    .rxq_recv = netdev_wg_ul_rxq_recv,                          \
    .rxq_wait = netdev_wg_ul_rxq_wait

/* Polled by the main thread, like type "wireguard"; its run and wait hooks
 * serve the companions of both types. */
static const struct netdev_class netdev_wg_ul_class = {
    .type = "wireguard-underlay",
    .is_pmd = false,
    .run = netdev_wg_ul_run,
    .wait = netdev_wg_ul_wait,
    NETDEV_WG_UL_CLASS_COMMON,
};

/* Polled by PMD threads, like type "wireguard-pmd". */
static const struct netdev_class netdev_wg_ul_pmd_class = {
    .type = "wireguard-underlay-pmd",
    .is_pmd = true,
    NETDEV_WG_UL_CLASS_COMMON,
};

void
netdev_wg_ul_register(void)
{
    netdev_register_provider(&netdev_wg_ul_class);
    netdev_register_provider(&netdev_wg_ul_pmd_class);
}
