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

#ifndef ADDR_MEMO_H
#define ADDR_MEMO_H 1

/* What one queue of a port remembers of the layer-2 adapter's answers, so
 * that it can do without the port's lock for a while: an Ethernet header
 * per IP address (IPv4 mapped into IPv6), each valid until its own
 * deadline.  A transmit queue remembers the sources it taught the adapter
 * (their MAC), a receive queue the headers the adapter gave its inner
 * destinations.
 *
 * Contract.
 *
 *   - addr_memo_get() finds every entry put and not yet past its deadline:
 *     an entry is never evicted by another one, whatever the addresses
 *     hash to, so that guests whose addresses collide do not push each
 *     other into the locked path (as a direct-mapped array did).  The only
 *     bound is 'max' entries alive at once; a put beyond it fails (the
 *     caller stays on the locked path for that address) and is counted.
 *
 *   - Entries past their deadline are never returned, and are freed by a
 *     sweep that a put runs at most once per 'sweep_ms' of its clock (and
 *     at once when the map is full), so memory follows the addresses seen
 *     recently.
 *
 *   - One owner thread: the queue's poller or sender, which calls every
 *     function here with no lock.  There are no concurrent readers by
 *     design (each queue has its own map), which is why this is an OVS
 *     hmap and not a cmap: a cmap would add RCU-deferred frees and a
 *     writer lock that buy nothing when the only reader is the writer.
 *
 * Time is the caller's clock in milliseconds ('now'), read once per
 * batch. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "openvswitch/hmap.h"
#include "packets.h"

struct addr_memo {
    struct hmap map;            /* Of struct addr_memo_entry. */
    size_t max;                 /* Entries alive at once, at most. */
    long long int sweep_ms;     /* Sweep at most this often... */
    long long int next_sweep;   /* ...next from then on. */
    uint64_t n_full;            /* Puts refused: 'max' entries alive. */
};

void addr_memo_init(struct addr_memo *, size_t max, long long int sweep_ms);
void addr_memo_destroy(struct addr_memo *);

/* Remembers 'eth' for 'addr' until 'until' (exclusive), replacing what was
 * remembered for it.  Returns false if the map is full of live entries. */
bool addr_memo_put(struct addr_memo *, const struct in6_addr *addr,
                   const struct eth_header *eth, long long int until,
                   long long int now);

/* The header remembered for 'addr' at 'now', or NULL. */
const struct eth_header *addr_memo_get(const struct addr_memo *,
                                       const struct in6_addr *addr,
                                       long long int now);

/* Frees every entry past its deadline at 'now'. */
void addr_memo_sweep(struct addr_memo *, long long int now);

/* Entries held, live or not yet swept. */
size_t addr_memo_count(const struct addr_memo *);

#endif /* addr-memo.h */
