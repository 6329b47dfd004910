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
#include "pkt-csum.h"

#include <time.h>

#include "csum.h"
#include "util.h"
#include "wgtest.h"

/* Checks pkt-csum against OVS's csum()/csum_continue() for every length
 * 0..PKT_CSUM_MAX_LEN at several alignments, on random, all-zero and
 * all-ones data. */

#define PKT_CSUM_MAX_LEN 9001
#define GUARD 64                        /* Bytes around each buffer. */
#define GUARD_BYTE 0xa5

/* The finished checksum of the 'n' bytes at 'p' by pkt-csum: what csum()
 * returns. */
static ovs_be16
fast_csum(const void *p, size_t n)
{
    return ~pkt_csum_fold(pkt_csum_partial(p, n, 0));
}

/* Joins 'block', the partial sum of data that begin 'offset' bytes after
 * the data summed in 'sum', to 'sum' (an odd 'offset' swaps its bytes), so
 * that the partial sums of pieces split anywhere can be checked. */
static uint32_t
block_add(uint32_t sum, uint32_t block, size_t offset)
{
    sum = pkt_csum_fold(sum);
    block = pkt_csum_fold(block);
    if (offset & 1) {
        block = ((block & 0xff) << 8) | (block >> 8);
    }
    return pkt_csum_fold(sum + block);
}

/* Checks every whole-buffer function on the 'n' bytes at 'p' against OVS,
 * and pkt_csum_copy() into 'dst_base' + GUARD + 'doff'. */
static void
check_one(const uint8_t *p, size_t n, uint8_t *dst_base, size_t doff)
{
    /* OVS's sum must not wrap. */
    uint32_t init = wgtest_random() & 0x7fffffff;
    ovs_be16 expect = csum(p, n);
    ovs_be16 expect_init = csum_finish(csum_continue(init, p, n));
    uint32_t partial = pkt_csum_partial(p, n, 0);
    size_t dst_size = 2 * GUARD + 8 + n;
    uint8_t *dst = dst_base + GUARD + doff;

    WGTEST_CHECK(fast_csum(p, n) == expect);
    WGTEST_CHECK(partial <= 0xffff);
    WGTEST_CHECK(csum_finish(partial) == expect);
    WGTEST_CHECK(csum_finish(pkt_csum_partial(p, n, init)) == expect_init);
    WGTEST_CHECK((uint16_t) ~pkt_csum_fold(partial) == expect);

    memset(dst_base, GUARD_BYTE, dst_size);
    WGTEST_CHECK(csum_finish(pkt_csum_copy(dst, p, n, init)) == expect_init);
    WGTEST_CHECK_MEM(dst, p, n);
    for (size_t i = 0; i < GUARD + doff; i++) {
        WGTEST_CHECK(dst_base[i] == GUARD_BYTE);
    }
    for (size_t i = GUARD + doff + n; i < dst_size; i++) {
        WGTEST_CHECK(dst_base[i] == GUARD_BYTE);
    }
}

/* Checks that the 'n' bytes at 'p' summed in two pieces split at 'k' give
 * the sum of the whole, joined by block_add() for any 'k' and by chaining
 * 'initial' for even 'k'. */
static void
check_split(const uint8_t *p, size_t n, size_t k, uint8_t *dst)
{
    ovs_be16 expect = csum(p, n);
    uint32_t a = pkt_csum_partial(p, k, 0);
    uint32_t b = pkt_csum_partial(p + k, n - k, 0);
    uint32_t ca, cb;

    WGTEST_CHECK(csum_finish(block_add(a, b, k)) == expect);
    if (!(k & 1)) {
        WGTEST_CHECK(csum_finish(pkt_csum_partial(p + k, n - k, a))
                     == expect);
        WGTEST_CHECK(csum_finish(csum_continue(a, p + k, n - k)) == expect);
    }

    ca = pkt_csum_copy(dst, p, k, 0);
    cb = pkt_csum_copy(dst + k, p + k, n - k, 0);
    WGTEST_CHECK(csum_finish(block_add(ca, cb, k)) == expect);
    WGTEST_CHECK_MEM(dst, p, n);
}

static void
test_all_lengths(uint8_t *src, uint8_t *dst)
{
    static const uint8_t fills[] = { 0x00, 0xff };

    for (size_t n = 0; n <= PKT_CSUM_MAX_LEN; n++) {
        /* One alignment walks through 0..7, two more are random. */
        size_t soffs[3] = { n % 8, wgtest_random() % 8,
                            wgtest_random() % 8 };
        size_t doffs[3] = { (n / 8) % 8, wgtest_random() % 8,
                            wgtest_random() % 8 };

        for (int i = 0; i < 3; i++) {
            wgtest_random_fill(src + soffs[i], n);
            check_one(src + soffs[i], n, dst, doffs[i]);
        }
        for (int i = 0; i < ARRAY_SIZE(fills); i++) {
            memset(src + soffs[i], fills[i], n);
            check_one(src + soffs[i], n, dst, doffs[i]);
        }
    }
}

static void
test_splits(uint8_t *src, uint8_t *dst)
{
    static const size_t lens[] = { 1, 2, 3, 7, 8, 9, 63, 64, 65, 127, 1500,
                                   1501, 9000, 9001 };

    for (int i = 0; i < ARRAY_SIZE(lens); i++) {
        size_t n = lens[i];
        size_t off = wgtest_random() % 8;

        wgtest_random_fill(src + off, n);
        for (size_t k = 0; k <= n;
             k += (n > 200 ? 1 + wgtest_random() % 97 : 1)) {
            check_split(src + off, n, k, dst + GUARD + wgtest_random() % 8);
        }
        check_split(src + off, n, n, dst + GUARD);
    }
}

/* Sums that fold to 0xffff (all ones) and to 0 (all zeros) must keep the
 * distinction csum() makes; a large 'initial' must not be lost. */
static void
test_edges(void)
{
    static const uint8_t ones[4] = { 0xff, 0xff, 0xff, 0xff };
    static const uint8_t zeros[4];

    WGTEST_CHECK(fast_csum(ones, 4) == 0);
    WGTEST_CHECK(fast_csum(zeros, 4) == 0xffff);
    WGTEST_CHECK(fast_csum(zeros, 0) == 0xffff);
    WGTEST_CHECK(pkt_csum_partial(zeros, 4, 0) == 0);
    WGTEST_CHECK(pkt_csum_partial(ones, 4, 0) == 0xffff);
    WGTEST_CHECK(pkt_csum_partial(zeros, 0, 0xffffffff) == 0xffff);
    WGTEST_CHECK(pkt_csum_partial(ones, 3, 0x12345678)
                 == pkt_csum_fold(csum_continue(0x12345678, ones, 3)));
}

static void
test_pkt_csum_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    size_t size = PKT_CSUM_MAX_LEN + 2 * GUARD + 8;
    uint8_t *src = xmalloc(size);
    uint8_t *dst = xmalloc(size);

    wgtest_random_seed(20260101);
    test_edges();
    test_all_lengths(src, dst);
    test_splits(src, dst);
    free(src);
    free(dst);
}
WGTEST_REGISTER("pkt-csum", test_pkt_csum_main);

/* Micro-benchmark (not a test). */

static double
now_sec(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

enum bench_kind { BENCH_PKT, BENCH_OVS, BENCH_COPY };

/* Keeps the compiler from dropping the benchmarked calls. */
static volatile uint32_t bench_sink;

/* Runs 'kind' over 'n' bytes for about 'seconds'; returns MB/s. */
static double
bench_one(enum bench_kind kind, uint8_t *buf, uint8_t *dst, size_t n,
          double seconds)
{
    double start = now_sec(), elapsed;
    uint64_t bytes = 0;

    do {
        for (int i = 0; i < 256; i++) {
            bench_sink += (kind == BENCH_PKT ? fast_csum(buf, n)
                           : kind == BENCH_OVS ? csum(buf, n)
                           : pkt_csum_copy(dst, buf, n, 0));
        }
        bytes += 256 * n;
        elapsed = now_sec() - start;
    } while (elapsed < seconds);
    return bytes / elapsed / 1e6;
}

static void
test_pkt_csum_bench(int argc, char *argv[])
{
    static const size_t sizes[] = { 64, 1500, 9000, 65536 };
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    uint8_t *buf = xmalloc(65536);
    uint8_t *dst = xmalloc(65536);
    double per = seconds / (3 * ARRAY_SIZE(sizes));

    wgtest_random_seed(1);
    wgtest_random_fill(buf, 65536);
    printf("%8s %14s %14s %8s %16s\n", "bytes", "pkt-csum MB/s",
           "csum() MB/s", "ratio", "pkt_csum_copy");
    for (int i = 0; i < ARRAY_SIZE(sizes); i++) {
        double fast = bench_one(BENCH_PKT, buf, dst, sizes[i], per);
        double ovs = bench_one(BENCH_OVS, buf, dst, sizes[i], per);
        double copy = bench_one(BENCH_COPY, buf, dst, sizes[i], per);

        printf("%8zu %14.0f %14.0f %7.1fx %16.0f\n",
               sizes[i], fast, ovs, fast / ovs, copy);
    }
    free(buf);
    free(dst);
}
WGTEST_REGISTER("pkt-csum-bench", test_pkt_csum_bench);
