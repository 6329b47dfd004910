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
#include "timeval.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-crypto.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_events);

/* Peer events of a wireguard port, logged at INFO (rate-limited): a peer
 * is up when its first session starts, down when its last session expires
 * or its handshake is given up; a peer's endpoint that changes (roaming) is
 * logged with the old and new address.  Session starts and rekeys are
 * counted (netdev-wireguard-stats.c).  The engine's hooks report starts and
 * give-ups at once; expiry and roaming are found by a scan of the peers at
 * most once per NETDEV_WG_EVENTS_SCAN_MS, from the main loop, which also
 * drives the resolution of host-name endpoints (netdev-wireguard-dns.c). */

static struct vlog_rate_limit netdev_wg_events_rl
    = VLOG_RATE_LIMIT_INIT(20, 100);

/* Formats the name of 'peer' ('np' its port state) into 'out'. */
static void
netdev_wg_events_put_peer(const struct netdev_wireguard *wg, struct ds *out,
                          const struct wg_peer *peer,
                          const struct netdev_wg_peer *np)
{
    if (np && np->name) {
        ds_put_format(out, "peer %s", np->name);
    } else {
        char b64[WG_KEY_B64_LEN];
        struct wg_peer_info info;

        wg_device_peer_get_info(wg->dev, peer, &info);
        wg_crypto_key_to_base64(b64, info.public_key);
        ds_put_format(out, "peer %s (UAPI)", b64);
    }
}

/* Logs event 'what' of 'peer', and has the status ("peers_up") read
 * again. */
static void
netdev_wg_events_log(struct netdev_wireguard *wg, const struct wg_peer *peer,
                     const struct netdev_wg_peer *np, const char *what)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    if (!VLOG_DROP_INFO(&netdev_wg_events_rl)) {
        netdev_wg_events_put_peer(wg, &s, peer, np);
        VLOG_INFO("%s: %s %s", netdev_get_name(&wg->up), ds_cstr(&s), what);
    }
    ds_destroy(&s);
    netdev_change_seq_changed(&wg->up);
}

void
netdev_wg_events_session_ready(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = netdev_wg_peer_of(peer);

    netdev_wg_count(wg, NETDEV_WG_SESSION_STARTED);
    if (np->up) {
        netdev_wg_count(wg, NETDEV_WG_REKEY);
    } else {
        np->up = true;
        netdev_wg_events_log(wg, peer, np, "up: handshake completed");
    }
    netdev_wg_tx_session_ready(aux, peer);
}

void
netdev_wg_events_handshake_failed(void *aux, struct wg_peer *peer)
{
    struct netdev_wireguard *wg = aux;
    struct netdev_wg_peer *np = netdev_wg_peer_of(peer);

    if (!wg_device_peer_has_session(wg->dev, peer)) {
        np->up = false;
        netdev_wg_events_log(wg, peer, np,
                             "down: handshake given up, no answer");
    }
    netdev_wg_dns_handshake_failed(np);
    netdev_wg_tx_handshake_failed(aux, peer);
}

/* Logs a change of the endpoint of 'peer' since the last scan. */
static void
netdev_wg_events_check_endpoint(struct netdev_wireguard *wg,
                                struct wg_peer *peer,
                                struct netdev_wg_peer *np)
{
    socklen_t len;
    const struct sockaddr *sa = wg_device_peer_endpoint(peer, &len);

    if (!sa || !len || len > sizeof np->endpoint
        || (len == np->endpoint_len && !memcmp(sa, &np->endpoint, len))) {
        return;
    }
    if (np->endpoint_len) {
        struct ds s = DS_EMPTY_INITIALIZER;
        struct sockaddr_storage ss;

        memset(&ss, 0, sizeof ss);
        memcpy(&ss, sa, len);
        ds_put_cstr(&s, "endpoint changed from ");
        wg_addr_format_endpoint(&s, &np->endpoint);
        ds_put_cstr(&s, " to ");
        wg_addr_format_endpoint(&s, &ss);
        netdev_wg_events_log(wg, peer, np, ds_cstr(&s));
        ds_destroy(&s);
    }
    memset(&np->endpoint, 0, sizeof np->endpoint);
    memcpy(&np->endpoint, sa, len);
    np->endpoint_len = len;
}

void
netdev_wg_events_run(struct netdev_wireguard *wg)
{
    long long int now = time_msec();
    struct wg_peer *peer;

    if (now < wg->events_next_scan) {
        return;
    }
    wg->events_next_scan = now + NETDEV_WG_EVENTS_SCAN_MS;
    for (peer = wg_device_peer_first(wg->dev); peer;
         peer = wg_device_peer_next(wg->dev, peer)) {
        struct netdev_wg_peer *np = netdev_wg_peer_of(peer);

        if (np->up && !wg_device_peer_has_session(wg->dev, peer)) {
            np->up = false;
            netdev_wg_events_log(wg, peer, np, "down: session expired");
        }
        netdev_wg_dns_run(wg, peer, np, now);
        netdev_wg_events_check_endpoint(wg, peer, np);
    }
    if (netdev_wg_events_carrier(wg) != wg->carrier) {
        wg->carrier = !wg->carrier;
        netdev_change_seq_changed(&wg->up);
    }
}

long long int
netdev_wg_events_next_scan(const struct netdev_wireguard *wg)
{
    return wg->events_next_scan;
}

size_t
netdev_wg_events_peers_up(const struct netdev_wireguard *wg)
{
    size_t n = 0;

    for (struct wg_peer *peer = wg_device_peer_first(wg->dev); peer;
         peer = wg_device_peer_next(wg->dev, peer)) {
        n += wg_device_peer_has_session(wg->dev, peer);
    }
    return n;
}

bool
netdev_wg_events_carrier(const struct netdev_wireguard *wg)
{
    uint8_t pub[WG_KEY_LEN];

    return ((wg->n_socks > 0 || wg->ul)
            && wg_device_get_public_key(wg->dev, pub));
}
