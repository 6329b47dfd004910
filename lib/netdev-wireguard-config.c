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

#include "bridge-l2.h"
#include "coverage.h"
#include "netdev-wireguard-private.h"
#include "openvswitch/vlog.h"
#include "ovs-compat.h"
#include "smap.h"
#include "userspace-tso.h"
#include "util.h"
#include "wg-config.h"

/* The parts of a port's configuration that set_config checks and applies
 * itself (netdev-wireguard.c, above, calls them in order): the port's own
 * addresses, the MTU rule, the offloads it advertises, its data-path
 * AEAD ("aead"), and the log of the peers the configuration left out. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_config);

COVERAGE_DEFINE(wg_config_peer_error);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Smallest inner MTU: IPv4's minimum datagram size. */
#define NETDEV_WG_MIN_MTU 576

/* Offloads: the port segments and checksums itself, so it advertises TSO and
 * checksum offload whenever userspace-tso is on.  OVS can turn it on at any
 * time (never off without a restart), so this is checked on every
 * reconfiguration. */
void
netdev_wg_apply_offloads(struct netdev_wireguard *wg)
{
    if (userspace_tso_enabled() && !wg->tso) {
        ovs_compat_netdev_set_tso(&wg->up);
        wg->tso = true;
        netdev_change_seq_changed(&wg->up);
    }
}

/* The port's own addresses, for which it answers ARP and ND so guests can
 * use it as a gateway. */
int
netdev_wg_apply_addresses(struct netdev_wireguard *wg,
                          const struct wg_config *cfg, char **errp)
{
    char *err = bridge_l2_set_addresses(wg->l2, cfg->address);

    if (err) {
        *errp = xasprintf("address: %s", err);
        free(err);
        return EINVAL;
    }
    return 0;
}

/* Puts back the addresses of the configuration last applied (which were
 * valid then). */
void
netdev_wg_restore_addresses(struct netdev_wireguard *wg)
{
    free(bridge_l2_set_addresses(wg->l2, wg->cfg.address));
}

/* MTU rule: IPv6 needs an inner MTU of at least 1280. */

static bool
netdev_wg_peers_use_ipv6(const struct wg_config *cfg)
{
    const struct wg_config_peer *cp;

    HMAP_FOR_EACH (cp, node, &cfg->peers) {
        for (size_t i = 0; i < cp->n_allowed_ips; i++) {
            if (cp->allowed_ips[i].family == AF_INET6) {
                return true;
            }
        }
    }
    return false;
}

static bool
netdev_wg_addresses_use_ipv6(const struct netdev_wireguard *wg)
{
    for (size_t i = 0; i < bridge_l2_n_addresses(wg->l2); i++) {
        unsigned int plen;
        uint8_t addr[16];
        int family;

        bridge_l2_get_address(wg->l2, i, &family, addr, &plen);
        if (family == AF_INET6) {
            return true;
        }
    }
    return false;
}

/* The smallest inner MTU allowed with the database peers of 'cfg' and the
 * addresses the layer-2 adapter holds. */
int
netdev_wg_min_mtu(const struct netdev_wireguard *wg,
                  const struct wg_config *cfg)
{
    return (netdev_wg_peers_use_ipv6(cfg) || netdev_wg_addresses_use_ipv6(wg)
            ? NETDEV_WG_MIN_MTU_IPV6 : NETDEV_WG_MIN_MTU);
}

/* Fails a configuration 'cfg' that brings IPv6 to a port whose MTU is too
 * small for it. */
int
netdev_wg_config_check_mtu(const struct netdev_wireguard *wg,
                           const struct wg_config *cfg, char **errp)
{
    if (wg->mtu < netdev_wg_min_mtu(wg, cfg)) {
        *errp = xasprintf("inner MTU %d is below %d, which IPv6 (in "
                          "allowed_ips or address) requires: set "
                          "mtu_request to %d or more", wg->mtu,
                          NETDEV_WG_MIN_MTU_IPV6, NETDEV_WG_MIN_MTU_IPV6);
        return EINVAL;
    }
    return 0;
}

void
netdev_wg_log_peer_errors(const struct netdev_wireguard *wg,
                          const struct smap *errors)
{
    struct smap_node *node;

    SMAP_FOR_EACH (node, errors) {
        const char *old = smap_get(&wg->cfg.peer_errors, node->key);
        if (!old || strcmp(old, node->value)) {
            COVERAGE_INC(wg_config_peer_error);
            VLOG_WARN_RL(&rl, "%s: peer %s left out: %s",
                         netdev_get_name(&wg->up), node->key, node->value);
        }
    }
}

void
netdev_wg_apply_aead(struct netdev_wireguard *wg, const struct wg_config *cfg)
{
    enum wg_crypto_aead_backend b = (cfg->has_aead ? cfg->aead
                                     : wg_crypto_aead_default());

    if (wg_device_set_aead(wg->dev, b) || !wg->configured) {
        VLOG_INFO("%s: data-path ChaCha20-Poly1305: %s",
                  netdev_get_name(&wg->up), wg_crypto_aead_backend_name(b));
    }
}
