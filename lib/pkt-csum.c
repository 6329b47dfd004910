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

#include <errno.h>
#include <string.h>

#include "crc32c.h"
#include "csum.h"
#include "pkt-ip.h"
#include "pkt-util.h"
#include "unaligned.h"

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

static uint64_t
pkt_csum_load64(const uint8_t *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof w);
    return w;
}

static void
pkt_csum_store64(uint8_t *p, uint64_t w)
{
    memcpy(p, &w, sizeof w);
}

/* Adds 'w' to accumulator 'i' of 'acc'. */
static void
pkt_csum_acc_add(struct pkt_csum_acc *acc, int i, uint64_t w)
{
    acc->sum[i] += w;
    acc->carries[i] += acc->sum[i] < w;
}

/* Adds 'b' to 'a' with an end-around carry. */
static uint64_t
pkt_csum_add64(uint64_t a, uint64_t b)
{
    a += b;
    return a + (a < b);
}

/* Returns the 16-bit ones'-complement fold of 'acc'. */
static uint32_t
pkt_csum_acc_fold(const struct pkt_csum_acc *acc)
{
    uint64_t s = pkt_csum_add64(acc->sum[0], acc->sum[1]);

    s = pkt_csum_add64(s, acc->carries[0] + acc->carries[1]);
    s = (s & 0xffffffff) + (s >> 32);
    s = (s & 0xffffffff) + (s >> 32);
    return pkt_csum_fold(s);
}

/* Adds the final 'n' < 8 bytes at 'p' as one zero-padded word. */
static void
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

/* Copies the 8 bytes at 's' to 'd' and adds them to accumulator 'i'. */
static void
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

/* Checksum completion of whole packets. */

/* Returns the offset of the checksum field within the L4 header of
 * protocol 'proto', or -1 if there is none we fill. */
static int
pkt_csum_l4_ofs(uint8_t proto)
{
    switch (proto) {
    case IPPROTO_TCP:
        return PKT_TCP_OFS(tcp_csum);
    case IPPROTO_UDP:
        return offsetof(struct udp_header, udp_csum);
    case IPPROTO_SCTP:
        return offsetof(struct sctp_header, sctp_csum);
    default:
        return -1;
    }
}

/* Returns the partial sum of the pseudo header of the packet at 'pkt'
 * described by 'info', upper-layer length included. */
static uint32_t
pkt_csum_l4_pseudo(const uint8_t *pkt, const struct pkt_ip_info *info)
{
    return pkt_ip_pseudo_add_len(pkt_ip_pseudo_base(pkt, info->ipv6,
                                                    info->l4_proto),
                                 info->pkt_len - info->l3_len);
}

/* Stores the finished checksum of 'sum' into the L4 header at 'l4'. */
static void
pkt_csum_l4_finish(uint8_t *l4, const struct pkt_ip_info *info, uint32_t sum)
{
    ovs_be16 csum = csum_finish(sum);

    if (info->l4_proto == IPPROTO_UDP && !csum) {
        csum = htons(0xffff);
    }
    pkt_put_be16(l4 + pkt_csum_l4_ofs(info->l4_proto), csum);
}

/* Fills the CRC32c of the SCTP packet at 'l4', 'l4_total' bytes long. */
static void
pkt_csum_sctp_fill(uint8_t *l4, size_t l4_total)
{
    size_t ofs = offsetof(struct sctp_header, sctp_csum);
    ovs_be32 crc;

    memset(l4 + ofs, 0, 4);
    crc = crc32c(l4, l4_total);
    memcpy(l4 + ofs, &crc, sizeof crc);
}

int
pkt_csum_l4_fill(void *pkt, size_t len)
{
    struct pkt_ip_info info;

    return (pkt_ip_parse(pkt, len, &info)
            ? EINVAL : pkt_csum_l4_fill_parsed(pkt, &info));
}

int
pkt_csum_l4_fill_parsed(void *pkt_, const struct pkt_ip_info *info)
{
    uint8_t *pkt = pkt_;
    size_t l4_total;
    uint8_t *l4;
    uint32_t sum;

    if (pkt_csum_l4_ofs(info->l4_proto) < 0) {
        return EINVAL;
    }
    l4 = pkt + info->l3_len;
    l4_total = info->pkt_len - info->l3_len;
    if (info->l4_proto == IPPROTO_SCTP) {
        pkt_csum_sctp_fill(l4, l4_total);
        return 0;
    }
    pkt_put16(l4 + pkt_csum_l4_ofs(info->l4_proto), 0);
    sum = pkt_csum_partial(l4, l4_total, pkt_csum_l4_pseudo(pkt, info));
    pkt_csum_l4_finish(l4, info, sum);
    return 0;
}

int
pkt_csum_l4_copy(void *dst_, const void *pkt_, size_t len)
{
    const uint8_t *pkt = pkt_;
    struct pkt_ip_info info;
    uint8_t *dst = dst_;
    size_t hdr_len;
    uint32_t sum;

    if (pkt_ip_parse(pkt, len, &info)
        || (info.l4_proto != IPPROTO_TCP && info.l4_proto != IPPROTO_UDP)) {
        memcpy(dst, pkt, len);
        return pkt_csum_l4_fill(dst, len);
    }

    hdr_len = info.l3_len + info.l4_len;
    memcpy(dst, pkt, hdr_len);
    pkt_put16(dst + info.l3_len + pkt_csum_l4_ofs(info.l4_proto), 0);
    sum = pkt_csum_partial(dst + info.l3_len, info.l4_len,
                           pkt_csum_l4_pseudo(pkt, &info));
    sum = pkt_csum_copy(dst + hdr_len, pkt + hdr_len, info.payload_len, sum);
    memcpy(dst + info.pkt_len, pkt + info.pkt_len, len - info.pkt_len);
    pkt_csum_l4_finish(dst + info.l3_len, &info, sum);
    return 0;
}
