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

#include <string.h>

/* How it works.
 *
 * The ones'-complement sum of 16-bit words is the sum modulo 0xffff (with
 * 0xffff standing for a nonzero multiple).  Since 2**16, 2**32 and 2**48 are
 * all 1 modulo 0xffff, a native-endian 64-bit word is congruent to the sum
 * of its four 16-bit words, whatever the host byte order, and a carry out of
 * bit 63 (worth 2**64) is worth 1.  So the data are read as 64-bit words at
 * their natural offsets from the start and added into two independent 64-bit
 * accumulators; each carry out is counted in a counter of its own instead of
 * being added back at once, which keeps the dependency chains short.  At the
 * end everything is added together with end-around carries and folded to 16
 * bits.  A sum of nonzero data never folds to 0, so the 0 / 0xffff
 * distinction matches csum_continue()'s. */

struct pkt_csum_acc {
    uint64_t sum[2];            /* Two interleaved partial sums. */
    uint64_t carries[2];        /* Carries out of bit 63 of each sum[]. */
};

static inline uint64_t
pkt_csum_load64(const uint8_t *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof w);
    return w;
}

static inline void
pkt_csum_store64(uint8_t *p, uint64_t w)
{
    memcpy(p, &w, sizeof w);
}

/* Adds 'w' to accumulator 'i' of 'acc'. */
static inline void
pkt_csum_acc_add(struct pkt_csum_acc *acc, int i, uint64_t w)
{
    acc->sum[i] += w;
    acc->carries[i] += acc->sum[i] < w;
}

/* Adds 'b' to 'a' with an end-around carry. */
static inline uint64_t
pkt_csum_add64(uint64_t a, uint64_t b)
{
    a += b;
    return a + (a < b);
}

/* Returns the 16-bit ones'-complement fold of 'acc'. */
static inline uint32_t
pkt_csum_acc_fold(const struct pkt_csum_acc *acc)
{
    uint64_t s = pkt_csum_add64(acc->sum[0], acc->sum[1]);

    s = pkt_csum_add64(s, acc->carries[0] + acc->carries[1]);
    s = (s & 0xffffffff) + (s >> 32);
    s = (s & 0xffffffff) + (s >> 32);
    return pkt_csum_fold(s);
}

/* Adds the final 'n' < 8 bytes at 'p' as one zero-padded word. */
static inline void
pkt_csum_acc_tail(struct pkt_csum_acc *acc, const uint8_t *p, size_t n)
{
    uint64_t w = 0;

    memcpy(&w, p, n);
    pkt_csum_acc_add(acc, 1, w);
}

uint32_t
pkt_csum_partial(const void *data, size_t n, uint32_t initial)
{
    struct pkt_csum_acc acc = { .sum = { initial, 0 } };
    const uint8_t *p = data;

    for (; n >= 64; n -= 64, p += 64) {
        pkt_csum_acc_add(&acc, 0, pkt_csum_load64(p));
        pkt_csum_acc_add(&acc, 1, pkt_csum_load64(p + 8));
        pkt_csum_acc_add(&acc, 0, pkt_csum_load64(p + 16));
        pkt_csum_acc_add(&acc, 1, pkt_csum_load64(p + 24));
        pkt_csum_acc_add(&acc, 0, pkt_csum_load64(p + 32));
        pkt_csum_acc_add(&acc, 1, pkt_csum_load64(p + 40));
        pkt_csum_acc_add(&acc, 0, pkt_csum_load64(p + 48));
        pkt_csum_acc_add(&acc, 1, pkt_csum_load64(p + 56));
    }
    for (; n >= 8; n -= 8, p += 8) {
        pkt_csum_acc_add(&acc, 0, pkt_csum_load64(p));
    }
    if (n) {
        pkt_csum_acc_tail(&acc, p, n);
    }
    return pkt_csum_acc_fold(&acc);
}

ovs_be16
pkt_csum(const void *data, size_t n)
{
    return ~pkt_csum_fold(pkt_csum_partial(data, n, 0));
}

/* Copies the 8 bytes at 's' to 'd' and adds them to accumulator 'i'. */
static inline void
pkt_csum_acc_copy(struct pkt_csum_acc *acc, int i,
                  uint8_t *d, const uint8_t *s)
{
    uint64_t w = pkt_csum_load64(s);

    pkt_csum_store64(d, w);
    pkt_csum_acc_add(acc, i, w);
}

uint32_t
pkt_csum_copy(void *dst, const void *src, size_t n, uint32_t initial)
{
    struct pkt_csum_acc acc = { .sum = { initial, 0 } };
    const uint8_t *s = src;
    uint8_t *d = dst;

    for (; n >= 64; n -= 64, s += 64, d += 64) {
        pkt_csum_acc_copy(&acc, 0, d, s);
        pkt_csum_acc_copy(&acc, 1, d + 8, s + 8);
        pkt_csum_acc_copy(&acc, 0, d + 16, s + 16);
        pkt_csum_acc_copy(&acc, 1, d + 24, s + 24);
        pkt_csum_acc_copy(&acc, 0, d + 32, s + 32);
        pkt_csum_acc_copy(&acc, 1, d + 40, s + 40);
        pkt_csum_acc_copy(&acc, 0, d + 48, s + 48);
        pkt_csum_acc_copy(&acc, 1, d + 56, s + 56);
    }
    for (; n >= 8; n -= 8, s += 8, d += 8) {
        pkt_csum_acc_copy(&acc, 0, d, s);
    }
    if (n) {
        memcpy(d, s, n);
        pkt_csum_acc_tail(&acc, s, n);
    }
    return pkt_csum_acc_fold(&acc);
}

uint32_t
pkt_csum_block_add(uint32_t sum, uint32_t block, size_t offset)
{
    sum = pkt_csum_fold(sum);
    block = pkt_csum_fold(block);
    if (offset & 1) {
        block = ((block & 0xff) << 8) | (block >> 8);
    }
    return pkt_csum_fold(sum + block);
}
