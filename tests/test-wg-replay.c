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
#include "wg-replay.h"

#include <inttypes.h>

#include "util.h"
#include "wgtest.h"

/* WireGuard's REJECT_AFTER_MESSAGES: 2^64 - 2^13 - 1. */
#define LIMIT (UINT64_MAX - 8192)

/* Shorthands for the case tables. */
#define WIN ((uint64_t) WG_REPLAY_WINDOW_SIZE)
#define LIM (WIN + 1)

struct replay_case {
    uint64_t counter;
    bool accept;
};

/* The numbered cases of the Linux kernel's WireGuard replay-counter
 * selftest, run in order on one fresh window. */
static const struct replay_case kernel_cases[] = {
    /*  1 */ { 0, true },
    /*  2 */ { 1, true },
    /*  3 */ { 1, false },
    /*  4 */ { 9, true },
    /*  5 */ { 8, true },
    /*  6 */ { 7, true },
    /*  7 */ { 7, false },
    /*  8 */ { LIM, true },
    /*  9 */ { LIM - 1, true },
    /* 10 */ { LIM - 1, false },
    /* 11 */ { LIM - 2, true },
    /* 12 */ { 2, true },
    /* 13 */ { 2, false },
    /* 14 */ { LIM + 16, true },
    /* 15 */ { 3, false },
    /* 16 */ { LIM + 16, false },
    /* 17 */ { LIM * 4, true },
    /* 18 */ { LIM * 4 - (LIM - 1), true },
    /* 19 */ { 10, false },
    /* 20 */ { LIM * 4 - LIM, false },
    /* 21 */ { LIM * 4 - (LIM + 1), false },
    /* 22 */ { LIM * 4 - (LIM - 2), true },
    /* 23 */ { LIM * 4 + 1 - LIM, false },
    /* 24 */ { 0, false },
    /* 25 */ { LIMIT, false },
    /* 26 */ { LIMIT - 1, true },
    /* 27 */ { LIMIT, false },
    /* 28 */ { LIMIT - 1, false },
    /* 29 */ { LIMIT - 2, true },
    /* 30 */ { LIMIT + 1, false },
    /* 31 */ { LIMIT + 2, false },
    /* 32 */ { LIMIT - 2, false },
    /* 33 */ { LIMIT - 3, true },
    /* 34 */ { 0, false },
};

static void
check_one(struct wg_replay *r, uint64_t counter, bool accept,
          const char *what, size_t step)
{
    bool got = wg_replay_check_and_update(r, counter, LIMIT);

    if (got != accept) {
        fprintf(stderr, "%s step %zu: counter %"PRIu64" %s, expected %s\n",
                what, step, counter, got ? "accepted" : "rejected",
                accept ? "accepted" : "rejected");
        wgtest_fail(__FILE__, __LINE__, what);
    }
}

static void
run_cases(const char *what, const struct replay_case *cases, size_t n)
{
    struct wg_replay r;

    wg_replay_init(&r);
    for (size_t i = 0; i < n; i++) {
        check_one(&r, cases[i].counter, cases[i].accept, what, i + 1);
    }
}

/* Accepts counters 'from' up to 'to' inclusive, in either direction. */
static void
accept_range(struct wg_replay *r, uint64_t from, uint64_t to,
             const char *what)
{
    uint64_t c = from;

    for (;;) {
        check_one(r, c, true, what, 0);
        if (c == to) {
            break;
        }
        c = from < to ? c + 1 : c - 1;
    }
}

/* The kernel selftest's window-edge sequences, each on a fresh window. */
static void
test_kernel_sequences(void)
{
    struct wg_replay r;

    wg_replay_init(&r);
    accept_range(&r, 1, WIN, "seq1");
    check_one(&r, 0, true, "seq1", 1);
    check_one(&r, 0, false, "seq1", 2);

    wg_replay_init(&r);
    accept_range(&r, 2, WIN + 1, "seq2");
    check_one(&r, 1, true, "seq2", 1);
    check_one(&r, 0, false, "seq2", 2);

    wg_replay_init(&r);
    accept_range(&r, WIN, 0, "seq3");

    wg_replay_init(&r);
    accept_range(&r, WIN + 1, 1, "seq4");
    check_one(&r, 0, false, "seq4", 1);

    wg_replay_init(&r);
    accept_range(&r, WIN, 1, "seq5");
    check_one(&r, WIN + 1, true, "seq5", 1);
    check_one(&r, 0, false, "seq5", 2);

    wg_replay_init(&r);
    accept_range(&r, WIN, 1, "seq6");
    check_one(&r, 0, true, "seq6", 1);
    check_one(&r, WIN + 1, true, "seq6", 2);
}

static void
test_replay_kernel(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    run_cases("kernel", kernel_cases, ARRAY_SIZE(kernel_cases));
    test_kernel_sequences();
}
WGTEST_REGISTER("replay-kernel", test_replay_kernel);

/* Fills a whole window going up from 'base', then checks that every counter
 * in it is a replay, that the oldest one is still tracked and the one just
 * before it is too old. */
static void
sweep_forward(uint64_t base)
{
    struct wg_replay r;

    wg_replay_init(&r);
    accept_range(&r, base, base + WIN, "forward");
    for (uint64_t c = base; c <= base + WIN; c++) {
        check_one(&r, c, false, "forward replay", c - base);
    }
    if (base) {
        check_one(&r, base - 1, false, "forward too old", 0);
    }
    if (base + WIN + 1 < LIMIT) {
        check_one(&r, base + WIN + 1, true, "forward next", 0);
        check_one(&r, base, false, "forward dropped", 0);
    }
}

/* Same, going down from the top of the window: every counter is new when
 * it arrives because it is within WIN of the first one. */
static void
sweep_backward(uint64_t base)
{
    struct wg_replay r;

    wg_replay_init(&r);
    accept_range(&r, base + WIN, base, "backward");
    for (uint64_t c = base; c <= base + WIN; c++) {
        check_one(&r, c, false, "backward replay", c - base);
    }
    if (base) {
        check_one(&r, base - 1, false, "backward too old", 0);
    }
}

/* For every alignment of the greatest counter within a word (and across a
 * wrap of the ring), the counter WIN behind it is accepted and the one
 * WIN + 1 behind is rejected. */
static void
sweep_edges(void)
{
    for (uint64_t top = WIN + 1; top < 3 * WG_REPLAY_BITS_TOTAL; top += 61) {
        struct wg_replay r;

        wg_replay_init(&r);
        check_one(&r, top, true, "edge top", top);
        check_one(&r, top - WIN - 1, false, "edge out", top);
        check_one(&r, top - WIN, true, "edge in", top);
        check_one(&r, top - WIN, false, "edge replay", top);
        check_one(&r, top - 1, true, "edge near", top);
    }
}

/* A jump further than the whole ring forgets everything before it. */
static void
sweep_jump(void)
{
    uint64_t far = 5 * WG_REPLAY_BITS_TOTAL + 5;
    struct wg_replay r;

    wg_replay_init(&r);
    accept_range(&r, 0, WIN, "jump fill");
    check_one(&r, far, true, "jump", 0);
    accept_range(&r, far - 1, far - WIN, "jump refill");
    check_one(&r, far - WIN - 1, false, "jump too old", 0);
    check_one(&r, far, false, "jump replay", 0);
}

static void
test_replay_sweep(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint64_t bases[] = { 0, 1, 63, 64, 65, 8191, 8192,
                                      123456789 };

    for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
        sweep_forward(bases[i]);
        sweep_backward(bases[i]);
    }
    sweep_forward(LIMIT - 1 - WIN);
    sweep_backward(LIMIT - 1 - WIN);
    sweep_edges();
    sweep_jump();
}
WGTEST_REGISTER("replay-sweep", test_replay_sweep);

static void
test_replay_limit(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint64_t refused[] = { LIMIT, LIMIT + 1, UINT64_MAX - 1,
                                        UINT64_MAX };
    struct wg_replay r;

    /* Counters at or beyond the limit are refused even on a fresh window
     * and never move it. */
    wg_replay_init(&r);
    for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
        check_one(&r, refused[i], false, "limit", i);
    }
    check_one(&r, 0, true, "limit untouched", 0);
    check_one(&r, LIMIT - 1, true, "limit last", 0);
    check_one(&r, LIMIT, false, "limit after last", 0);
    check_one(&r, LIMIT - 1 - WIN, true, "limit window", 0);

    /* A caller-supplied limit is honoured exactly. */
    wg_replay_init(&r);
    WGTEST_CHECK(!wg_replay_check_and_update(&r, 100, 100));
    WGTEST_CHECK(wg_replay_check_and_update(&r, 99, 100));
    WGTEST_CHECK(!wg_replay_check_and_update(&r, 0, 0));

    /* The largest possible limit does not overflow anything. */
    wg_replay_init(&r);
    WGTEST_CHECK(wg_replay_check_and_update(&r, UINT64_MAX - 1, UINT64_MAX));
    WGTEST_CHECK(!wg_replay_check_and_update(&r, UINT64_MAX, UINT64_MAX));
    WGTEST_CHECK(wg_replay_check_and_update(&r, UINT64_MAX - 1 - WIN,
                                            UINT64_MAX));
    WGTEST_CHECK(!wg_replay_check_and_update(&r, UINT64_MAX - 2 - WIN,
                                             UINT64_MAX));
}
WGTEST_REGISTER("replay-limit", test_replay_limit);

/* Random sequences against a plain reference: a counter is new if it was
 * never accepted and is at most WIN below the greatest accepted one. */
#define REF_SPAN (1 << 20)

static bool
ref_check(uint8_t *seen, uint64_t *greatest, bool *any, uint64_t c)
{
    if (seen[c] || (*any && c + WIN < *greatest)) {
        return false;
    }
    seen[c] = 1;
    if (!*any || c > *greatest) {
        *greatest = c;
    }
    *any = true;
    return true;
}

static void
test_replay_random(int argc, char *argv[])
{
    wgtest_random_seed(argc > 1 ? strtoull(argv[1], NULL, 0) : 1);
    for (int round = 0; round < 20; round++) {
        uint8_t *seen = xzalloc(REF_SPAN);
        uint64_t greatest = 0, c = 0;
        struct wg_replay r;
        bool any = false;

        wg_replay_init(&r);
        for (int i = 0; i < 50000; i++) {
            uint64_t x = wgtest_random();
            int64_t step = (int64_t) (x % 601) - 300 + (round % 4) * 5;

            if (x >> 60 == 0) {
                step *= 20;
            }
            c = (int64_t) c + step < 0 ? 0 : c + step;
            c = MIN(c, REF_SPAN - 1);
            check_one(&r, c, ref_check(seen, &greatest, &any, c), "random",
                      i);
        }
        free(seen);
    }
}
WGTEST_REGISTER("replay-random", test_replay_random);
