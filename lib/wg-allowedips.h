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

#ifndef WG_ALLOWEDIPS_H
#define WG_ALLOWEDIPS_H 1

/* Cryptokey routing table: a longest-prefix-match trie per address family
 * mapping IP prefixes to peers.  Peers are opaque pointers here, so the
 * table is testable on its own.  The caller serializes the functions that
 * change the table; wg_allowedips_lookup() may run on any thread at the
 * same time as them, under OVS RCU (ovs-rcu.h): the nodes it may be on are
 * freed only after a grace period, and a peer it returns may have just
 * been removed, so the caller keeps removed peers for a grace period. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct wg_allowedips;

/* Creates an empty table. */
struct wg_allowedips *wg_allowedips_create(void);

/* Frees 't' and all its entries (NULL is allowed), at once: no lookup may
 * run any more. */
void wg_allowedips_destroy(struct wg_allowedips *t);

/* Inserts prefix 'addr'/'prefix_len' for 'peer'.  'family' is AF_INET
 * ('addr' is 4 bytes, network order) or AF_INET6 (16 bytes).  Host bits
 * beyond 'prefix_len' are ignored (masked).  An existing identical prefix is
 * reassigned to 'peer'.  Returns 0 or EINVAL (bad family or length, or a
 * null 'peer'). */
int wg_allowedips_insert(struct wg_allowedips *t, int family,
                         const void *addr, unsigned int prefix_len,
                         void *peer);

/* Removes every prefix of 'peer', in time proportional to the number of
 * its prefixes (times the trie depth), whatever the size of the table. */
void wg_allowedips_remove_peer(struct wg_allowedips *t, const void *peer);

/* Returns the peer of the longest prefix containing 'addr', or NULL (also
 * for an unknown 'family'). */
void *wg_allowedips_lookup(const struct wg_allowedips *t, int family,
                           const void *addr);

/* Calls 'cb' for every prefix of 'peer', in a stable order (IPv4 first, then
 * IPv6, each in address order; a prefix comes before the longer prefixes
 * that share its address).  'addr' is 4 or 16 bytes, host bits cleared.
 * 'cb' must not modify 't'. */
typedef void wg_allowedips_cb(void *aux, int family, const uint8_t *addr,
                              unsigned int prefix_len);
void wg_allowedips_walk_peer(const struct wg_allowedips *t, const void *peer,
                             wg_allowedips_cb *cb, void *aux);

/* Number of prefixes in 't'. */
size_t wg_allowedips_count(const struct wg_allowedips *t);

/* Number of trie nodes in 't', for memory statistics and tests: at most
 * 2 * count - 1 per address family, 0 when 't' is empty. */
size_t wg_allowedips_n_nodes(const struct wg_allowedips *t);

/* Number of peers that hold at least one prefix in 't' (each has a list of
 * its prefixes), for memory statistics and tests. */
size_t wg_allowedips_n_peers(const struct wg_allowedips *t);

#ifdef WG_TEST_HOOKS
/* Test-only (test builds, wg-test-hooks.h): removes the prefix if it is
 * currently assigned to 'peer'.  Host bits are masked as for insertion.
 * Returns 0, ENOENT if no such prefix belongs to 'peer', or EINVAL (bad
 * family or length). */
int wg_allowedips_remove_for_test(struct wg_allowedips *t, int family,
                                  const void *addr, unsigned int prefix_len,
                                  const void *peer);
#endif

#endif /* wg-allowedips.h */
