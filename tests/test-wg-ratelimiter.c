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

#include <arpa/inet.h>
#include <sys/socket.h>

#include "util.h"
#include "wgtest.h"

/* Calls wg_ratelimiter_allow() for a textual address, passing it in a heap
 * buffer of exactly its size so the address sanitizer catches over-reads. */
static bool
allow(struct wg_ratelimiter *rl, const char *s, long long int now)
{
    int family = strchr(s, ':') ? AF_INET6 : AF_INET;
    size_t len = family == AF_INET ? 4 : 16;
    uint8_t *addr = xmalloc(len);
    bool ok;

    if (inet_pton(family, s, addr) != 1) {
        fprintf(stderr, "bad address %s\n", s);
        exit(2);
    }
    ok = wg_ratelimiter_allow(rl, family, addr, now);
    free(addr);
    return ok;
}

/* Sends 'n' packets from 's' at 'now' and returns how many passed. */
static int
burst(struct wg_ratelimiter *rl, const char *s, long long int now, int n)
{
    int passed = 0;

    for (int i = 0; i < n; i++) {
        passed += allow(rl, s, now);
    }
    return passed;
}

static void
test_ratelimiter_bucket(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_ratelimiter *rl = wg_ratelimiter_create(0);
    const char *src = "192.0.2.1";
    long long int t = 123456;
    int passed;

    /* A new source gets a full burst, then nothing. */
    WGTEST_CHECK(burst(rl, src, t, WG_RATELIMITER_BURST)
                 == WG_RATELIMITER_BURST);
    WGTEST_CHECK(!allow(rl, src, t));
    WGTEST_CHECK(!allow(rl, src, t));

    /* One packet's worth of tokens takes 1000 / 20 = 50 ms. */
    WGTEST_CHECK(!allow(rl, src, t + 49));
    WGTEST_CHECK(allow(rl, src, t + 50));
    WGTEST_CHECK(!allow(rl, src, t + 50));
    WGTEST_CHECK(!allow(rl, src, t + 99));
    WGTEST_CHECK(allow(rl, src, t + 100));
    WGTEST_CHECK(!allow(rl, src, t + 100));

    /* After a second the bucket is full again, but holds only a burst. */
    t += 1100;
    WGTEST_CHECK(burst(rl, src, t, 20) == WG_RATELIMITER_BURST);

    /* A bucket that was only partly used does not fill beyond a burst. */
    WGTEST_CHECK(allow(rl, "192.0.2.99", t));
    WGTEST_CHECK(burst(rl, "192.0.2.99", t + 1000, 20)
                 == WG_RATELIMITER_BURST);

    /* A clock going backward adds no tokens. */
    WGTEST_CHECK(!allow(rl, src, t - 500));
    WGTEST_CHECK(!allow(rl, src, t));

    /* A steady 20 per second always passes. */
    for (int i = 1; i <= 100; i++) {
        WGTEST_CHECK(allow(rl, src, t + 50 * i));
    }
    t += 50 * 100 + 1000;

    /* 40 per second for 2.5 s: the burst plus 20 per second pass. */
    passed = 0;
    for (int i = 0; i < 100; i++) {
        passed += allow(rl, src, t + 25 * i);
    }
    WGTEST_CHECK(passed >= 53 && passed <= 55);
    wg_ratelimiter_destroy(rl);
    wg_ratelimiter_destroy(NULL);
}
WGTEST_REGISTER("ratelimiter-bucket", test_ratelimiter_bucket);

static void
test_ratelimiter_sources(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    /* Each group shares one bucket; different groups do not. */
    static const char *groups[][3] = {
        { "192.0.2.1", "192.0.2.1", "192.0.2.1" },
        { "192.0.2.2", "192.0.2.2", "192.0.2.2" },
        { "2001:db8:0:1::1", "2001:db8:0:1::2",
          "2001:db8:0:1:ffff:ffff:ffff:ffff" },
        { "2001:db8:0:0:ffff:ffff:ffff:ffff", "2001:db8::", "2001:db8::1" },
        { "2001:db8:0:2::1", "2001:db8:0:2:8000::", "2001:db8:0:2::" },
        { "2001:db9:0:1::1", "2001:db9:0:1::1", "2001:db9:0:1::2" },
        { "c000:0201::", "c000:0201::1", "c000:201::2:3" },
    };
    struct wg_ratelimiter *rl = wg_ratelimiter_create(0);
    long long int t = 5000;

    for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
        /* Members together get one burst. */
        for (int i = 0; i < WG_RATELIMITER_BURST; i++) {
            WGTEST_CHECK(allow(rl, groups[g][i % 3], t));
        }
        for (int i = 0; i < 3; i++) {
            WGTEST_CHECK(!allow(rl, groups[g][i], t));
        }
        WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == g + 1);
    }

    /* After 50 ms each group has exactly one packet more. */
    t += 50;
    for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
        WGTEST_CHECK(allow(rl, groups[g][2], t));
        WGTEST_CHECK(!allow(rl, groups[g][1], t));
    }

    /* Unknown families are refused and not tracked. */
    uint8_t addr[16] = { 0 };
    WGTEST_CHECK(!wg_ratelimiter_allow(rl, AF_UNIX, addr, t));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == ARRAY_SIZE(groups));
    wg_ratelimiter_destroy(rl);
}
WGTEST_REGISTER("ratelimiter-sources", test_ratelimiter_sources);

static void
make_v4(char *buf, size_t size, unsigned int i)
{
    snprintf(buf, size, "10.%u.%u.%u", (i >> 16) & 255, (i >> 8) & 255,
             i & 255);
}

static void
test_ratelimiter_full(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_ratelimiter *rl = wg_ratelimiter_create(4);
    long long int t = 0;
    char buf[32];

    WGTEST_CHECK(allow(rl, "192.0.2.1", t));
    WGTEST_CHECK(allow(rl, "192.0.2.2", t));
    WGTEST_CHECK(allow(rl, "2001:db8::1", t));
    WGTEST_CHECK(allow(rl, "2001:db8:0:1::1", t));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 4);

    /* Full: new sources are refused, known ones still served. */
    WGTEST_CHECK(!allow(rl, "192.0.2.3", t));
    WGTEST_CHECK(!allow(rl, "2001:db8:0:2::1", t + 10));
    WGTEST_CHECK(allow(rl, "192.0.2.1", t + 10));
    WGTEST_CHECK(allow(rl, "2001:db8::2", t + 10));
    WGTEST_CHECK(!allow(rl, "192.0.2.3", t + 900));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 4);

    /* Keep one source busy; once the others are idle long enough the
     * automatic collection makes room. */
    WGTEST_CHECK(allow(rl, "192.0.2.2", t + 1500));
    WGTEST_CHECK(allow(rl, "192.0.2.3", t + 2015));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 2);
    wg_ratelimiter_destroy(rl);

    /* The default size. */
    rl = wg_ratelimiter_create(0);
    for (unsigned int i = 0; i < WG_RATELIMITER_MAX_ENTRIES; i++) {
        make_v4(buf, sizeof buf, i);
        WGTEST_CHECK(allow(rl, buf, t));
    }
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl)
                 == WG_RATELIMITER_MAX_ENTRIES);
    make_v4(buf, sizeof buf, WG_RATELIMITER_MAX_ENTRIES);
    WGTEST_CHECK(!allow(rl, buf, t));
    WGTEST_CHECK(!allow(rl, "2001:db8::1", t));
    make_v4(buf, sizeof buf, 17);
    WGTEST_CHECK(allow(rl, buf, t));
    wg_ratelimiter_destroy(rl);
}
WGTEST_REGISTER("ratelimiter-full", test_ratelimiter_full);

static void
test_ratelimiter_gc(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_ratelimiter *rl = wg_ratelimiter_create(0);
    long long int t = 1000000;
    char buf[32];

    for (unsigned int i = 0; i < 100; i++) {
        make_v4(buf, sizeof buf, i);
        WGTEST_CHECK(burst(rl, buf, t + i, 10) == WG_RATELIMITER_BURST);
    }
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 100);

    /* An explicit collection keeps sources seen within the last second. */
    wg_ratelimiter_gc_for_test(rl, t + 1000);
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 100);
    wg_ratelimiter_gc_for_test(rl, t + 1049);
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 51);

    /* A forgotten source starts over with a full burst, a kept one has
     * refilled as well. */
    WGTEST_CHECK(burst(rl, "10.0.0.0", t + 1049, 10)
                 == WG_RATELIMITER_BURST);
    WGTEST_CHECK(burst(rl, "10.0.0.99", t + 1049, 10)
                 == WG_RATELIMITER_BURST);
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 52);

    /* allow() collects on its own, at most once per interval. */
    WGTEST_CHECK(allow(rl, "192.0.2.1", t + 2048));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 53);
    WGTEST_CHECK(allow(rl, "192.0.2.2", t + 2050));
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 2);

    wg_ratelimiter_gc_for_test(rl, t + 10000);
    WGTEST_CHECK(wg_ratelimiter_count_for_test(rl) == 0);
    wg_ratelimiter_destroy(rl);
}
WGTEST_REGISTER("ratelimiter-gc", test_ratelimiter_gc);
