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
#include <string.h>

#include "netdev-wireguard-private.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"
#include "wg-device.h"
#include "wg-uapi.h"

/* The UAPI socket of a wireguard port, so that `wg show PORT` and
 * `wg set PORT ...` work.  The directory is the interface's
 * options:uapi_dir, by default /var/run/wireguard (where wg(8) looks).  A
 * relative directory is relative to OVS's run directory, which keeps
 * sandboxes apart (the test suite's ports use "wireguard").
 *
 * Run-time changes made through the socket stay until the database options
 * of what they changed change (see netdev-wireguard.c); a database peer
 * removed through the socket stays removed until its options change. */

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_uapi);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(1, 5);

static uint16_t
netdev_wg_uapi_get_listen_port(void *aux)
{
    struct netdev_wireguard *wg = aux;
    return wg->bound_port;
}

static int
netdev_wg_uapi_set_listen_port(void *aux, uint16_t port)
{
    return netdev_wg_sock_set_listen_port(aux, port);
}

/* Run-time changes show in the interface's status column, which Open
 * vSwitch reads (netdev_wireguard_get_status(), a walk over every peer)
 * each time the port says it changed.  A request that changes 10,000
 * peers, a slice of them per main loop run, would have it read every run,
 * starving the forwarding that shares the main thread: so a change is
 * noted here and told at most once per NETDEV_WG_UAPI_STATUS_MS, the
 * first at once (netdev_wg_uapi_run()). */
#define NETDEV_WG_UAPI_STATUS_MS 500

static void
netdev_wg_uapi_changed(void *aux)
{
    struct netdev_wireguard *wg = aux;
    wg->uapi_changed = true;
}

/* Tells a change noted by netdev_wg_uapi_changed(), if it is time. */
static void
netdev_wg_uapi_tell(struct netdev_wireguard *wg)
{
    long long int now = time_msec();

    if (wg->uapi_changed && now >= wg->uapi_status_next) {
        wg->uapi_changed = false;
        wg->uapi_status_next = now + NETDEV_WG_UAPI_STATUS_MS;
        netdev_change_seq_changed(&wg->up);
    }
}

static void
netdev_wg_uapi_peer_changed(void *aux, struct wg_peer *peer OVS_UNUSED)
{
    netdev_wg_uapi_changed(aux);
}

static void
netdev_wg_uapi_peer_removing(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);

    if (np && np->name) {
        smap_replace(&wg->uapi_removed, np->name, np->fingerprint);
    }
    netdev_wg_peer_destroy(wg, np);
    wg_device_peer_set_user_data(peer, NULL);
    netdev_wg_uapi_changed(wg);
}

static const struct wg_uapi_hooks netdev_wg_uapi_hooks = {
    .get_listen_port = netdev_wg_uapi_get_listen_port,
    .set_listen_port = netdev_wg_uapi_set_listen_port,
    .private_key_changed = netdev_wg_uapi_changed,
    .peer_changed = netdev_wg_uapi_peer_changed,
    .peer_removing = netdev_wg_uapi_peer_removing,
    .peers_replaced = netdev_wg_uapi_changed,
};

static const char *
netdev_wg_uapi_dir(const struct wg_config *cfg)
{
    return cfg->uapi_dir ? cfg->uapi_dir : WG_UAPI_DEFAULT_DIR;
}

static void
netdev_wg_uapi_forget(struct netdev_wireguard *wg)
{
    wg->uapi = NULL;
    free(wg->uapi_error);
    wg->uapi_error = NULL;
    free(wg->uapi_dir);
    wg->uapi_dir = NULL;
}

/* Opening and closing a UAPI socket registers and unregisters its path
 * with OVS's fatal-signal module, whose mutex OVS's exit hooks hold while
 * they take 'netdev_mutex' and so, through the port list, 'wg->mutex': so
 * both happen here with no lock of ours held.  Only the main thread
 * configures ports, so nothing else changes 'wg->uapi' meanwhile. */
void
netdev_wg_uapi_update(struct netdev_wireguard *wg)
{
    struct wg_uapi_server *old, *server;
    char *dir, *error = NULL;

    ovs_mutex_lock(&wg->mutex);
    dir = xstrdup(netdev_wg_uapi_dir(&wg->cfg));
    if ((wg->uapi || wg->uapi_error) && wg->uapi_dir
        && !strcmp(dir, wg->uapi_dir)) {
        ovs_mutex_unlock(&wg->mutex);
        free(dir);
        return;
    }
    old = wg->uapi;
    netdev_wg_uapi_forget(wg);
    ovs_mutex_unlock(&wg->mutex);

    wg_uapi_server_destroy(old);
    netdev_wg_uapi_reap();      /* A port of the same name just deleted. */
    if (wg_uapi_server_create(dir, netdev_get_name(&wg->up), wg->dev,
                              &netdev_wg_uapi_hooks, wg, &server, &error)) {
        VLOG_INFO_RL(&rl, "%s: UAPI socket not served: %s",
                     netdev_get_name(&wg->up), error);
    }

    ovs_mutex_lock(&wg->mutex);
    wg->uapi = server;
    wg->uapi_error = error;
    wg->uapi_dir = dir;
    ovs_mutex_unlock(&wg->mutex);
}

/* The servers of destroyed ports, closed later (netdev_wg_uapi_reap()):
 * closing one removes its socket file through OVS's fatal-signal module,
 * whose mutex OVS's own exit hooks hold while they take 'netdev_mutex',
 * which OVS holds while it destroys a port. */
static struct ovs_mutex closing_mutex = OVS_MUTEX_INITIALIZER;
static struct wg_uapi_server **closing OVS_GUARDED_BY(closing_mutex);
static size_t n_closing OVS_GUARDED_BY(closing_mutex);

void
netdev_wg_uapi_stop_later(struct netdev_wireguard *wg)
{
    if (wg->uapi) {
        ovs_mutex_lock(&closing_mutex);
        closing = xrealloc(closing, (n_closing + 1) * sizeof *closing);
        closing[n_closing++] = wg->uapi;
        ovs_mutex_unlock(&closing_mutex);
    }
    netdev_wg_uapi_forget(wg);
}

void
netdev_wg_uapi_reap_wait(void)
{
    ovs_mutex_lock(&closing_mutex);
    if (n_closing) {
        poll_immediate_wake();
    }
    ovs_mutex_unlock(&closing_mutex);
}

bool
netdev_wg_uapi_reap(void)
{
    struct wg_uapi_server **servers;
    size_t n;

    ovs_mutex_lock(&closing_mutex);
    servers = closing;
    n = n_closing;
    closing = NULL;
    n_closing = 0;
    ovs_mutex_unlock(&closing_mutex);
    for (size_t i = 0; i < n; i++) {
        wg_uapi_server_destroy(servers[i]);
    }
    free(servers);
    return n > 0;
}

void
netdev_wg_uapi_run(struct netdev_wireguard *wg)
{
    if (wg->uapi) {
        wg_uapi_server_run(wg->uapi);
    }
    netdev_wg_uapi_tell(wg);
}

void
netdev_wg_uapi_wait(struct netdev_wireguard *wg)
{
    if (wg->uapi) {
        wg_uapi_server_wait(wg->uapi);
    }
    if (wg->uapi_changed) {
        poll_timer_wait_until(wg->uapi_status_next);
    }
}

void
netdev_wg_uapi_status(const struct netdev_wireguard *wg, struct smap *smap)
{
    if (wg->uapi) {
        smap_add(smap, "uapi_socket", wg_uapi_server_path(wg->uapi));
    } else if (wg->uapi_error) {
        smap_add(smap, "uapi_error", wg->uapi_error);
    }
}
