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

#include <string.h>

#include "netdev-wireguard-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_keys);

/* Key material of a wireguard port: the private key and the peers'
 * preshared keys, applied from the configuration when the port is
 * configured or its key options change, and from the key files again on
 * "wireguard/reload-keys".  A key file that cannot be used at such a
 * moment leaves the key in use (and the sessions made with it) as it is;
 * the reason stays in the port's status and is logged once per change. */

static struct vlog_rate_limit netdev_wg_keys_rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Logs 'error' (nullable) unless it is the same as 'old' (nullable). */
static void
netdev_wg_keys_log(const struct netdev_wireguard *wg, const char *error,
                   const char *old)
{
    if (error && (!old || strcmp(error, old))) {
        VLOG_WARN_RL(&netdev_wg_keys_rl, "%s: %s: the key in use stays",
                     netdev_get_name(&wg->up), error);
    }
}

/* Logs the key file errors of 'cfg' that the configuration in force did
 * not have. */
void
netdev_wg_keys_log_errors(const struct netdev_wireguard *wg,
                          const struct wg_config *cfg)
{
    struct wg_config_peer *cp;

    netdev_wg_keys_log(wg, cfg->private_key_error,
                       wg->configured ? wg->cfg.private_key_error : NULL);
    HMAP_FOR_EACH (cp, node, &cfg->peers) {
        const struct wg_config_peer *old = (wg->configured
                                            ? wg_config_find_peer(&wg->cfg,
                                                                  cp->name)
                                            : NULL);
        netdev_wg_keys_log(wg, cp->psk_error, old ? old->psk_error : NULL);
    }
}

/* True if keys ('has_a', 'a') and ('has_b', 'b') differ. */
static bool
netdev_wg_keys_differ(bool has_a, const uint8_t a[WG_KEY_LEN],
                      bool has_b, const uint8_t b[WG_KEY_LEN])
{
    return has_a != has_b || (has_a && !wg_crypto_equal(a, b, WG_KEY_LEN));
}

/* Gives the device the database's private key of 'cfg' if that changed
 * ('db_changed'), so that a key set through the UAPI stays until the
 * database's key changes. */
static void
netdev_wg_keys_set_private(struct netdev_wireguard *wg,
                           const struct wg_config *cfg, bool db_changed)
{
    uint8_t cur[WG_KEY_LEN];
    bool has_cur = wg_device_get_private_key(wg->dev, cur);

    if (db_changed && cfg->has_private_key
        && netdev_wg_keys_differ(has_cur, cur, true, cfg->private_key)) {
        netdev_wg_peer_remove_self(wg, cfg->private_key);
        wg_device_set_private_key(wg->dev, cfg->private_key);
    } else if (db_changed && !cfg->has_private_key && has_cur) {
        wg_device_set_private_key(wg->dev, NULL);
    }
    wg_crypto_wipe(cur, sizeof cur);
}

void
netdev_wg_keys_apply(struct netdev_wireguard *wg, const struct wg_config *cfg)
{
    netdev_wg_keys_set_private(wg, cfg,
                               !wg->configured
                               || netdev_wg_keys_differ(
                                   cfg->has_private_key, cfg->private_key,
                                   wg->cfg.has_private_key,
                                   wg->cfg.private_key));
}

/* Gives the device's peer of 'cp' the preshared key of 'cp' (reread from
 * its file) if it has changed from 'old'. */
static void
netdev_wg_keys_set_psk(struct netdev_wireguard *wg,
                       const struct wg_config_peer *cp,
                       const uint8_t old[WG_KEY_LEN])
{
    struct wg_peer *peer = wg_device_peer_lookup(wg->dev, cp->public_key);
    struct netdev_wg_peer *np = peer ? wg_device_peer_get_user_data(peer)
                                     : NULL;

    if (np && np->name && !strcmp(np->name, cp->name)
        && !wg_crypto_equal(old, cp->psk, WG_KEY_LEN)) {
        wg_device_peer_set_psk(wg->dev, peer, cp->psk);
    }
}

/* Rereads the preshared key files of the port's peers, reporting into
 * 'out'. */
static void
netdev_wg_keys_reload_psks(struct netdev_wireguard *wg, struct ds *out)
{
    struct wg_config_peer *cp;

    HMAP_FOR_EACH (cp, node, &wg->cfg.peers) {
        if (cp->psk_file) {
            uint8_t old[WG_KEY_LEN];
            char *old_error = nullable_xstrdup(cp->psk_error);

            memcpy(old, cp->psk, WG_KEY_LEN);
            wg_config_reload_psk(cp);
            netdev_wg_keys_log(wg, cp->psk_error, old_error);
            netdev_wg_keys_set_psk(wg, cp, old);
            ds_put_format(out, "peer %s: %s\n", cp->name,
                          cp->psk_error ? cp->psk_error : "reloaded");
            wg_crypto_wipe(old, sizeof old);
            free(old_error);
        }
    }
}

void
netdev_wg_keys_reload(struct netdev_wireguard *wg, struct ds *out)
{
    if (wg->cfg.private_key_file) {
        uint8_t old[WG_KEY_LEN];
        bool has_old = wg->cfg.has_private_key;
        char *old_error = nullable_xstrdup(wg->cfg.private_key_error);

        memcpy(old, wg->cfg.private_key, WG_KEY_LEN);
        wg_config_reload_private_key(&wg->cfg);
        netdev_wg_keys_log(wg, wg->cfg.private_key_error, old_error);
        netdev_wg_keys_set_private(wg, &wg->cfg,
                                   netdev_wg_keys_differ(
                                       has_old, old, wg->cfg.has_private_key,
                                       wg->cfg.private_key));
        ds_put_format(out, "private key: %s\n",
                      wg->cfg.private_key_error ? wg->cfg.private_key_error
                      : "reloaded");
        wg_crypto_wipe(old, sizeof old);
        free(old_error);
    }
    netdev_wg_keys_reload_psks(wg, out);
    netdev_change_seq_changed(&wg->up);    /* The status may differ. */
    if (!out->length) {
        ds_put_cstr(out, "no key files\n");
    }
}

void
netdev_wg_keys_status(const struct netdev_wireguard *wg, struct smap *smap)
{
    struct wg_config_peer *cp;

    if (wg->cfg.private_key_error) {
        smap_add(smap, "private_key_error", wg->cfg.private_key_error);
    }
    HMAP_FOR_EACH (cp, node, &wg->cfg.peers) {
        if (cp->psk_error) {
            smap_add_nocopy(smap, xasprintf("preshared_key_error.%s",
                                            cp->name),
                            xstrdup(cp->psk_error));
        }
    }
}
