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
#include "test-ul.h"
#include "util.h"
#include "wgtest.h"

/* The underlay neighbour cache (lib/ul-neigh.h): next-hop choice, and
 * scripted sequences of calls on a fake clock with the expected answer of
 * each. */

/* Next hop. */

struct nh_case {
    const char *dst;
    const char *want;           /* NULL: no route. */
};

static void
check_next_hops(const struct ul_neigh_route *route,
                const struct nh_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct in6_addr dst = ult_addr(cases[i].dst);
        struct in6_addr want = ult_addr(cases[i].want);
        struct in6_addr nh;
        bool ok = ul_neigh_next_hop(route, &dst, &nh);

        if (ok != !!cases[i].want || (ok && !ipv6_addr_equals(&nh, &want))) {
            fprintf(stderr, "next hop of %s: case %"PRIuSIZE"\n",
                    cases[i].dst, i);
            WGTEST_CHECK(false);
        }
    }
}

static void
test_ul_neigh_next_hop(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_neigh_route r = {
        .addr4 = ult_addr("192.0.2.1"), .plen4 = 24,
        .gw4 = ult_addr("192.0.2.254"),
        .addr6 = ult_addr("2001:db8::1"), .plen6 = 64,
        .gw6 = ult_addr("fe80::1"),
    };
    static const struct nh_case with_gw[] = {
        { "192.0.2.9", "192.0.2.9" },           /* On-link. */
        { "192.0.2.255", "192.0.2.255" },
        { "198.51.100.7", "192.0.2.254" },      /* Off-link. */
        { "2001:db8::9", "2001:db8::9" },
        { "2001:db8:1::9", "fe80::1" },
        { "224.0.0.1", NULL },                  /* Not unicast. */
        { "255.255.255.255", NULL },
        { "0.0.0.0", NULL },
        { "ff02::1", NULL },
        { "::", NULL },
    };
    static const struct nh_case no_gw[] = {
        { "192.0.2.9", "192.0.2.9" },
        { "198.51.100.7", NULL },
        { "2001:db8:1::9", NULL },
    };
    static const struct nh_case host_routes[] = {
        { "192.0.2.9", "192.0.2.254" },         /* /32: all via gw4. */
        { "2001:db8:1::9", "2001:db8:1::9" },   /* /0: all on-link. */
    };
    static const struct nh_case v4_only[] = {
        { "192.0.2.9", "192.0.2.9" },
        { "2001:db8::9", NULL },                /* No IPv6 address. */
    };

    check_next_hops(&r, with_gw, ARRAY_SIZE(with_gw));
    r.plen4 = 32;
    r.plen6 = 0;
    check_next_hops(&r, host_routes, ARRAY_SIZE(host_routes));
    r.plen4 = 24;
    r.plen6 = 64;
    r.gw4 = in6addr_any;
    r.gw6 = in6addr_any;
    check_next_hops(&r, no_gw, ARRAY_SIZE(no_gw));
    r.addr6 = in6addr_any;
    check_next_hops(&r, v4_only, ARRAY_SIZE(v4_only));
}
WGTEST_REGISTER("ul-neigh-next-hop", test_ul_neigh_next_hop);

/* Scripts. */

enum op {
    RESOLVE,        /* 'want': enum ul_neigh_action. */
    LEARN,          /* 'want': return value. */
    CONFIRM,        /* 'want': return value. */
    LOOKUP,         /* 'want': enum ul_neigh_state, or ABSENT. */
    RUN,            /* 'want': entries left. */
    COUNT,          /* 'want': INCOMPLETE entries. */
    DEADLINE,       /* 'want': ul_neigh_next_deadline() ('t' ignored). */
};

#define ABSENT (-1)

struct step {
    long long int t;
    enum op op;
    const char *ip;
    int mac;                    /* 52:54:00:00:00:'mac'; RESOLVE, LOOKUP:
                                 * the MAC expected, 0 for none. */
    long long int want;
};

static struct eth_addr
mac_n(int n)
{
    struct eth_addr mac = ETH_ADDR_C(52, 54, 00, 00, 00, 00);

    mac.ea[5] = n;
    return n ? mac : eth_addr_zero;
}

/* Runs step 's' on 'n'; returns what it returned, with the MAC in '*mac'
 * (zero if none). */
static long long int
run_step(struct ul_neigh *n, const struct step *s, struct eth_addr *mac)
{
    struct in6_addr ip = ult_addr(s->ip);
    enum ul_neigh_state state;
    enum ul_neigh_action a;

    *mac = eth_addr_zero;
    switch (s->op) {
    case RESOLVE:
        a = ul_neigh_resolve(n, &ip, s->t, mac);
        if (a != UL_NEIGH_SEND && a != UL_NEIGH_PROBE) {
            *mac = eth_addr_zero;
        }
        return a;
    case LEARN:
        return ul_neigh_learn(n, &ip, mac_n(s->mac), s->t);
    case CONFIRM:
        return ul_neigh_confirm(n, &ip, mac_n(s->mac), s->t);
    case LOOKUP:
        return (ul_neigh_lookup(n, &ip, s->t, &state, mac)
                ? (long long int) state : ABSENT);
    case RUN:
        ul_neigh_run(n, s->t);
        return ul_neigh_count(n);
    case COUNT:
        return ul_neigh_pending(n);
    case DEADLINE:
        return ul_neigh_next_deadline(n);
    }
    OVS_NOT_REACHED();
}

static bool
mac_wanted(const struct step *s)
{
    return s->op == RESOLVE || s->op == LOOKUP;
}

static void
run_script(const char *name, const struct ul_neigh_limits *limits,
           const struct step *steps, size_t n_steps,
           struct ul_neigh_stats *stats)
{
    struct ul_neigh *n = ul_neigh_create(limits);

    for (size_t i = 0; i < n_steps; i++) {
        const struct step *s = &steps[i];
        struct eth_addr mac;
        long long int got = run_step(n, s, &mac);
        struct eth_addr want_mac = s->mac ? mac_n(s->mac) : eth_addr_zero;

        if (got != s->want
            || (mac_wanted(s) && !eth_addr_equals(mac, want_mac))) {
            fprintf(stderr, "%s: step %"PRIuSIZE" (t=%lld): got %lld, "
                    "want %lld; MAC "ETH_ADDR_FMT"\n", name, i, s->t, got,
                    s->want, ETH_ADDR_ARGS(mac));
            WGTEST_CHECK(false);
        }
    }
    ul_neigh_get_stats(n, stats);
    ul_neigh_destroy(n);
}

/* Unanswered: at most one solicitation per second, three in all, then
 * FAILED for 3 s after the last one was due, then asked anew. */
static const struct step unanswered[] = {
    { 0, RESOLVE, "192.0.2.9", 0, UL_NEIGH_SOLICIT },
    { 0, LOOKUP, "192.0.2.9", 0, UL_NEIGH_INCOMPLETE },
    { 0, COUNT, NULL, 0, 1 },
    { 1, RESOLVE, "192.0.2.9", 0, UL_NEIGH_WAIT },
    { 999, RESOLVE, "192.0.2.9", 0, UL_NEIGH_WAIT },
    { 1000, RESOLVE, "192.0.2.9", 0, UL_NEIGH_SOLICIT },
    { 1500, RESOLVE, "192.0.2.9", 0, UL_NEIGH_WAIT },
    { 2500, RESOLVE, "192.0.2.9", 0, UL_NEIGH_SOLICIT },
    { 3000, RESOLVE, "192.0.2.9", 0, UL_NEIGH_WAIT },
    { 3000, DEADLINE, NULL, 0, 3500 + 3000 },
    { 3499, LOOKUP, "192.0.2.9", 0, UL_NEIGH_INCOMPLETE },
    { 3500, LOOKUP, "192.0.2.9", 0, UL_NEIGH_FAILED },
    { 3500, RESOLVE, "192.0.2.9", 0, UL_NEIGH_UNREACHABLE },
    { 3500, COUNT, NULL, 0, 0 },
    { 6499, RESOLVE, "192.0.2.9", 0, UL_NEIGH_UNREACHABLE },
    { 6499, RUN, NULL, 0, 1 },
    { 6500, RUN, NULL, 0, 0 },
    { 6500, DEADLINE, NULL, 0, LLONG_MAX },
    { 6500, RESOLVE, "192.0.2.9", 0, UL_NEIGH_SOLICIT },
    /* Not unicast: never asked for. */
    { 6500, RESOLVE, "255.255.255.255", 0, UL_NEIGH_UNREACHABLE },
    { 6500, RESOLVE, "ff02::1", 0, UL_NEIGH_UNREACHABLE },
    { 6500, COUNT, NULL, 0, 1 },
};

/* Answered: REACHABLE for 30 s, then STALE with one unicast probe per
 * second while used, forgotten 600 s after the last confirmation. */
static const struct step answered[] = {
    { 0, RESOLVE, "2001:db8::9", 0, UL_NEIGH_SOLICIT },
    { 100, CONFIRM, "2001:db8::9", 9, true },
    { 100, COUNT, NULL, 0, 0 },
    { 100, RESOLVE, "2001:db8::9", 9, UL_NEIGH_SEND },
    { 30099, RESOLVE, "2001:db8::9", 9, UL_NEIGH_SEND },
    { 30099, LOOKUP, "2001:db8::9", 9, UL_NEIGH_REACHABLE },
    { 30100, LOOKUP, "2001:db8::9", 9, UL_NEIGH_STALE },
    { 30100, RESOLVE, "2001:db8::9", 9, UL_NEIGH_PROBE },
    { 30600, RESOLVE, "2001:db8::9", 9, UL_NEIGH_SEND },
    { 31100, RESOLVE, "2001:db8::9", 9, UL_NEIGH_PROBE },
    { 31200, CONFIRM, "2001:db8::9", 9, true },
    { 31200, RESOLVE, "2001:db8::9", 9, UL_NEIGH_SEND },
    { 31200, DEADLINE, NULL, 0, 631200 },
    { 631199, LOOKUP, "2001:db8::9", 9, UL_NEIGH_STALE },
    { 631200, LOOKUP, "2001:db8::9", 0, ABSENT },
    { 631200, RUN, NULL, 0, 0 },
    /* An answer nobody asked for teaches nothing. */
    { 631200, CONFIRM, "2001:db8::7", 7, false },
    { 631200, LOOKUP, "2001:db8::7", 0, ABSENT },
};

/* Learned from a neighbour's request: STALE at once (probed when used),
 * REACHABLE once it answers; a new MAC replaces the old one. */
static const struct step learned[] = {
    { 0, LEARN, "192.0.2.7", 7, true },
    { 0, LOOKUP, "192.0.2.7", 7, UL_NEIGH_STALE },
    { 0, COUNT, NULL, 0, 0 },
    { 10, RESOLVE, "192.0.2.7", 7, UL_NEIGH_PROBE },
    { 20, RESOLVE, "192.0.2.7", 7, UL_NEIGH_SEND },
    { 30, CONFIRM, "192.0.2.7", 8, true },
    { 30, LOOKUP, "192.0.2.7", 8, UL_NEIGH_REACHABLE },
    { 40, LEARN, "192.0.2.7", 8, true },                /* Same MAC. */
    { 40, LOOKUP, "192.0.2.7", 8, UL_NEIGH_REACHABLE },
    { 50, LEARN, "192.0.2.7", 7, true },                /* Moved. */
    { 50, LOOKUP, "192.0.2.7", 7, UL_NEIGH_STALE },
    /* Not learnable: group MAC, zero MAC, group or zero address. */
    { 60, LEARN, "192.0.2.8", 0, false },
    { 60, LEARN, "0.0.0.0", 8, false },
    { 60, LEARN, "224.0.0.5", 8, false },
    { 60, RUN, NULL, 0, 1 },
    /* A request from an address being asked for answers it. */
    { 70, RESOLVE, "192.0.2.9", 0, UL_NEIGH_SOLICIT },
    { 80, LEARN, "192.0.2.9", 9, true },
    { 80, COUNT, NULL, 0, 0 },
    { 90, RESOLVE, "192.0.2.9", 9, UL_NEIGH_SEND },     /* Asked at 70. */
    { 1070, RESOLVE, "192.0.2.9", 9, UL_NEIGH_PROBE },
};

/* Four entries at most; two INCOMPLETE at most. */
static const struct step bounded[] = {
    { 1, LEARN, "192.0.2.1", 1, true },
    { 2, LEARN, "192.0.2.2", 2, true },
    { 3, LEARN, "192.0.2.3", 3, true },
    { 4, LEARN, "192.0.2.4", 4, true },
    { 5, CONFIRM, "192.0.2.1", 1, true },       /* Now the newest. */
    { 6, LEARN, "192.0.2.5", 5, true },         /* Evicts .2. */
    { 6, LOOKUP, "192.0.2.2", 0, ABSENT },
    { 6, LOOKUP, "192.0.2.1", 1, UL_NEIGH_REACHABLE },
    { 6, RUN, NULL, 0, 4 },
    { 7, RESOLVE, "192.0.2.11", 0, UL_NEIGH_SOLICIT },  /* Evicts .3. */
    { 8, RESOLVE, "192.0.2.12", 0, UL_NEIGH_SOLICIT },  /* Evicts .4. */
    { 9, RESOLVE, "192.0.2.13", 0, UL_NEIGH_UNREACHABLE }, /* Pending. */
    { 9, LOOKUP, "192.0.2.13", 0, ABSENT },
    { 9, COUNT, NULL, 0, 2 },
    { 10, LEARN, "192.0.2.14", 14, true },      /* Evicts .1. */
    { 11, LEARN, "192.0.2.15", 15, true },      /* Evicts .5. */
    { 12, LEARN, "192.0.2.16", 16, true },      /* Evicts INCOMPLETE .11. */
    { 12, COUNT, NULL, 0, 1 },
    { 13, RESOLVE, "192.0.2.13", 0, UL_NEIGH_SOLICIT },  /* Evicts .12. */
    { 13, COUNT, NULL, 0, 1 },
    { 13, LOOKUP, "192.0.2.12", 0, ABSENT },
    { 13, RUN, NULL, 0, 4 },
};

static void
test_ul_neigh_script(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_neigh_limits small = { .max_entries = 4, .max_pending = 2 };
    struct ul_neigh_stats st;

    run_script("unanswered", NULL, unanswered, ARRAY_SIZE(unanswered), &st);
    WGTEST_CHECK(st.solicits == 4 && st.failed == 1 && !st.probes);
    run_script("answered", NULL, answered, ARRAY_SIZE(answered), &st);
    WGTEST_CHECK(st.solicits == 1 && st.probes == 2 && st.confirmed == 2);
    WGTEST_CHECK(st.expired == 1 && !st.failed);
    run_script("learned", NULL, learned, ARRAY_SIZE(learned), &st);
    WGTEST_CHECK(st.learned == 1 && st.probes == 2 && st.confirmed == 1);
    run_script("bounded", &small, bounded, ARRAY_SIZE(bounded), &st);
    WGTEST_CHECK(st.evicted == 7 && st.pending_full == 1);
    WGTEST_CHECK(st.learned == 8 && st.solicits == 3);
}
WGTEST_REGISTER("ul-neigh-script", test_ul_neigh_script);

/* Many addresses on one clock: the bounds hold at every step. */
static void
test_ul_neigh_bounds(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct ul_neigh_limits l = { .max_entries = 64, .max_pending = 8 };
    struct ul_neigh *n = ul_neigh_create(&l);

    wgtest_random_seed(39);
    for (long long int t = 0; t < 20000; t++) {
        struct in6_addr ip = in6_addr_mapped_ipv4(
            htonl(0xc0000200 | (wgtest_random() % 200 + 1)));
        struct eth_addr mac = ETH_ADDR_C(52, 54, 00, 00, 00, 01);
        uint64_t r = wgtest_random() % 4;

        if (r == 0) {
            ul_neigh_resolve(n, &ip, t * 10, &mac);
        } else if (r == 1) {
            ul_neigh_learn(n, &ip, mac, t * 10);
        } else if (r == 2) {
            ul_neigh_confirm(n, &ip, mac, t * 10);
        } else {
            ul_neigh_run(n, t * 10);
        }
        WGTEST_CHECK(ul_neigh_count(n) <= 64);
        WGTEST_CHECK(ul_neigh_pending(n) <= 8);
    }
    ul_neigh_destroy(n);
}
WGTEST_REGISTER("ul-neigh-bounds", test_ul_neigh_bounds);
