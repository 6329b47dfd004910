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
#include <string.h>

#include "netdev-wireguard-private.h"
#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_stats);

/* Per-port counters of a wireguard port: one per drop reason, bridge to
 * peer (tx_drop_*) and peer to bridge (rx_drop_*, the engine's reasons
 * included), and the protocol's events (handshakes, cookie replies,
 * sessions, rekeys).  Each drop reason logs at its own level (INFO for what
 * normal operation produces, WARN for failures) under its own rate limit,
 * so that one busy reason does not hide another. */

static const struct {
    const char *name;
    enum vlog_level level;
    const char *why;
} netdev_wg_counter_info[] = {
#define C(ENUM, NAME, LEVEL, WHY) { NAME, VLL_##LEVEL, WHY },
    NETDEV_WG_COUNTERS
#undef C
};

static struct vlog_rate_limit netdev_wg_counter_rl[] = {
#define C(ENUM, NAME, LEVEL, WHY) VLOG_RATE_LIMIT_INIT(5, 20),
    NETDEV_WG_COUNTERS
#undef C
};

static struct vlog_rate_limit netdev_wg_rx_rl[WG_DEVICE_N_RX] = {
    [0 ... WG_DEVICE_N_RX - 1] = VLOG_RATE_LIMIT_INIT(5, 20),
};

void
netdev_wg_counter_add(atomic_uint64_t *c, uint64_t n)
{
    uint64_t v;

    atomic_read_relaxed(c, &v);
    atomic_store_relaxed(c, v + n);
}

uint64_t
netdev_wg_counter_get(const atomic_uint64_t *c_)
{
    atomic_uint64_t *c = CONST_CAST(atomic_uint64_t *, c_);
    uint64_t v;

    atomic_read_relaxed(c, &v);
    return v;
}

void
netdev_wg_count(struct netdev_wireguard *wg, enum netdev_wg_counter c)
{
    netdev_wg_count_n(wg, c, 1);
}

void
netdev_wg_count_n(struct netdev_wireguard *wg, enum netdev_wg_counter c,
                  uint64_t n)
{
    wg->counters[c] += n;
    if (netdev_wg_counter_info[c].level != VLL_DBG) {
        VLOG_RL(&netdev_wg_counter_rl[c], netdev_wg_counter_info[c].level,
                "%s: %"PRIu64" packet(s) dropped (%s): %s",
                netdev_get_name(&wg->up), n, netdev_wg_counter_info[c].name,
                netdev_wg_counter_info[c].why);
    }
}

/* Formats the address of 'src' (nullable) into 'buf'. */
static const char *
netdev_wg_format_src(const struct sockaddr *src, char buf[INET6_ADDRSTRLEN])
{
    const void *addr = (!src ? NULL
                        : src->sa_family == AF_INET
                        ? (const void *) &ALIGNED_CAST(
                            const struct sockaddr_in *, src)->sin_addr
                        : src->sa_family == AF_INET6
                        ? (const void *) &ALIGNED_CAST(
                            const struct sockaddr_in6 *, src)->sin6_addr
                        : NULL);

    if (!addr || !inet_ntop(src->sa_family, addr, buf, INET6_ADDRSTRLEN)) {
        ovs_strlcpy(buf, "?", INET6_ADDRSTRLEN);
    }
    return buf;
}

void
netdev_wg_count_rx(struct netdev_wireguard *wg, enum wg_device_rx rx,
                   const struct sockaddr *src)
{
    char buf[INET6_ADDRSTRLEN];

    if (rx >= WG_DEVICE_N_RX) {
        return;
    }
    wg->rx_outcomes[rx]++;
    if (wg_device_rx_is_drop(rx)) {
        VLOG_INFO_RL(&netdev_wg_rx_rl[rx], "%s: datagram from %s dropped: %s",
                     netdev_get_name(&wg->up),
                     netdev_wg_format_src(src, buf), wg_device_rx_name(rx));
    }
}

/* Adds counter 'name' (with '-' made '_') of 'value' to 'stats'. */
static void
netdev_wg_put_counter(struct netdev_custom_stats *stats, const char *prefix,
                      const char *name, uint64_t value)
{
    struct netdev_custom_counter *c = &stats->counters[stats->size++];

    snprintf(c->name, sizeof c->name, "%s%s", prefix, name);
    for (char *p = c->name; *p; p++) {
        *p = *p == '-' ? '_' : *p;
    }
    c->value = value;
}

/* What each receive queue read: "rx_qN_packets" and "rx_qN_bytes". */
static void
netdev_wg_put_queue_counters(const struct netdev_wireguard *wg,
                             struct netdev_custom_stats *stats)
{
    for (int i = 0; i < wg->n_rxq; i++) {
        const struct netdev_wg_rxq *q = wg->rxqs[i];
        char prefix[16];

        snprintf(prefix, sizeof prefix, "rx_q%d_", i);
        netdev_wg_put_counter(stats, prefix, "packets",
                              q ? netdev_wg_counter_get(&q->counts.messages)
                              : 0);
        netdev_wg_put_counter(stats, prefix, "bytes",
                              q ? netdev_wg_counter_get(&q->counts.bytes)
                              : 0);
    }
}

void
netdev_wg_get_custom_stats(const struct netdev_wireguard *wg,
                           struct netdev_custom_stats *stats)
{
    stats->size = 0;
    stats->counters = xcalloc(NETDEV_WG_N_COUNTERS + WG_DEVICE_N_RX
                              + 2 * WG_CONFIG_N_RXQ_MAX,
                              sizeof *stats->counters);
    for (size_t i = 0; i < NETDEV_WG_N_COUNTERS; i++) {
        netdev_wg_put_counter(stats, "", netdev_wg_counter_info[i].name,
                              wg->counters[i]);
    }
    for (int rx = 0; rx < WG_DEVICE_N_RX; rx++) {
        if (rx != WG_DEVICE_RX_DATA) {
            netdev_wg_put_counter(stats, wg_device_rx_is_drop(rx)
                                  ? "rx_drop_" : "rx_",
                                  wg_device_rx_name(rx),
                                  wg->rx_outcomes[rx]);
        }
    }
    netdev_wg_put_queue_counters(wg, stats);
}
