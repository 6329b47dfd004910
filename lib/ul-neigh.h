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

#ifndef UL_NEIGH_H
#define UL_NEIGH_H 1

/* The datapath underlay's neighbour cache (issue 39, design.rst "The
 * datapath underlay (planned)"): the IPv4 and IPv6 next hops of the
 * tunnel's messages on the underlay wire, address -> MAC, and what to
 * send to learn them.  Pure: no clock, no I/O, no packet; every time is
 * the caller's monotonic milliseconds ('now'), every ARP request or
 * Neighbor Solicitation is a decision the caller carries out (ul-frame.h
 * builds them).  One caller at a time per cache (no lock inside).
 *
 * Addresses of both families are struct in6_addr, IPv4 ones IPv4-mapped
 * (::ffff:a.b.c.d).
 *
 * Next hop: ul_neigh_next_hop() picks the endpoint itself when it is in
 * the underlay prefix of its family (on-link), else that family's
 * gateway; no address or gateway of the family: no route.
 *
 * Entries, per address, in one of these states:
 *   - INCOMPLETE: asked for, no answer yet.  ul_neigh_resolve() says
 *     SOLICIT (broadcast ARP request / multicast NS) at most once per
 *     'solicit_interval_ms' and at most 'max_solicits' times; then the
 *     entry is FAILED.
 *   - FAILED: not answered; resolve() says UNREACHABLE until
 *     'failed_hold_ms' after the last solicitation, when the entry is
 *     forgotten (and a new resolve() starts over).
 *   - REACHABLE: confirmed (an ARP reply or NA, ul_neigh_confirm()) less
 *     than 'reachable_ms' ago: resolve() says SEND with its MAC.
 *   - STALE: older, or only learned from a request of the neighbour's
 *     (ul_neigh_learn()): still SEND, but PROBE (SEND plus a unicast ARP
 *     request / NS to the known MAC) at most once per
 *     'solicit_interval_ms'; 'expire_ms' after the last confirmation the
 *     entry is forgotten.
 *
 * Bounds: at most 'max_entries' entries (adding one to a full cache
 * evicts the one least recently created or confirmed) and at most
 * 'max_pending' INCOMPLETE ones (a resolve() for a new address beyond it
 * says UNREACHABLE and counts 'pending_full').  ul_neigh_run() forgets
 * what is out of time; ul_neigh_next_deadline() says when it next has
 * work. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "packets.h"

/* Limits and timers; zero fields take the defaults in brackets. */
struct ul_neigh_limits {
    size_t max_entries;             /* [1024] */
    size_t max_pending;             /* [64] INCOMPLETE entries. */
    unsigned int max_solicits;      /* [3] before FAILED. */
    long long int solicit_interval_ms;  /* [1000] per address. */
    long long int reachable_ms;     /* [30000] then STALE. */
    long long int expire_ms;        /* [600000] then forgotten. */
    long long int failed_hold_ms;   /* [3000] FAILED, then forgotten. */
};

/* The underlay's addressing: the host's address and prefix length of each
 * family (an unset address: the family is not configured; IPv4 mapped,
 * 'plen4' 0..32) and the gateways (unset: none). */
struct ul_neigh_route {
    struct in6_addr addr4, addr6;
    unsigned int plen4, plen6;
    struct in6_addr gw4, gw6;
};

enum ul_neigh_state {
    UL_NEIGH_INCOMPLETE,
    UL_NEIGH_REACHABLE,
    UL_NEIGH_STALE,
    UL_NEIGH_FAILED,
};

/* What ul_neigh_resolve() tells the caller to do. */
enum ul_neigh_action {
    UL_NEIGH_SEND,          /* Send to the MAC returned. */
    UL_NEIGH_PROBE,         /* Send to the MAC returned, and send a unicast
                             * ARP request / NS to it. */
    UL_NEIGH_SOLICIT,       /* No MAC: send a broadcast ARP request /
                             * multicast NS; drop or hold the message. */
    UL_NEIGH_WAIT,          /* No MAC, asked recently: drop or hold. */
    UL_NEIGH_UNREACHABLE,   /* No MAC and no asking now: drop. */
};

struct ul_neigh_stats {
    uint64_t learned;       /* Entries created by learn()/confirm(). */
    uint64_t confirmed;     /* Confirmations (replies) taken. */
    uint64_t evicted;       /* Entries evicted by a full cache. */
    uint64_t expired;       /* STALE entries forgotten. */
    uint64_t failed;        /* INCOMPLETE entries that became FAILED. */
    uint64_t solicits;      /* SOLICIT decisions. */
    uint64_t probes;        /* PROBE decisions. */
    uint64_t pending_full;  /* New addresses refused: too many pending. */
};

/* Creates an empty cache ('limits' may be NULL: defaults). */
struct ul_neigh *ul_neigh_create(const struct ul_neigh_limits *limits);

/* Frees 'n' (NULL is allowed). */
void ul_neigh_destroy(struct ul_neigh *n);

/* Stores in '*nh' the next hop toward endpoint 'dst' per 'route' and
 * returns true, or returns false when there is none. */
bool ul_neigh_next_hop(const struct ul_neigh_route *route,
                       const struct in6_addr *dst, struct in6_addr *nh);

/* Decides what to do to send to next hop 'ip' at 'now'; with SEND and
 * PROBE stores its MAC in '*mac'.  May create an INCOMPLETE entry. */
enum ul_neigh_action ul_neigh_resolve(struct ul_neigh *n,
                                      const struct in6_addr *ip,
                                      long long int now,
                                      struct eth_addr *mac);

/* An ARP request or NS from 'ip' with link-layer address 'mac' reached us:
 * creates a STALE entry, or updates the MAC of an existing one (a changed
 * MAC makes a REACHABLE one STALE).  Returns false, learning nothing, for
 * a multicast or zero 'mac' or a non-unicast 'ip'. */
bool ul_neigh_learn(struct ul_neigh *n, const struct in6_addr *ip,
                    struct eth_addr mac, long long int now);

/* An ARP reply or NA says 'ip' is at 'mac': an existing entry becomes
 * REACHABLE with 'mac'.  Unsolicited answers for addresses not in the cache
 * are ignored.  Returns true if an entry was updated. */
bool ul_neigh_confirm(struct ul_neigh *n, const struct in6_addr *ip,
                      struct eth_addr mac, long long int now);

/* The state of 'ip' at 'now' and, unless INCOMPLETE or FAILED, its MAC in
 * '*mac'; false if it has no entry.  Changes nothing. */
bool ul_neigh_lookup(const struct ul_neigh *n, const struct in6_addr *ip,
                     long long int now, enum ul_neigh_state *state,
                     struct eth_addr *mac);

/* Forgets the entries out of time at 'now'. */
void ul_neigh_run(struct ul_neigh *n, long long int now);

/* When ul_neigh_run() next forgets an entry, or LLONG_MAX. */
long long int ul_neigh_next_deadline(const struct ul_neigh *n);

/* Entries now, and of them INCOMPLETE ones. */
size_t ul_neigh_count(const struct ul_neigh *n);
size_t ul_neigh_pending(const struct ul_neigh *n);

void ul_neigh_get_stats(const struct ul_neigh *n, struct ul_neigh_stats *);

/* "incomplete", "reachable", "stale" or "failed". */
const char *ul_neigh_state_name(enum ul_neigh_state state);

#endif /* ul-neigh.h */
