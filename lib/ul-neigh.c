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
#include "ul-neigh.h"

#include <limits.h>
#include "hash.h"
#include "openvswitch/hmap.h"
#include "openvswitch/list.h"
#include "util.h"

/* Stored states: a known entry (has a MAC) is REACHABLE or STALE by its
 * times, see entry_state(). */
enum ul_neigh_stored {
    STORED_INCOMPLETE,
    STORED_FAILED,
    STORED_KNOWN,
};

struct ul_neigh_entry {
    struct hmap_node hmap_node;     /* In 'entries', by address. */
    struct ovs_list lru_node;       /* In 'lru', oldest first. */
    struct in6_addr ip;
    struct eth_addr mac;            /* STORED_KNOWN only. */
    enum ul_neigh_stored stored;
    bool reachable;                 /* Confirmed by a reply (not only
                                     * learned from a request). */
    long long int confirmed;        /* Last reply (or learning). */
    long long int next_solicit;     /* No solicit or probe before. */
    unsigned int n_solicits;        /* Since INCOMPLETE. */
};

struct ul_neigh {
    struct ul_neigh_limits limits;
    struct hmap entries;
    struct ovs_list lru;
    size_t n_pending;               /* STORED_INCOMPLETE entries. */
    struct ul_neigh_stats stats;
};

static long long int
dflt(long long int x, long long int d)
{
    return x ? x : d;
}

struct ul_neigh *
ul_neigh_create(const struct ul_neigh_limits *limits)
{
    struct ul_neigh *n = xzalloc(sizeof *n);
    struct ul_neigh_limits l = limits ? *limits : n->limits;

    n->limits.max_entries = dflt(l.max_entries, 1024);
    n->limits.max_pending = dflt(l.max_pending, 64);
    n->limits.max_solicits = dflt(l.max_solicits, 3);
    n->limits.solicit_interval_ms = dflt(l.solicit_interval_ms, 1000);
    n->limits.reachable_ms = dflt(l.reachable_ms, 30000);
    n->limits.expire_ms = dflt(l.expire_ms, 600000);
    n->limits.failed_hold_ms = dflt(l.failed_hold_ms, 3000);
    hmap_init(&n->entries);
    ovs_list_init(&n->lru);
    return n;
}

void
ul_neigh_destroy(struct ul_neigh *n)
{
    struct ul_neigh_entry *e;

    if (!n) {
        return;
    }
    HMAP_FOR_EACH_POP (e, hmap_node, &n->entries) {
        free(e);
    }
    hmap_destroy(&n->entries);
    free(n);
}

/* Addresses. */

static bool
addr_is_unset(const struct in6_addr *a)
{
    return !ipv6_addr_is_set(a)
           || (IN6_IS_ADDR_V4MAPPED(a) && !in6_addr_get_mapped_ipv4(a));
}

static bool
addr_is_unicast(const struct in6_addr *a)
{
    if (IN6_IS_ADDR_V4MAPPED(a)) {
        ovs_be32 ip4 = in6_addr_get_mapped_ipv4(a);

        return ip4 && ip4 != htonl(INADDR_BROADCAST) && !ip_is_multicast(ip4);
    }
    return ipv6_addr_is_set(a) && !ipv6_addr_is_multicast(a);
}

static bool
in_prefix(const struct in6_addr *a, const struct in6_addr *net,
          unsigned int plen)
{
    struct in6_addr mask = ipv6_create_mask(MIN(plen, 128));
    struct in6_addr x = ipv6_addr_bitand(a, &mask);
    struct in6_addr y = ipv6_addr_bitand(net, &mask);

    return ipv6_addr_equals(&x, &y);
}

bool
ul_neigh_next_hop(const struct ul_neigh_route *route,
                  const struct in6_addr *dst, struct in6_addr *nh)
{
    bool v4 = IN6_IS_ADDR_V4MAPPED(dst);
    const struct in6_addr *own = v4 ? &route->addr4 : &route->addr6;
    const struct in6_addr *gw = v4 ? &route->gw4 : &route->gw6;
    unsigned int plen = v4 ? 96 + MIN(route->plen4, 32) : route->plen6;

    if (addr_is_unset(own) || !addr_is_unicast(dst)) {
        return false;
    }
    *nh = in_prefix(dst, own, plen) ? *dst : *gw;
    return !addr_is_unset(nh);
}

/* Entries. */

static struct ul_neigh_entry *
entry_find(const struct ul_neigh *n, const struct in6_addr *ip)
{
    struct ul_neigh_entry *e;

    HMAP_FOR_EACH_WITH_HASH (e, hmap_node, hash_bytes(ip, sizeof *ip, 0),
                             &n->entries) {
        if (ipv6_addr_equals(&e->ip, ip)) {
            return e;
        }
    }
    return NULL;
}

/* Changes the stored state of 'e', keeping the count of pending ones. */
static void
entry_set(struct ul_neigh *n, struct ul_neigh_entry *e,
          enum ul_neigh_stored stored)
{
    n->n_pending -= e->stored == STORED_INCOMPLETE;
    n->n_pending += stored == STORED_INCOMPLETE;
    e->stored = stored;
}

static void
entry_remove(struct ul_neigh *n, struct ul_neigh_entry *e)
{
    entry_set(n, e, STORED_FAILED);
    hmap_remove(&n->entries, &e->hmap_node);
    ovs_list_remove(&e->lru_node);
    free(e);
}

/* Marks 'e' as the most recently created or confirmed. */
static void
entry_touch(struct ul_neigh *n, struct ul_neigh_entry *e)
{
    ovs_list_remove(&e->lru_node);
    ovs_list_push_back(&n->lru, &e->lru_node);
}

/* A new entry for 'ip', the oldest one evicted first if the cache is
 * full. */
static struct ul_neigh_entry *
entry_add(struct ul_neigh *n, const struct in6_addr *ip,
          enum ul_neigh_stored stored)
{
    struct ul_neigh_entry *e = xzalloc(sizeof *e);

    if (hmap_count(&n->entries) >= n->limits.max_entries) {
        entry_remove(n, CONTAINER_OF(ovs_list_front(&n->lru),
                                     struct ul_neigh_entry, lru_node));
        n->stats.evicted++;
    }
    e->ip = *ip;
    e->stored = STORED_FAILED;
    entry_set(n, e, stored);
    e->next_solicit = LLONG_MIN;
    hmap_insert(&n->entries, &e->hmap_node, hash_bytes(ip, sizeof *ip, 0));
    ovs_list_push_back(&n->lru, &e->lru_node);
    return e;
}

/* When 'e' is to be forgotten. */
static long long int
entry_forget_at(const struct ul_neigh *n, const struct ul_neigh_entry *e)
{
    if (e->stored == STORED_KNOWN) {
        return e->confirmed + n->limits.expire_ms;
    }
    return e->next_solicit + n->limits.failed_hold_ms;
}

/* The state of 'e' at 'now', which is before entry_forget_at(). */
static enum ul_neigh_state
entry_state(const struct ul_neigh *n, const struct ul_neigh_entry *e,
            long long int now)
{
    if (e->stored == STORED_INCOMPLETE) {
        return (e->n_solicits >= n->limits.max_solicits
                && now >= e->next_solicit
                ? UL_NEIGH_FAILED : UL_NEIGH_INCOMPLETE);
    } else if (e->stored == STORED_FAILED) {
        return UL_NEIGH_FAILED;
    }
    return (e->reachable && now - e->confirmed < n->limits.reachable_ms
            ? UL_NEIGH_REACHABLE : UL_NEIGH_STALE);
}

/* Makes 'e' FAILED if it is INCOMPLETE, was asked for as often as allowed
 * and the last answer is due at 'now'; returns true if 'e' is FAILED. */
static bool
entry_fail_due(struct ul_neigh *n, struct ul_neigh_entry *e,
               long long int now)
{
    if (e->stored == STORED_INCOMPLETE
        && entry_state(n, e, now) == UL_NEIGH_FAILED) {
        entry_set(n, e, STORED_FAILED);
        n->stats.failed++;
    }
    return e->stored == STORED_FAILED;
}

/* Forgets 'e' if it is out of time at 'now'; returns true if it did. */
static bool
entry_expire(struct ul_neigh *n, struct ul_neigh_entry *e, long long int now)
{
    if (now < entry_forget_at(n, e)) {
        return false;
    }
    n->stats.expired += e->stored == STORED_KNOWN;
    entry_remove(n, e);
    return true;
}

/* The entry of 'ip' still in time at 'now', or NULL. */
static struct ul_neigh_entry *
entry_get(struct ul_neigh *n, const struct in6_addr *ip, long long int now)
{
    struct ul_neigh_entry *e = entry_find(n, ip);

    return e && !entry_expire(n, e, now) ? e : NULL;
}

/* Resolution. */

static enum ul_neigh_action
solicit(struct ul_neigh *n, struct ul_neigh_entry *e, long long int now)
{
    e->next_solicit = now + n->limits.solicit_interval_ms;
    e->n_solicits++;
    n->stats.solicits++;
    return UL_NEIGH_SOLICIT;
}

static enum ul_neigh_action
resolve_new(struct ul_neigh *n, const struct in6_addr *ip, long long int now)
{
    if (n->n_pending >= n->limits.max_pending) {
        n->stats.pending_full++;
        return UL_NEIGH_UNREACHABLE;
    }
    return solicit(n, entry_add(n, ip, STORED_INCOMPLETE), now);
}

static enum ul_neigh_action
resolve_incomplete(struct ul_neigh *n, struct ul_neigh_entry *e,
                   long long int now)
{
    if (entry_fail_due(n, e, now)) {
        return UL_NEIGH_UNREACHABLE;
    }
    return now < e->next_solicit ? UL_NEIGH_WAIT : solicit(n, e, now);
}

static enum ul_neigh_action
resolve_known(struct ul_neigh *n, struct ul_neigh_entry *e,
              long long int now, struct eth_addr *mac)
{
    *mac = e->mac;
    if (entry_state(n, e, now) == UL_NEIGH_REACHABLE
        || now < e->next_solicit) {
        return UL_NEIGH_SEND;
    }
    e->next_solicit = now + n->limits.solicit_interval_ms;
    n->stats.probes++;
    return UL_NEIGH_PROBE;
}

enum ul_neigh_action
ul_neigh_resolve(struct ul_neigh *n, const struct in6_addr *ip,
                 long long int now, struct eth_addr *mac)
{
    struct ul_neigh_entry *e = entry_get(n, ip, now);

    if (!e) {
        return (addr_is_unicast(ip) ? resolve_new(n, ip, now)
                : UL_NEIGH_UNREACHABLE);
    } else if (e->stored == STORED_KNOWN) {
        return resolve_known(n, e, now, mac);
    }
    return resolve_incomplete(n, e, now);
}

/* Learning. */

static bool
learnable(const struct in6_addr *ip, struct eth_addr mac)
{
    return (addr_is_unicast(ip) && !eth_addr_is_multicast(mac)
            && !eth_addr_is_zero(mac));
}

/* Makes 'e' a known entry at 'mac' confirmed (or learned) at 'now'. */
static void
entry_know(struct ul_neigh *n, struct ul_neigh_entry *e, struct eth_addr mac,
           bool reachable, long long int now)
{
    entry_set(n, e, STORED_KNOWN);
    e->mac = mac;
    e->reachable = reachable;
    e->confirmed = now;
    e->n_solicits = 0;
    entry_touch(n, e);
}

bool
ul_neigh_learn(struct ul_neigh *n, const struct in6_addr *ip,
               struct eth_addr mac, long long int now)
{
    struct ul_neigh_entry *e;

    if (!learnable(ip, mac)) {
        return false;
    }
    e = entry_get(n, ip, now);
    if (!e) {
        e = entry_add(n, ip, STORED_KNOWN);
        n->stats.learned++;
    } else if (e->stored == STORED_KNOWN && eth_addr_equals(e->mac, mac)) {
        return true;
    }
    entry_know(n, e, mac, false, now);
    return true;
}

bool
ul_neigh_confirm(struct ul_neigh *n, const struct in6_addr *ip,
                 struct eth_addr mac, long long int now)
{
    struct ul_neigh_entry *e;

    if (!learnable(ip, mac)) {
        return false;
    }
    e = entry_get(n, ip, now);
    if (!e) {
        return false;
    }
    entry_know(n, e, mac, true, now);
    e->next_solicit = LLONG_MIN;
    n->stats.confirmed++;
    return true;
}

bool
ul_neigh_lookup(const struct ul_neigh *n, const struct in6_addr *ip,
                long long int now, enum ul_neigh_state *state,
                struct eth_addr *mac)
{
    const struct ul_neigh_entry *e = entry_find(n, ip);

    if (!e || now >= entry_forget_at(n, e)) {
        return false;
    }
    *state = entry_state(n, e, now);
    if (e->stored == STORED_KNOWN) {
        *mac = e->mac;
    }
    return true;
}

/* Timers. */

void
ul_neigh_run(struct ul_neigh *n, long long int now)
{
    struct ul_neigh_entry *e;

    HMAP_FOR_EACH_SAFE (e, hmap_node, &n->entries) {
        if (!entry_expire(n, e, now)) {
            entry_fail_due(n, e, now);
        }
    }
}

long long int
ul_neigh_next_deadline(const struct ul_neigh *n)
{
    long long int deadline = LLONG_MAX;
    const struct ul_neigh_entry *e;

    HMAP_FOR_EACH (e, hmap_node, &n->entries) {
        deadline = MIN(deadline, entry_forget_at(n, e));
    }
    return deadline;
}

size_t
ul_neigh_count(const struct ul_neigh *n)
{
    return hmap_count(&n->entries);
}

size_t
ul_neigh_pending(const struct ul_neigh *n)
{
    return n->n_pending;
}

void
ul_neigh_get_stats(const struct ul_neigh *n, struct ul_neigh_stats *stats)
{
    *stats = n->stats;
}

const char *
ul_neigh_state_name(enum ul_neigh_state state)
{
    switch (state) {
    case UL_NEIGH_INCOMPLETE:
        return "incomplete";
    case UL_NEIGH_REACHABLE:
        return "reachable";
    case UL_NEIGH_STALE:
        return "stale";
    case UL_NEIGH_FAILED:
        return "failed";
    }
    return "unknown";
}
