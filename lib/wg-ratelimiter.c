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
#include "wg-ratelimiter.h"

#include <string.h>
#include <sys/socket.h>

#include "coverage.h"
#include "hash.h"
#include "openvswitch/hmap.h"
#include "random.h"
#include "util.h"

COVERAGE_DEFINE(wg_ratelimiter_refused);
COVERAGE_DEFINE(wg_ratelimiter_table_full);

/* Tokens are counted in milliseconds of credit: every millisecond adds one,
 * a packet costs WG_RL_COST, and a bucket holds at most WG_RL_MAX, i.e. a
 * burst of WG_RATELIMITER_BURST packets.
 *
 * Not OVS's token-bucket.h: token_bucket_withdraw() reads time_msec()
 * itself, while this limiter runs on the wg-device clock that its caller
 * passes in (a hook that the unit tests and fuzz-wg-device step, frozen
 * across a batch), and it keeps the time of each source's latest packet,
 * which the collection of idle sources needs. */
#define WG_RL_COST (1000 / WG_RATELIMITER_PACKETS_PER_SECOND)
#define WG_RL_MAX (WG_RL_COST * WG_RATELIMITER_BURST)

/* One source: an IPv4 address, or the first 64 bits of an IPv6 address. */
struct wg_rl_entry {
    struct hmap_node node;      /* In struct wg_ratelimiter's 'entries'. */
    uint64_t key;
    int family;
    long long int last_ms;      /* Time of the latest packet. */
    long long int tokens;       /* Credit in ms, 0...WG_RL_MAX. */
};

/* The caller serializes every call on one limiter (wg-ratelimiter.h). */
struct wg_ratelimiter {
    struct hmap entries;
    size_t max_entries;
    uint32_t basis;             /* Random hash basis against collisions. */
    long long int last_gc_ms;
    bool gc_done;               /* False until the first collection. */
};

struct wg_ratelimiter *
wg_ratelimiter_create(size_t max_entries)
{
    struct wg_ratelimiter *rl = xzalloc(sizeof *rl);

    hmap_init(&rl->entries);
    rl->max_entries = max_entries ? max_entries : WG_RATELIMITER_MAX_ENTRIES;
    rl->basis = random_uint32();
    return rl;
}

void
wg_ratelimiter_destroy(struct wg_ratelimiter *rl)
{
    struct wg_rl_entry *e;

    if (!rl) {
        return;
    }
    HMAP_FOR_EACH_POP (e, node, &rl->entries) {
        free(e);
    }
    hmap_destroy(&rl->entries);
    free(rl);
}

/* Extracts the bucket key of 'addr'.  Returns false for an unknown
 * 'family'. */
static bool
wg_rl_key(int family, const void *addr, uint64_t *key)
{
    *key = 0;
    if (family == AF_INET) {
        memcpy(key, addr, 4);
    } else if (family == AF_INET6) {
        memcpy(key, addr, 8);
    } else {
        return false;
    }
    return true;
}

static struct wg_rl_entry *
wg_rl_find(const struct wg_ratelimiter *rl, int family, uint64_t key,
           uint32_t hash)
{
    struct wg_rl_entry *e;

    HMAP_FOR_EACH_WITH_HASH (e, node, hash, &rl->entries) {
        if (e->key == key && e->family == family) {
            return e;
        }
    }
    return NULL;
}

/* Refills 'e' for the time elapsed since its last packet, then takes one
 * packet's worth of tokens if it has them.  A clock that goes backward
 * adds nothing, and neither does its return to the time already seen. */
static bool
wg_rl_take(struct wg_rl_entry *e, long long int now_ms)
{
    if (now_ms > e->last_ms) {
        long long int elapsed = MIN(now_ms - e->last_ms, WG_RL_MAX);

        e->tokens = MIN(e->tokens + elapsed, WG_RL_MAX);
        e->last_ms = now_ms;
    }
    if (e->tokens < WG_RL_COST) {
        return false;
    }
    e->tokens -= WG_RL_COST;
    return true;
}

static void
wg_rl_gc__(struct wg_ratelimiter *rl, long long int now_ms)
{
    struct wg_rl_entry *e;

    HMAP_FOR_EACH_SAFE (e, node, &rl->entries) {
        if (now_ms - e->last_ms > WG_RATELIMITER_GC_INTERVAL_MS) {
            hmap_remove(&rl->entries, &e->node);
            free(e);
        }
    }
    hmap_shrink(&rl->entries);
    rl->last_gc_ms = now_ms;
    rl->gc_done = true;
}

/* Starts tracking a new source at 'now_ms', charging its first packet.
 * Returns false if the table is full. */
static bool
wg_rl_add(struct wg_ratelimiter *rl, int family, uint64_t key,
          uint32_t hash, long long int now_ms)
{
    struct wg_rl_entry *e;

    if (hmap_count(&rl->entries) >= rl->max_entries) {
        COVERAGE_INC(wg_ratelimiter_table_full);
        return false;
    }
    e = xmalloc(sizeof *e);
    e->key = key;
    e->family = family;
    e->last_ms = now_ms;
    e->tokens = WG_RL_MAX - WG_RL_COST;
    hmap_insert(&rl->entries, &e->node, hash);
    return true;
}

bool
wg_ratelimiter_allow(struct wg_ratelimiter *rl, int family,
                     const void *addr, long long int now_ms)
{
    struct wg_rl_entry *e;
    uint64_t key;
    uint32_t hash;
    bool ok;

    if (!wg_rl_key(family, addr, &key)) {
        return false;
    }
    hash = hash_uint64_basis(key, rl->basis + family);

    if (!rl->gc_done
        || now_ms - rl->last_gc_ms >= WG_RATELIMITER_GC_INTERVAL_MS) {
        wg_rl_gc__(rl, now_ms);
    }
    e = wg_rl_find(rl, family, key, hash);
    ok = e ? wg_rl_take(e, now_ms) : wg_rl_add(rl, family, key, hash, now_ms);

    if (!ok) {
        COVERAGE_INC(wg_ratelimiter_refused);
    }
    return ok;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

void
wg_ratelimiter_gc_for_test(struct wg_ratelimiter *rl, long long int now_ms)
{
    wg_rl_gc__(rl, now_ms);
}

size_t
wg_ratelimiter_count_for_test(const struct wg_ratelimiter *rl)
{
    return hmap_count(&rl->entries);
}
#endif
