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
#include "wg-allowedips.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>

#include "util.h"
#include "wgtest.h"

/* Peers are opaque to the table: the addresses of these bytes stand in. */
static char peers[32];
#define P(N) ((void *) &peers[N])

/* Parses "ADDR/LEN" or "ADDR" (as a full-length prefix) into 'addr'.
 * Returns the family. */
static int
parse_prefix(const char *s, uint8_t addr[16], unsigned int *plen)
{
    char buf[64];
    char *slash;
    int family;

    ovs_strlcpy(buf, s, sizeof buf);
    slash = strchr(buf, '/');
    if (slash) {
        *slash = '\0';
    }
    family = strchr(buf, ':') ? AF_INET6 : AF_INET;
    memset(addr, 0, 16);
    if (inet_pton(family, buf, addr) != 1) {
        fprintf(stderr, "bad address %s\n", s);
        exit(2);
    }
    *plen = slash ? atoi(slash + 1) : family == AF_INET ? 32 : 128;
    return family;
}

static void
insert(struct wg_allowedips *t, const char *prefix, int peer)
{
    unsigned int plen;
    uint8_t addr[16];
    int family = parse_prefix(prefix, addr, &plen);

    WGTEST_CHECK(!wg_allowedips_insert(t, family, addr, plen, P(peer)));
}

static void
check_lookup(const struct wg_allowedips *t, const char *s, int peer)
{
    unsigned int plen;
    uint8_t addr[16];
    int family = parse_prefix(s, addr, &plen);
    void *got = wg_allowedips_lookup(t, family, addr);
    void *want = peer < 0 ? NULL : P(peer);

    if (got != want) {
        fprintf(stderr, "lookup %s: got peer %td, expected %d\n", s,
                got ? (char *) got - peers : -1, peer);
        wgtest_fail(__FILE__, __LINE__, "lookup");
    }
}

struct prefix_case {
    const char *prefix;
    int peer;
};

static void
insert_all(struct wg_allowedips *t, const struct prefix_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        insert(t, c[i].prefix, c[i].peer);
    }
}

static void
lookup_all(const struct wg_allowedips *t, const struct prefix_case *c,
           size_t n)
{
    for (size_t i = 0; i < n; i++) {
        check_lookup(t, c[i].prefix, c[i].peer);
    }
}

static const struct prefix_case v4_prefixes[] = {
    { "10.0.0.0/8", 1 },
    { "10.1.0.0/16", 2 },
    { "10.1.1.0/24", 3 },
    { "10.1.1.1/32", 4 },
    { "192.168.1.77/24", 6 },   /* Host bits set: means 192.168.1.0/24. */
    { "10.1.1.128/25", 7 },
    { "172.16.0.0/12", 1 },
    { "128.0.0.0/1", 2 },
};

/* Lookups with and without a /0 catch-all (peer 5); -1 is no match. */
static const struct prefix_case v4_lookups[] = {
    { "10.1.1.1", 4 },
    { "10.1.1.0", 3 },
    { "10.1.1.2", 3 },
    { "10.1.1.127", 3 },
    { "10.1.1.128", 7 },
    { "10.1.1.255", 7 },
    { "10.1.2.3", 2 },
    { "10.1.255.255", 2 },
    { "10.0.255.255", 1 },
    { "10.255.0.1", 1 },
    { "192.168.1.1", 6 },
    { "192.168.1.77", 6 },
    { "192.168.2.1", 2 },
    { "172.16.0.0", 1 },
    { "172.31.255.255", 1 },
    { "172.32.0.0", 2 },
    { "255.255.255.255", 2 },
};

static const struct prefix_case v4_outside[] = {
    { "11.0.0.0", -1 },
    { "9.255.255.255", -1 },
    { "0.0.0.0", -1 },
    { "127.255.255.255", -1 },
};

static const struct prefix_case v6_prefixes[] = {
    { "2001:db8::/32", 1 },
    { "2001:db8:1::/48", 2 },
    { "2001:db8:1::1/128", 3 },
    { "fe80::1234/64", 5 },             /* Means fe80::/64. */
    { "2001:db8:1:0:8000::/65", 6 },
    { "2001:db8:1::ffff/127", 7 },      /* Means 2001:db8:1::fffe/127. */
    { "8000::/1", 8 },
};

static const struct prefix_case v6_lookups[] = {
    { "2001:db8:1::1", 3 },
    { "2001:db8:1::", 2 },
    { "2001:db8:1::2", 2 },
    { "2001:db8:1:0:8000::5", 6 },
    { "2001:db8:1:0:7fff:ffff:ffff:ffff", 2 },
    { "2001:db8:1::fffe", 7 },
    { "2001:db8:1::ffff", 7 },
    { "2001:db8:1::fffd", 2 },
    { "2001:db8:1:1::", 2 },
    { "2001:db8:2::", 1 },
    { "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", 1 },
    { "fe80::abcd", 5 },
    { "fe80::ffff:ffff:ffff:ffff", 5 },
    { "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 8 },
};

static const struct prefix_case v6_outside[] = {
    { "2001:db9::", -1 },
    { "2001:db7:ffff::", -1 },
    { "::", -1 },
    { "::1", -1 },
    { "::ffff:10.1.1.1", -1 },
};

static void
set_peer(struct prefix_case *c, size_t n, int peer)
{
    for (size_t i = 0; i < n; i++) {
        c[i].peer = peer;
    }
}

static void
test_allowedips_lookup(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_allowedips *t = wg_allowedips_create();
    struct prefix_case v4_def[ARRAY_SIZE(v4_outside)];
    struct prefix_case v6_def[ARRAY_SIZE(v6_outside)];

    check_lookup(t, "10.1.1.1", -1);
    check_lookup(t, "::", -1);

    insert_all(t, v4_prefixes, ARRAY_SIZE(v4_prefixes));
    WGTEST_CHECK(wg_allowedips_count(t) == ARRAY_SIZE(v4_prefixes));
    lookup_all(t, v4_lookups, ARRAY_SIZE(v4_lookups));
    lookup_all(t, v4_outside, ARRAY_SIZE(v4_outside));
    /* IPv4 prefixes say nothing about IPv6 addresses. */
    lookup_all(t, v6_outside, ARRAY_SIZE(v6_outside));

    insert_all(t, v6_prefixes, ARRAY_SIZE(v6_prefixes));
    lookup_all(t, v6_lookups, ARRAY_SIZE(v6_lookups));
    lookup_all(t, v6_outside, ARRAY_SIZE(v6_outside));
    lookup_all(t, v4_lookups, ARRAY_SIZE(v4_lookups));
    WGTEST_CHECK(wg_allowedips_count(t)
                 == ARRAY_SIZE(v4_prefixes) + ARRAY_SIZE(v6_prefixes));

    /* A /0 catches what nothing longer does, per family. */
    insert(t, "0.0.0.0/0", 9);
    memcpy(v4_def, v4_outside, sizeof v4_def);
    set_peer(v4_def, ARRAY_SIZE(v4_def), 9);
    lookup_all(t, v4_def, ARRAY_SIZE(v4_def));
    lookup_all(t, v4_lookups, ARRAY_SIZE(v4_lookups));
    lookup_all(t, v6_outside, ARRAY_SIZE(v6_outside));

    insert(t, "::/0", 10);
    memcpy(v6_def, v6_outside, sizeof v6_def);
    set_peer(v6_def, ARRAY_SIZE(v6_def), 10);
    lookup_all(t, v6_def, ARRAY_SIZE(v6_def));
    lookup_all(t, v6_lookups, ARRAY_SIZE(v6_lookups));
    lookup_all(t, v4_def, ARRAY_SIZE(v4_def));

    WGTEST_CHECK(wg_allowedips_count(t)
                 == ARRAY_SIZE(v4_prefixes) + ARRAY_SIZE(v6_prefixes) + 2);
    wg_allowedips_destroy(t);
    wg_allowedips_destroy(NULL);
}
WGTEST_REGISTER("allowedips-lookup", test_allowedips_lookup);

/* Host routes, /0 alone, and neighbouring host routes that differ only in
 * their last bit. */
static void
test_allowedips_edges(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_allowedips *t = wg_allowedips_create();
    uint8_t addr[16] = { 0 };

    insert(t, "0.0.0.0/0", 1);
    check_lookup(t, "0.0.0.0", 1);
    check_lookup(t, "255.255.255.255", 1);
    check_lookup(t, "::", -1);
    insert(t, "1.2.3.4/32", 2);
    insert(t, "1.2.3.5/32", 3);
    check_lookup(t, "1.2.3.4", 2);
    check_lookup(t, "1.2.3.5", 3);
    check_lookup(t, "1.2.3.6", 1);
    check_lookup(t, "1.2.3.3", 1);
    insert(t, "255.255.255.255/32", 4);
    check_lookup(t, "255.255.255.255", 4);
    check_lookup(t, "255.255.255.254", 1);

    insert(t, "2001:db8::/128", 5);
    insert(t, "2001:db8::1/128", 6);
    check_lookup(t, "2001:db8::", 5);
    check_lookup(t, "2001:db8::1", 6);
    check_lookup(t, "2001:db8::2", -1);
    check_lookup(t, "2001:db8::1:0", -1);
    insert(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128", 7);
    check_lookup(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 7);
    check_lookup(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", -1);
    insert(t, "::/0", 8);
    check_lookup(t, "2001:db8::2", 8);
    check_lookup(t, "2001:db8::", 5);

    /* An IPv4 address is 4 bytes: the table must not read past them (the
     * address sanitizer checks this on the heap copy). */
    uint8_t *a4 = xmalloc(4);

    memcpy(a4, (uint8_t[]) { 1, 2, 3, 5 }, 4);
    WGTEST_CHECK(wg_allowedips_lookup(t, AF_INET, a4) == P(3));
    WGTEST_CHECK(!wg_allowedips_insert(t, AF_INET, a4, 32, P(9)));
    WGTEST_CHECK(!wg_allowedips_insert(t, AF_INET, a4, 31, P(9)));
    WGTEST_CHECK(!wg_allowedips_remove_for_test(t, AF_INET, a4, 32, P(9)));
    check_lookup(t, "1.2.3.5", 9);
    WGTEST_CHECK(!wg_allowedips_remove_for_test(t, AF_INET, a4, 31, P(9)));
    check_lookup(t, "1.2.3.5", 1);
    check_lookup(t, "1.2.3.4", 2);
    insert(t, "1.2.3.5/32", 3);
    free(a4);

    /* Bad arguments. */
    WGTEST_CHECK(wg_allowedips_insert(t, AF_INET, addr, 33, P(1)) == EINVAL);
    WGTEST_CHECK(wg_allowedips_insert(t, AF_INET6, addr, 129, P(1))
                 == EINVAL);
    WGTEST_CHECK(wg_allowedips_insert(t, AF_UNIX, addr, 8, P(1)) == EINVAL);
    WGTEST_CHECK(wg_allowedips_insert(t, AF_INET, addr, 8, NULL) == EINVAL);
    WGTEST_CHECK(wg_allowedips_remove_for_test(t, AF_INET, addr, 33, P(1))
                 == EINVAL);
    WGTEST_CHECK(wg_allowedips_remove_for_test(t, AF_UNIX, addr, 0, P(1))
                 == EINVAL);
    WGTEST_CHECK(!wg_allowedips_lookup(t, AF_UNIX, addr));
    WGTEST_CHECK(wg_allowedips_count(t) == 8);
    wg_allowedips_destroy(t);
}
WGTEST_REGISTER("allowedips-edges", test_allowedips_edges);

static int
remove_prefix(struct wg_allowedips *t, const char *prefix, int peer)
{
    unsigned int plen;
    uint8_t addr[16];
    int family = parse_prefix(prefix, addr, &plen);

    return wg_allowedips_remove_for_test(t, family, addr, plen, P(peer));
}

static void
test_allowedips_remove(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_allowedips *t = wg_allowedips_create();

    insert_all(t, v4_prefixes, ARRAY_SIZE(v4_prefixes));
    insert_all(t, v6_prefixes, ARRAY_SIZE(v6_prefixes));
    size_t n = wg_allowedips_count(t);

    /* Reassigning a prefix, also spelled with host bits, keeps the count. */
    insert(t, "10.1.1.0/24", 9);
    check_lookup(t, "10.1.1.2", 9);
    check_lookup(t, "10.1.1.1", 4);
    insert(t, "10.99.98.97/8", 8);
    check_lookup(t, "10.2.0.0", 8);
    insert(t, "2001:db8:1::1/128", 8);
    check_lookup(t, "2001:db8:1::1", 8);
    WGTEST_CHECK(wg_allowedips_count(t) == n);

    /* Only the owner removes a prefix; the longer and shorter ones stay. */
    WGTEST_CHECK(remove_prefix(t, "10.1.1.0/24", 3) == ENOENT);
    WGTEST_CHECK(remove_prefix(t, "10.1.1.0/23", 9) == ENOENT);
    WGTEST_CHECK(remove_prefix(t, "10.1.1.0/25", 9) == ENOENT);
    WGTEST_CHECK(remove_prefix(t, "10.1.1.99/24", 9) == 0);
    WGTEST_CHECK(remove_prefix(t, "10.1.1.0/24", 9) == ENOENT);
    WGTEST_CHECK(wg_allowedips_count(t) == n - 1);
    check_lookup(t, "10.1.1.2", 2);
    check_lookup(t, "10.1.1.1", 4);
    check_lookup(t, "10.1.1.200", 7);

    /* A prefix that only exists as a branching point is not removable. */
    WGTEST_CHECK(remove_prefix(t, "2001:db8:1::fffe/127", 7) == 0);
    WGTEST_CHECK(remove_prefix(t, "2001:db8:1::/64", 2) == ENOENT);
    check_lookup(t, "2001:db8:1::ffff", 2);
    check_lookup(t, "2001:db8:1:0:8000::5", 6);

    /* Removing a prefix whose children remain keeps them reachable. */
    WGTEST_CHECK(remove_prefix(t, "10.0.0.0/8", 8) == 0);
    check_lookup(t, "10.2.0.0", -1);
    check_lookup(t, "10.1.2.3", 2);
    check_lookup(t, "10.1.1.1", 4);
    WGTEST_CHECK(wg_allowedips_count(t) == n - 3);

    /* remove_peer removes every prefix of that peer and only those. */
    wg_allowedips_remove_peer(t, P(2));
    check_lookup(t, "10.1.2.3", -1);
    check_lookup(t, "10.1.1.1", 4);
    check_lookup(t, "10.1.1.200", 7);
    check_lookup(t, "255.255.255.255", -1);
    check_lookup(t, "2001:db8:1::2", 1);
    check_lookup(t, "2001:db8:1:0:8000::5", 6);
    check_lookup(t, "2001:db8:1::1", 8);
    WGTEST_CHECK(wg_allowedips_count(t) == n - 6);
    wg_allowedips_remove_peer(t, P(2));
    wg_allowedips_remove_peer(t, P(30));
    WGTEST_CHECK(wg_allowedips_count(t) == n - 6);

    for (int i = 0; i < ARRAY_SIZE(peers); i++) {
        wg_allowedips_remove_peer(t, P(i));
    }
    WGTEST_CHECK(wg_allowedips_count(t) == 0);
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 0);
    check_lookup(t, "10.1.1.1", -1);
    check_lookup(t, "2001:db8:1::1", -1);
    wg_allowedips_destroy(t);
}
WGTEST_REGISTER("allowedips-remove", test_allowedips_remove);

/* Two siblings need a branching node, which goes away with either of them;
 * a prefix removed from the middle of a chain leaves no node behind. */
static void
test_allowedips_nodes(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_allowedips *t = wg_allowedips_create();

    insert(t, "10.1.1.0/24", 1);
    insert(t, "10.1.2.0/24", 2);
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 3);
    check_lookup(t, "10.1.2.1", 2);
    WGTEST_CHECK(!remove_prefix(t, "10.1.1.0/24", 1));
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 1);
    check_lookup(t, "10.1.2.1", 2);
    check_lookup(t, "10.1.1.1", -1);
    insert(t, "10.0.0.0/8", 1);
    insert(t, "10.1.0.0/16", 3);
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 3);
    WGTEST_CHECK(!remove_prefix(t, "10.1.0.0/16", 3));
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 2);
    check_lookup(t, "10.1.2.1", 2);
    check_lookup(t, "10.1.3.1", 1);
    wg_allowedips_remove_peer(t, P(1));
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 1);
    check_lookup(t, "10.1.2.1", 2);
    check_lookup(t, "10.1.3.1", -1);
    WGTEST_CHECK(!remove_prefix(t, "10.1.2.0/24", 2));
    WGTEST_CHECK(wg_allowedips_n_nodes(t) == 0);
    wg_allowedips_destroy(t);
}
WGTEST_REGISTER("allowedips-nodes", test_allowedips_nodes);

/* Collects walk output as "ADDR/LEN" strings. */
struct walk_result {
    char items[32][64];
    size_t n;
};

static void
walk_collect(void *aux, int family, const uint8_t *addr,
             unsigned int prefix_len)
{
    struct walk_result *w = aux;
    char buf[INET6_ADDRSTRLEN];

    WGTEST_CHECK(w->n < ARRAY_SIZE(w->items));
    WGTEST_CHECK(inet_ntop(family, addr, buf, sizeof buf));
    snprintf(w->items[w->n++], sizeof w->items[0], "%s/%u", buf,
             prefix_len);
}

static void
test_allowedips_walk(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const struct prefix_case inserts[] = {
        { "2001:db8::/32", 1 }, { "10.0.0.0/16", 1 }, { "10.0.0.0/8", 1 },
        { "10.0.0.0/12", 2 }, { "9.1.2.3/8", 1 }, { "10.255.1.2/9", 1 },
        { "10.64.0.0/10", 2 }, { "255.255.255.255/32", 1 },
        { "0.0.0.0/0", 1 }, { "::1/128", 1 }, { "::/0", 1 },
        { "::/1", 2 }, { "2001:db8:7fff::/33", 1 },
        { "2001:db8::1/128", 2 },
        { "10.1.0.0/16", 1 },
    };
    static const char *expected[] = {
        "0.0.0.0/0", "9.0.0.0/8", "10.0.0.0/8", "10.0.0.0/16",
        "10.1.0.0/16", "10.128.0.0/9", "255.255.255.255/32",
        "::/0", "::1/128", "2001:db8::/32", "2001:db8::/33",
    };
    struct wg_allowedips *t = wg_allowedips_create();
    struct walk_result w = { .n = 0 };

    insert_all(t, inserts, ARRAY_SIZE(inserts));
    wg_allowedips_walk_peer(t, P(1), walk_collect, &w);
    for (size_t i = 0; i < MIN(w.n, ARRAY_SIZE(expected)); i++) {
        if (strcmp(w.items[i], expected[i])) {
            fprintf(stderr, "walk item %zu: %s, expected %s\n", i,
                    w.items[i], expected[i]);
            wgtest_fail(__FILE__, __LINE__, "walk order");
        }
    }
    WGTEST_CHECK(w.n == ARRAY_SIZE(expected));

    w.n = 0;
    wg_allowedips_walk_peer(t, P(3), walk_collect, &w);
    WGTEST_CHECK(w.n == 0);
    wg_allowedips_destroy(t);
}
WGTEST_REGISTER("allowedips-walk", test_allowedips_walk);

/* Randomized comparison against a plain list. */

struct ref_entry {
    int family;
    uint8_t addr[16];           /* Host bits cleared. */
    unsigned int plen;
    int peer;
};

struct ref_table {
    struct ref_entry *e;
    size_t n;
};

static unsigned int
ref_bit(const uint8_t *addr, unsigned int i)
{
    return (addr[i / 8] & (0x80 >> (i % 8))) != 0;
}

/* Clears host bits one bit at a time (deliberately unlike the trie). */
static void
ref_mask(uint8_t *addr, unsigned int plen)
{
    for (unsigned int i = plen; i < 128; i++) {
        addr[i / 8] &= ~(0x80 >> (i % 8));
    }
}

static bool
ref_contains(const struct ref_entry *e, int family, const uint8_t *addr)
{
    if (e->family != family) {
        return false;
    }
    for (unsigned int i = 0; i < e->plen; i++) {
        if (ref_bit(e->addr, i) != ref_bit(addr, i)) {
            return false;
        }
    }
    return true;
}

static struct ref_entry *
ref_find(struct ref_table *r, int family, const uint8_t *addr,
         unsigned int plen)
{
    for (size_t i = 0; i < r->n; i++) {
        struct ref_entry *e = &r->e[i];

        if (e->family == family && e->plen == plen
            && !memcmp(e->addr, addr, 16)) {
            return e;
        }
    }
    return NULL;
}

static int
ref_lookup(const struct ref_table *r, int family, const uint8_t *addr)
{
    const struct ref_entry *best = NULL;

    for (size_t i = 0; i < r->n; i++) {
        const struct ref_entry *e = &r->e[i];

        if ((!best || e->plen > best->plen)
            && ref_contains(e, family, addr)) {
            best = e;
        }
    }
    return best ? best->peer : -1;
}

static void
ref_delete(struct ref_table *r, struct ref_entry *e)
{
    *e = r->e[--r->n];
}

static int
ref_compare(const void *a_, const void *b_)
{
    const struct ref_entry *a = a_, *b = b_;
    int cmp;

    if (a->family != b->family) {
        return a->family == AF_INET ? -1 : 1;
    }
    cmp = memcmp(a->addr, b->addr, 16);
    return cmp ? cmp : (int) a->plen - (int) b->plen;
}

/* Random prefixes cluster around a few bases so they overlap a lot. */
struct rand_ctx {
    uint8_t bases[2][8][16];
};

static int
rand_family(void)
{
    return wgtest_random() & 1 ? AF_INET : AF_INET6;
}

/* Fills 'addr' (16 bytes, trailing bytes zero for IPv4) near a base. */
static void
rand_addr(struct rand_ctx *ctx, int family, uint8_t *addr)
{
    unsigned int bits = family == AF_INET ? 32 : 128;
    uint64_t x = wgtest_random();
    unsigned int keep = x % (bits + 1);

    memcpy(addr, ctx->bases[family == AF_INET][(x >> 8) % 8], 16);
    for (unsigned int i = keep; i < bits; i++) {
        if (wgtest_random() & 1) {
            addr[i / 8] ^= 0x80 >> (i % 8);
        }
    }
}

static unsigned int
rand_plen(int family)
{
    unsigned int bits = family == AF_INET ? 32 : 128;
    uint64_t x = wgtest_random();

    /* Mostly long prefixes, so that lookups also miss; a few short ones. */
    return x % 8 ? bits - (x >> 3) % (bits / 2 + 1) : (x >> 3) % (bits + 1);
}

static void
random_insert(struct wg_allowedips *t, struct ref_table *r,
              struct rand_ctx *ctx)
{
    int family = rand_family();
    unsigned int plen = rand_plen(family);
    int peer = wgtest_random() % 16;
    uint8_t addr[16], key[16];
    struct ref_entry *e;

    rand_addr(ctx, family, addr);
    WGTEST_CHECK(!wg_allowedips_insert(t, family, addr, plen, P(peer)));
    memcpy(key, addr, 16);
    ref_mask(key, plen);
    e = ref_find(r, family, key, plen);
    if (!e) {
        e = &r->e[r->n++];
        e->family = family;
        memcpy(e->addr, key, 16);
        e->plen = plen;
    }
    e->peer = peer;
}

/* Removes an existing prefix (spelled with random host bits), after trying
 * it with the wrong peer. */
static void
random_remove(struct wg_allowedips *t, struct ref_table *r)
{
    struct ref_entry *e;
    uint8_t addr[16];

    if (!r->n) {
        return;
    }
    e = &r->e[wgtest_random() % r->n];
    memcpy(addr, e->addr, 16);
    for (unsigned int i = e->plen; i < 128; i++) {
        addr[i / 8] |= (wgtest_random() & 1) << (7 - i % 8);
    }
    WGTEST_CHECK(wg_allowedips_remove_for_test(t, e->family, addr, e->plen,
                                      P(e->peer + 16)) == ENOENT);
    WGTEST_CHECK(!wg_allowedips_remove_for_test(t, e->family, addr, e->plen,
                                       P(e->peer)));
    WGTEST_CHECK(wg_allowedips_remove_for_test(t, e->family, addr, e->plen,
                                      P(e->peer)) == ENOENT);
    ref_delete(r, e);
}

static void
random_remove_peer(struct wg_allowedips *t, struct ref_table *r, int peer)
{
    wg_allowedips_remove_peer(t, P(peer));
    for (size_t i = 0; i < r->n;) {
        if (r->e[i].peer == peer) {
            ref_delete(r, &r->e[i]);
        } else {
            i++;
        }
    }
}

static void
random_lookups(const struct wg_allowedips *t, const struct ref_table *r,
               struct rand_ctx *ctx, int n)
{
    for (int i = 0; i < n; i++) {
        int family = rand_family();
        uint8_t addr[16];
        void *got;
        int want;

        rand_addr(ctx, family, addr);
        got = wg_allowedips_lookup(t, family, addr);
        want = ref_lookup(r, family, addr);
        WGTEST_CHECK(got == (want < 0 ? NULL : P(want)));
    }
}

struct walk_check {
    const struct ref_entry *expected;
    size_t n, pos;
};

static void
walk_compare(void *aux, int family, const uint8_t *addr,
             unsigned int prefix_len)
{
    struct walk_check *w = aux;
    const struct ref_entry *e = &w->expected[w->pos++];
    size_t len = family == AF_INET ? 4 : 16;

    WGTEST_CHECK(w->pos <= w->n);
    WGTEST_CHECK(family == e->family && prefix_len == e->plen);
    WGTEST_CHECK(!memcmp(addr, e->addr, len));
}

/* Compares every peer's walk with the sorted reference entries. */
static void
random_walks(const struct wg_allowedips *t, const struct ref_table *r)
{
    struct ref_entry *sorted = xmalloc((r->n + 1) * sizeof *sorted);

    for (int peer = 0; peer < 16; peer++) {
        struct walk_check w = { .expected = sorted, .n = 0, .pos = 0 };

        for (size_t i = 0; i < r->n; i++) {
            if (r->e[i].peer == peer) {
                sorted[w.n++] = r->e[i];
            }
        }
        qsort(sorted, w.n, sizeof *sorted, ref_compare);
        wg_allowedips_walk_peer(t, P(peer), walk_compare, &w);
        WGTEST_CHECK(w.pos == w.n);
    }
    free(sorted);
}

static void
test_allowedips_random(int argc, char *argv[])
{
    struct rand_ctx ctx;
    enum { N_OPS = 16000 };
    struct ref_table r = { .e = xmalloc(N_OPS * sizeof *r.e), .n = 0 };
    struct wg_allowedips *t = wg_allowedips_create();

    wgtest_random_seed(argc > 1 ? strtoull(argv[1], NULL, 0) : 42);
    wgtest_random_fill(ctx.bases, sizeof ctx.bases);
    for (int i = 0; i < N_OPS; i++) {
        uint64_t op = wgtest_random() % 1000;

        if (op < 800) {
            random_insert(t, &r, &ctx);
        } else if (op < 997) {
            random_remove(t, &r);
        } else {
            random_remove_peer(t, &r, wgtest_random() % 16);
        }
        WGTEST_CHECK(wg_allowedips_count(t) == r.n);
        WGTEST_CHECK(wg_allowedips_n_nodes(t) <= 2 * r.n);
        if (i % 1000 == 999) {
            random_lookups(t, &r, &ctx, 2000);
            random_walks(t, &r);
        }
    }
    random_lookups(t, &r, &ctx, 5000);
    random_walks(t, &r);

    for (int peer = 0; peer < 16; peer++) {
        random_remove_peer(t, &r, peer);
        WGTEST_CHECK(wg_allowedips_count(t) == r.n);
        random_lookups(t, &r, &ctx, 200);
    }
    WGTEST_CHECK(!r.n);
    WGTEST_CHECK(!wg_allowedips_n_nodes(t));
    wg_allowedips_destroy(t);
    free(r.e);
}
WGTEST_REGISTER("allowedips-random", test_allowedips_random);
