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

#include "netdev-wireguard-private.h"
#include "openvswitch/hmap.h"
#include "smap.h"
#include "sset.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"

/* Peers of a wireguard port: the port-side state attached to each
 * struct wg_peer, and bringing the device's peers in line with the
 * database options (only peers whose options changed are touched). */

struct netdev_wg_peer *
netdev_wg_peer_create(const char *name, const char *fingerprint)
{
    struct netdev_wg_peer *np = xzalloc(sizeof *np);

    np->name = nullable_xstrdup(name);
    np->fingerprint = nullable_xstrdup(fingerprint);
    netdev_wg_ring_init(&np->queue, NETDEV_WG_PEER_QUEUE_MAX);
    return np;
}

void
netdev_wg_peer_destroy(struct netdev_wireguard *wg,
                       struct netdev_wg_peer *np)
{
    if (np) {
        wg->n_queued -= np->queue.n;
        netdev_wg_ring_destroy(&np->queue);
        netdev_wg_dns_destroy(np);
        free(np->name);
        free(np->fingerprint);
        free(np);
    }
}

/* Returns the port state of 'peer', creating it (as a peer not managed by
 * OVSDB) if the UAPI added the peer. */
struct netdev_wg_peer *
netdev_wg_peer_of(struct wg_peer *peer)
{
    struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);

    if (!np) {
        np = netdev_wg_peer_create(NULL, NULL);
        wg_device_peer_set_user_data(peer, np);
    }
    return np;
}

/* Lets go of what port 'wg_' attached to 'peer', which is being removed. */
static void
netdev_wg_peer_detach(void *wg_, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = wg_;

    netdev_wg_peer_destroy(wg, wg_device_peer_get_user_data(peer));
    wg_device_peer_set_user_data(peer, NULL);
}

static void
netdev_wg_peer_remove(struct netdev_wireguard *wg, struct wg_peer *peer)
{
    netdev_wg_peer_detach(wg, peer);
    wg_device_peer_remove(wg->dev, peer);
}

void
netdev_wg_peer_remove_self(struct netdev_wireguard *wg,
                           const uint8_t priv[WG_KEY_LEN])
{
    wg_device_peer_remove_own(wg->dev, priv, netdev_wg_peer_detach, wg);
}

void
netdev_wg_peers_clear(struct netdev_wireguard *wg)
{
    struct wg_peer *peer;

    while ((peer = wg_device_peer_first(wg->dev))) {
        netdev_wg_peer_remove(wg, peer);
    }
}

static bool
netdev_wg_peer_has_key(struct netdev_wireguard *wg,
                       const struct wg_peer *peer, const uint8_t *key)
{
    return wg_device_peer_lookup(wg->dev, key) == peer;
}

/* Sets everything but the public key of 'peer' from 'cp'.  Returns NULL or
 * a reason the peer cannot be used (caller frees). */
static char *
netdev_wg_peer_apply(struct netdev_wireguard *wg, struct wg_peer *peer,
                     const struct wg_config_peer *cp)
{
    wg_device_peer_set_psk(wg->dev, peer, cp->has_psk ? cp->psk : NULL);
    netdev_wg_dns_set(netdev_wg_peer_of(peer), cp->endpoint_host,
                      cp->endpoint_port);
    if (cp->endpoint_len) {
        wg_device_peer_set_endpoint(wg->dev, peer,
                                    (const struct sockaddr *) &cp->endpoint,
                                    cp->endpoint_len);
    }
    wg_device_peer_allowed_ips_clear(wg->dev, peer);
    for (size_t i = 0; i < cp->n_allowed_ips; i++) {
        const struct wg_addr_prefix *p = &cp->allowed_ips[i];
        int error = wg_device_peer_allowed_ip_add(wg->dev, peer, p->family,
                                                  p->addr, p->len);
        if (error) {
            return xasprintf("allowed IP %d of %"PRIuSIZE" rejected (%s)",
                             (int) i + 1, cp->n_allowed_ips,
                             ovs_strerror(error));
        }
    }
    wg_device_peer_set_persistent_keepalive(wg->dev, peer,
                                            cp->persistent_keepalive);
    return NULL;
}

/* Adds the OVSDB peer 'cp' to the device, or adopts a peer with the same
 * public key that the UAPI added.  Returns NULL or a reason. */
static char *
netdev_wg_peer_add(struct netdev_wireguard *wg,
                   const struct wg_config_peer *cp)
{
    struct wg_peer *peer = wg_device_peer_lookup(wg->dev, cp->public_key);
    struct netdev_wg_peer *np;
    char *err;

    if (peer) {
        np = wg_device_peer_get_user_data(peer);
        if (np && np->name) {
            return xasprintf("public_key is the same as peer \"%s\"",
                             np->name);
        }
    } else {
        int error = wg_device_peer_add(wg->dev, cp->public_key, &peer);
        if (error) {
            return xasprintf("public_key cannot be used (%s)",
                             error == EINVAL ? "low-order or own key"
                             : ovs_strerror(error));
        }
    }
    np = netdev_wg_peer_of(peer);
    free(np->name);
    np->name = xstrdup(cp->name);
    free(np->fingerprint);
    np->fingerprint = xstrdup(cp->fingerprint);
    err = netdev_wg_peer_apply(wg, peer, cp);
    if (err) {
        netdev_wg_peer_remove(wg, peer);
    }
    return err;
}

/* Removes the device's OVSDB-managed peers that are gone from 'cfg' or
 * whose options changed (unless they can be updated in place).  Adds the
 * names of those that stay to 'kept'. */
static void
netdev_wg_update_peers(struct netdev_wireguard *wg, struct wg_config *cfg,
                       struct sset *kept)
{
    struct wg_peer *peer, *next;

    for (peer = wg_device_peer_first(wg->dev); peer; peer = next) {
        struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);
        struct wg_config_peer *cp;

        next = wg_device_peer_next(wg->dev, peer);
        if (!np || !np->name) {
            continue;           /* Added through the UAPI: left alone. */
        }
        cp = wg_config_find_peer(cfg, np->name);
        if (cp && !strcmp(cp->fingerprint, np->fingerprint)) {
            sset_add(kept, np->name);
            continue;           /* Unchanged: keeps its sessions. */
        }
        if (cp && netdev_wg_peer_has_key(wg, peer, cp->public_key)) {
            char *err = netdev_wg_peer_apply(wg, peer, cp);
            free(np->fingerprint);
            np->fingerprint = xstrdup(cp->fingerprint);
            if (!err) {
                sset_add(kept, np->name);
                continue;
            }
            smap_replace_nocopy(&cfg->peer_errors, cp->name, err);
        }
        netdev_wg_peer_remove(wg, peer);
    }
}

/* Brings the device's OVSDB-managed peers in line with 'cfg', touching only
 * peers whose options changed, in time proportional to the number of peers.
 * Reasons for peers that cannot be used go into cfg->peer_errors. */
void
netdev_wg_apply_peers(struct netdev_wireguard *wg, struct wg_config *cfg)
{
    struct sset kept = SSET_INITIALIZER(&kept);
    struct wg_config_peer *cp;

    netdev_wg_update_peers(wg, cfg, &kept);

    /* Add new and changed peers, except those removed through the UAPI
     * whose database options did not change since. */
    HMAP_FOR_EACH (cp, node, &cfg->peers) {
        const char *removed = smap_get(&wg->uapi_removed, cp->name);
        if (removed && !strcmp(removed, cp->fingerprint)) {
            continue;
        }
        smap_remove(&wg->uapi_removed, cp->name);
        if (!sset_contains(&kept, cp->name)) {
            char *err = netdev_wg_peer_add(wg, cp);
            if (err) {
                smap_replace_nocopy(&cfg->peer_errors, cp->name, err);
            }
        }
    }
    sset_destroy(&kept);
}
