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

#include <string.h>

#include "hash.h"
#include "util.h"
#include "wgtest.h"

/* What a queue remembers of the layer-2 adapter (addr-memo.h): many
 * addresses that a 64-slot direct-mapped array would have put in one slot
 * are all found; deadlines hold; sweeps free what expired and only that;
 * a full map refuses without evicting. */

/* Address 'i' of a table case: IPv4-mapped or IPv6. */
static struct in6_addr
addr_of(uint32_t i, bool v6)
{
    struct in6_addr a;

    if (v6) {
        memset(&a, 0, sizeof a);
        a.s6_addr[0] = 0xfd;
        memcpy(&a.s6_addr[12], &i, sizeof i);
    } else {
        in6_addr_set_mapped_ipv4(&a, htonl(0x0a000000 | i));
    }
    return a;
}

static struct eth_header
eth_of(uint32_t i)
{
    struct eth_header eth;

    memset(&eth, 0, sizeof eth);
    eth.eth_src = (struct eth_addr) { .ea = { 2, 0, 0, i >> 16, i >> 8, i } };
    eth.eth_dst = (struct eth_addr) { .ea = { 2, 1, 0, i >> 16, i >> 8, i } };
    return eth;
}

/* 'n' addresses (of family 'v6') whose hash lands on the same slot of a
 * 64-slot array, as the port's old cache hashed them, from 'start' on. */
static size_t
colliding(uint32_t *ids, size_t n, bool v6)
{
    struct in6_addr first = addr_of(0, v6);
    uint32_t slot = hash_bytes(&first, sizeof first, 0) % 64;
    size_t k = 0;

    for (uint32_t i = 0; k < n && i < 1000000; i++) {
        struct in6_addr a = addr_of(i, v6);

        if (hash_bytes(&a, sizeof a, 0) % 64 == slot) {
            ids[k++] = i;
        }
    }
    return k;
}

/* Every one of 'n' colliding addresses put is found, with its own
 * header, until its deadline and not from it on. */
static void
test_colliding(size_t n, bool v6)
{
    uint32_t *ids = xmalloc(n * sizeof *ids);
    struct addr_memo m;

    WGTEST_CHECK(colliding(ids, n, v6) == n);
    addr_memo_init(&m, 4 * n, 1000);
    for (size_t k = 0; k < n; k++) {
        struct in6_addr a = addr_of(ids[k], v6);
        struct eth_header eth = eth_of(ids[k]);

        WGTEST_CHECK(addr_memo_put(&m, &a, &eth, 100 + 1000, 100));
    }
    for (size_t k = 0; k < n; k++) {
        struct in6_addr a = addr_of(ids[k], v6);
        struct eth_header eth = eth_of(ids[k]);
        const struct eth_header *got = addr_memo_get(&m, &a, 1099);

        WGTEST_CHECK(got && !memcmp(got, &eth, sizeof eth));
        WGTEST_CHECK(!addr_memo_get(&m, &a, 1100));
    }
    addr_memo_destroy(&m);
    free(ids);
}

/* A put refreshes an entry in place; a sweep frees only what expired; a
 * full map refuses a new address, keeps the live ones, and takes one again
 * once a sweep made room. */
static void
test_expiry_and_bound(void)
{
    struct in6_addr a = addr_of(1, false), b = addr_of(2, true);
    struct in6_addr c = addr_of(3, false);
    struct eth_header e1 = eth_of(1), e2 = eth_of(2);
    struct addr_memo m;

    addr_memo_init(&m, 2, 1000);
    WGTEST_CHECK(addr_memo_put(&m, &a, &e1, 500, 0));
    WGTEST_CHECK(addr_memo_put(&m, &a, &e2, 2000, 10));
    WGTEST_CHECK(addr_memo_count(&m) == 1);
    WGTEST_CHECK(!memcmp(addr_memo_get(&m, &a, 600), &e2, sizeof e2));
    WGTEST_CHECK(addr_memo_put(&m, &b, &e1, 700, 20));
    WGTEST_CHECK(!addr_memo_put(&m, &c, &e1, 900, 30));     /* Full. */
    WGTEST_CHECK(addr_memo_get(&m, &a, 30) && addr_memo_get(&m, &b, 30));
    WGTEST_CHECK(!addr_memo_get(&m, &c, 30));
    WGTEST_CHECK(addr_memo_put(&m, &c, &e1, 1500, 700));    /* b expired. */
    WGTEST_CHECK(addr_memo_count(&m) == 2);
    WGTEST_CHECK(!addr_memo_get(&m, &b, 700));
    addr_memo_sweep(&m, 1600);
    WGTEST_CHECK(addr_memo_count(&m) == 1);
    WGTEST_CHECK(addr_memo_get(&m, &a, 1600) && !addr_memo_get(&m, &c, 1600));
    addr_memo_destroy(&m);
}

/* A put sweeps on its own once per sweep period: memory follows the
 * addresses seen recently. */
static void
test_periodic_sweep(void)
{
    struct eth_header eth = eth_of(7);
    struct addr_memo m;

    addr_memo_init(&m, 1000, 1000);
    for (uint32_t i = 0; i < 100; i++) {
        struct in6_addr a = addr_of(i, false);

        WGTEST_CHECK(addr_memo_put(&m, &a, &eth, 100, 0));
    }
    WGTEST_CHECK(addr_memo_count(&m) == 100);
    struct in6_addr z = addr_of(5000, true);
    WGTEST_CHECK(addr_memo_put(&m, &z, &eth, 3000, 1000));
    WGTEST_CHECK(addr_memo_count(&m) == 1);
    addr_memo_destroy(&m);
}

static void
test_addr_memo_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct {
        size_t n;
        bool v6;
    } cases[] = {
        { 2, false }, { 8, false }, { 200, false }, { 8, true },
        { 200, true },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        test_colliding(cases[i].n, cases[i].v6);
    }
    test_expiry_and_bound();
    test_periodic_sweep();
    printf("addr-memo ok\n");
}
WGTEST_REGISTER("addr-memo", test_addr_memo_main);
