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
#include "addr-memo.h"

#include "hash.h"
#include "util.h"

/* See addr-memo.h for the contract.  A plain hmap keyed by the address's
 * hash: lookups walk one bucket, puts replace in place or insert, and the
 * sweep walks the whole map once per 'sweep_ms' at most.  Calls nothing
 * of this project. */

struct addr_memo_entry {
    struct hmap_node node;
    struct in6_addr addr;
    struct eth_header eth;
    long long int until;
};

static uint32_t
addr_memo_hash(const struct in6_addr *addr)
{
    return hash_bytes(addr, sizeof *addr, 0);
}

void
addr_memo_init(struct addr_memo *m, size_t max, long long int sweep_ms)
{
    hmap_init(&m->map);
    m->max = max;
    m->sweep_ms = sweep_ms;
    m->next_sweep = LLONG_MIN;
    m->n_full = 0;
}

void
addr_memo_destroy(struct addr_memo *m)
{
    struct addr_memo_entry *e;

    HMAP_FOR_EACH_POP (e, node, &m->map) {
        free(e);
    }
    hmap_destroy(&m->map);
}

static struct addr_memo_entry *
addr_memo_find(const struct addr_memo *m, const struct in6_addr *addr)
{
    struct addr_memo_entry *e;

    HMAP_FOR_EACH_WITH_HASH (e, node, addr_memo_hash(addr), &m->map) {
        if (ipv6_addr_equals(&e->addr, addr)) {
            return e;
        }
    }
    return NULL;
}

void
addr_memo_sweep(struct addr_memo *m, long long int now)
{
    struct addr_memo_entry *e;

    HMAP_FOR_EACH_SAFE (e, node, &m->map) {
        if (now >= e->until) {
            hmap_remove(&m->map, &e->node);
            free(e);
        }
    }
    m->next_sweep = now + m->sweep_ms;
}

/* A new entry for 'addr', if there is room for one (after a sweep, if
 * due or needed), or NULL. */
static struct addr_memo_entry *
addr_memo_insert(struct addr_memo *m, const struct in6_addr *addr,
                 long long int now)
{
    struct addr_memo_entry *e;

    if (hmap_count(&m->map) >= m->max) {
        addr_memo_sweep(m, now);
        if (hmap_count(&m->map) >= m->max) {
            m->n_full++;
            return NULL;
        }
    }
    e = xmalloc(sizeof *e);
    e->addr = *addr;
    hmap_insert(&m->map, &e->node, addr_memo_hash(addr));
    return e;
}

bool
addr_memo_put(struct addr_memo *m, const struct in6_addr *addr,
              const struct eth_header *eth, long long int until,
              long long int now)
{
    struct addr_memo_entry *e;

    if (now >= m->next_sweep) {
        addr_memo_sweep(m, now);
    }
    e = addr_memo_find(m, addr);
    if (!e) {
        e = addr_memo_insert(m, addr, now);
        if (!e) {
            return false;
        }
    }
    e->eth = *eth;
    e->until = until;
    return true;
}

const struct eth_header *
addr_memo_get(const struct addr_memo *m, const struct in6_addr *addr,
              long long int now)
{
    const struct addr_memo_entry *e = addr_memo_find(m, addr);

    return e && now < e->until ? &e->eth : NULL;
}

size_t
addr_memo_count(const struct addr_memo *m)
{
    return hmap_count(&m->map);
}
