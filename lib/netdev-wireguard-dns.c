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

#include "coverage.h"
#include "dns-resolve.h"
#include "netdev-wireguard-private.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "smap.h"
#include "timeval.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-test-hooks.h"

VLOG_DEFINE_THIS_MODULE(netdev_wireguard_dns);

COVERAGE_DEFINE(wg_dns_resolved);
COVERAGE_DEFINE(wg_dns_failed);

/* Host-name endpoints ("peer.NAME.endpoint=host:port") of a wireguard
 * port's peers, resolved with Open vSwitch's resolver (lib/dns-resolve.c:
 * libunbound, /etc/hosts and the servers of /etc/resolv.conf, or of
 * $OVS_RESOLV_CONF; it never blocks and honors the answer's TTL; IPv4 is
 * asked first, IPv6 only for a name without an IPv4 address).
 *
 * A resolution is started when the name is configured, every
 * NETDEV_WG_DNS_REFRESH_MS after the last one, when the engine gives up a
 * handshake, and every NETDEV_WG_DNS_RETRY_MS while the name has no
 * address or the peer's handshakes are failing (none completed within
 * NETDEV_WG_DNS_STALE_MS, as wg-quick's reresolve-dns.sh judges a peer).
 * It polls the resolver at each scan of the peers (netdev-wireguard-
 * events.c) until it yields an address or NETDEV_WG_DNS_TIMEOUT_MS pass;
 * then the name "does not resolve": that is a peer error in the port's
 * status and a log line, the peer stays configured (it can still be
 * contacted) and a name that resolved before keeps its last address.
 *
 * An address becomes the peer's endpoint when it differs from the one the
 * name resolved to before, or when the peer's handshakes are failing: a
 * peer that roamed (its endpoint learned from an authenticated packet)
 * keeps its new endpoint while its name resolves as before.
 *
 * Like the rest of the port (netdev-wireguard-private.h), these functions
 * run under the port's mutex, from the main thread; the resolver locks for
 * itself.  Coverage: wg_dns_resolved (answers), wg_dns_failed (resolutions
 * that gave no address in time). */

struct netdev_wg_dns {
    char *host;                 /* Host name. */
    uint16_t port;              /* UDP port. */
    struct sockaddr_storage addr;   /* Last address the name resolved to. */
    socklen_t addr_len;             /* 0: never resolved. */
    long long int next;         /* When to start the next resolution. */
    long long int deadline;     /* Of the one under way; LLONG_MIN: none. */
    bool force;                 /* Its address replaces the endpoint. */
    char *error;                /* Why the name has no address, or NULL. */
};

static struct vlog_rate_limit netdev_wg_dns_rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* How long after a resolution that succeeded the name is resolved again
 * (a test build's hook may make it shorter). */
static long long int
netdev_wg_dns_refresh_ms(void)
{
    unsigned long long int ms = wg_test_dns_refresh_ms();

    return ms ? MIN(ms, NETDEV_WG_DNS_REFRESH_MS) : NETDEV_WG_DNS_REFRESH_MS;
}

static void
netdev_wg_dns_free(struct netdev_wg_dns *d)
{
    if (d) {
        free(d->host);
        free(d->error);
        free(d);
    }
}

void
netdev_wg_dns_destroy(struct netdev_wg_peer *np)
{
    netdev_wg_dns_free(np->dns);
    np->dns = NULL;
}

void
netdev_wg_dns_set(struct netdev_wg_peer *np, const char *host, uint16_t port)
{
    if (np->dns && host && !strcmp(np->dns->host, host)
        && np->dns->port == port) {
        return;                 /* Unchanged: keeps its address. */
    }
    netdev_wg_dns_destroy(np);
    if (host) {
        np->dns = xzalloc(sizeof *np->dns);
        np->dns->host = xstrdup(host);
        np->dns->port = port;
        np->dns->next = LLONG_MIN;          /* At the next scan. */
        np->dns->deadline = LLONG_MIN;
    }
}

void
netdev_wg_dns_handshake_failed(struct netdev_wg_peer *np)
{
    if (np->dns) {
        np->dns->next = LLONG_MIN;
        np->dns->force = true;
    }
}

/* True if no handshake of 'peer' completed within NETDEV_WG_DNS_STALE_MS
 * (or ever). */
static bool
netdev_wg_dns_stale(const struct netdev_wireguard *wg,
                    const struct wg_peer *peer)
{
    struct wg_peer_info info;
    long long int last_ms;

    wg_device_peer_get_info(wg->dev, peer, &info);
    last_ms = (info.last_handshake.tv_sec * 1000LL
               + info.last_handshake.tv_nsec / 1000000);
    return (!last_ms
            || time_wall_msec() - last_ms > NETDEV_WG_DNS_STALE_MS);
}

/* Converts the resolver's answer 'text' for 'd' into 'ss'.  Returns its
 * length, 0 if it is not an address. */
static socklen_t
netdev_wg_dns_to_sockaddr(const struct netdev_wg_dns *d, const char *text,
                          struct sockaddr_storage *ss)
{
    struct sockaddr_in *sin = (struct sockaddr_in *) ss;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) ss;

    memset(ss, 0, sizeof *ss);
    if (inet_pton(AF_INET, text, &sin->sin_addr) == 1) {
        sin->sin_family = AF_INET;
        sin->sin_port = htons(d->port);
        return sizeof *sin;
    } else if (inet_pton(AF_INET6, text, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(d->port);
        return sizeof *sin6;
    }
    return 0;
}

/* Formats the peer ('np', named or added by the UAPI) and its name. */
static void
netdev_wg_dns_put_peer(struct ds *s, const struct netdev_wireguard *wg,
                       const struct netdev_wg_peer *np)
{
    ds_put_format(s, "%s: peer %s: endpoint host name \"%s\"",
                  netdev_get_name(&wg->up), np->name ? np->name : "(UAPI)",
                  np->dns->host);
}

/* Makes 'err' (nullable, taken) the error of 'np''s name, logging a
 * change and having the status read again. */
static void
netdev_wg_dns_set_error(struct netdev_wireguard *wg,
                        struct netdev_wg_peer *np, char *err)
{
    struct netdev_wg_dns *d = np->dns;

    if (nullable_string_is_equal(err, d->error)) {
        free(err);
        return;
    }
    if (err && !VLOG_DROP_WARN(&netdev_wg_dns_rl)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        netdev_wg_dns_put_peer(&s, wg, np);
        VLOG_WARN("%s %s", ds_cstr(&s), err);
        ds_destroy(&s);
    }
    free(d->error);
    d->error = err;
    netdev_change_seq_changed(&wg->up);
}

/* The resolution of 'np''s name gave no address in time. */
static void
netdev_wg_dns_failed(struct netdev_wireguard *wg, struct netdev_wg_peer *np)
{
    struct netdev_wg_dns *d = np->dns;
    struct ds s = DS_EMPTY_INITIALIZER;

    COVERAGE_INC(wg_dns_failed);
#ifdef HAVE_UNBOUND
    ds_put_format(&s, "does not resolve (no address within %d s; retried "
                  "every %d s)", NETDEV_WG_DNS_TIMEOUT_MS / 1000,
                  NETDEV_WG_DNS_RETRY_MS / 1000);
#else
    ds_put_cstr(&s, "cannot be resolved: this Open vSwitch was built "
                "without libunbound");
#endif
    if (d->addr_len) {
        ds_put_cstr(&s, "; its last address ");
        wg_addr_format_endpoint(&s, &d->addr);
        ds_put_cstr(&s, " stays");
    } else {
        ds_put_cstr(&s, "; the peer waits to be contacted");
    }
    netdev_wg_dns_set_error(wg, np, ds_steal_cstr(&s));
    d->deadline = LLONG_MIN;
}

/* The name of 'np' (for 'peer') resolved to 'ss' ('len' bytes). */
static void
netdev_wg_dns_resolved(struct netdev_wireguard *wg, struct wg_peer *peer,
                       struct netdev_wg_peer *np,
                       const struct sockaddr_storage *ss, socklen_t len)
{
    struct netdev_wg_dns *d = np->dns;
    bool changed = len != d->addr_len || memcmp(ss, &d->addr, len);

    COVERAGE_INC(wg_dns_resolved);
    if (changed || d->force) {
        wg_device_peer_set_endpoint(wg->dev, peer,
                                    (const struct sockaddr *) ss, len);
    }
    if (changed && !VLOG_DROP_INFO(&netdev_wg_dns_rl)) {
        struct ds s = DS_EMPTY_INITIALIZER;

        netdev_wg_dns_put_peer(&s, wg, np);
        ds_put_cstr(&s, " resolved to ");
        wg_addr_format_endpoint(&s, ss);
        VLOG_INFO("%s", ds_cstr(&s));
        ds_destroy(&s);
    }
    memcpy(&d->addr, ss, len);
    d->addr_len = len;
    d->deadline = LLONG_MIN;
    netdev_wg_dns_set_error(wg, np, NULL);
}

/* Asks the resolver about 'np''s name: applies an address, or gives up
 * once the resolution's deadline passed. */
static void
netdev_wg_dns_poll(struct netdev_wireguard *wg, struct wg_peer *peer,
                   struct netdev_wg_peer *np, long long int now)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    char *text = NULL;

    if (dns_resolve(np->dns->host, &text) && text) {
        len = netdev_wg_dns_to_sockaddr(np->dns, text, &ss);
    }
    free(text);
    if (len) {
        netdev_wg_dns_resolved(wg, peer, np, &ss, len);
    } else if (now >= np->dns->deadline) {
        netdev_wg_dns_failed(wg, np);
    }
}

void
netdev_wg_dns_run(struct netdev_wireguard *wg, struct wg_peer *peer,
                  struct netdev_wg_peer *np, long long int now)
{
    struct netdev_wg_dns *d = np->dns;

    if (!d) {
        return;
    }
    if (d->deadline == LLONG_MIN && now >= d->next) {
        bool failing = d->error || netdev_wg_dns_stale(wg, peer);

        d->force |= failing;
        d->deadline = now + NETDEV_WG_DNS_TIMEOUT_MS;
        d->next = now + (failing ? NETDEV_WG_DNS_RETRY_MS
                         : netdev_wg_dns_refresh_ms());
    }
    if (d->deadline != LLONG_MIN) {
        netdev_wg_dns_poll(wg, peer, np, now);
        d->force &= d->deadline != LLONG_MIN;
    }
}

void
netdev_wg_dns_status(const struct netdev_wireguard *wg, struct smap *smap)
{
    for (struct wg_peer *peer = wg_device_peer_first(wg->dev); peer;
         peer = wg_device_peer_next(wg->dev, peer)) {
        const struct netdev_wg_peer *np = wg_device_peer_get_user_data(peer);

        if (np && np->dns && np->dns->error && np->name) {
            char *key = xasprintf("peer_error.%s", np->name);

            if (!smap_get(smap, key)) {
                smap_add_format(smap, key, "endpoint host name \"%s\" %s",
                                np->dns->host, np->dns->error);
            }
            free(key);
        }
    }
}
