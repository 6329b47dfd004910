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

/* libFuzzer target for pkt-gro.
 *
 * Built by "make" when configure finds clang with libFuzzer (see
 * tests/automake.mk) and run for a bounded number of inputs by "make
 * check"; run it longer with e.g. "tests/fuzz-pkt-gro -max_total_time=60".
 *
 * A crash file is replayed by giving it to the fuzzer binary as an
 * argument: "fuzz-pkt-gro FILE".
 *
 * The input is a sequence of records, each making one packet of the batch:
 * a record whose first byte has the high bit set is a raw packet (the next
 * two bytes give its length, then its bytes); otherwise the record's bytes
 * describe a well-formed TCP segment (flow, family, flags, length, sequence
 * gap, header variations), so that the fuzzer reaches coalescing quickly.
 *
 * Invariants checked: nothing crashes; the return value counts the packets
 * not merged; merged packets point to an earlier coalesced head; packets
 * that pass are untouched; a coalesced head holds its members' payloads in
 * order with consistent lengths, a valid IPv4 header checksum and the
 * pseudo-header sum in the TCP checksum field; all members but the last
 * carry gso_size bytes and no PSH; no packet of the flow between a head and
 * its last member was left out; and the TCP payload bytes of the batch are
 * the same before and after.  With bit 0x20 of the first byte, the batch's
 * payloads are first placed as a receiver predicting runs places them
 * (fuzz_place()), and the same invariants hold, each packet leaving with
 * nothing placed. */

#include <config.h>

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "fuzz-util.h"
#include "packets.h"
#include "pkt-gro.h"
#include "pkt-ip.h"
#include "test-pkt-util.h"
#include "util.h"

#define FUZZ_MAX_PKTS 96
#define FUZZ_BIG_ROOM (65535 + 64)

struct fuzz_batch {
    size_t n;
    struct pkt_gro_pkt pkts[FUZZ_MAX_PKTS];
    uint8_t *mem[FUZZ_MAX_PKTS];
    uint8_t *orig[FUZZ_MAX_PKTS];
    size_t orig_len[FUZZ_MAX_PKTS];
};

static bool
fuzz_grow(void *aux, struct pkt_gro_pkt *pkt, size_t room)
{
    struct fuzz_batch *b = aux;
    size_t i = pkt - b->pkts;

    FUZZ_CHECK(i < b->n && pkt->len <= pkt->room && room <= 65535 + 40);
    if (room > FUZZ_BIG_ROOM) {
        return false;
    }
    b->mem[i] = xrealloc(b->mem[i], FUZZ_BIG_ROOM);
    pkt->data = b->mem[i];
    pkt->room = FUZZ_BIG_ROOM;
    return true;
}

/* Adds a copy of the 'len' bytes at 'p' to 'b'. */
static void
fuzz_add(struct fuzz_batch *b, const uint8_t *p, size_t len, size_t extra)
{
    size_t i = b->n++;

    b->mem[i] = xmalloc(len + extra + 1);
    memcpy(b->mem[i], p, len);
    b->pkts[i] = (struct pkt_gro_pkt) {
        .data = b->mem[i], .len = len, .room = len + extra,
    };
    b->orig[i] = xmemdup(p, len);
    b->orig_len[i] = len;
}

/* Builds a TCP segment from the record at 'd' ('n' bytes available).
 * Returns the bytes consumed. */
static size_t
fuzz_synth(struct fuzz_batch *b, const uint8_t *d, size_t n,
           uint32_t next_seq[4])
{
    static const uint16_t flags[] = {
        TCP_ACK, TCP_ACK, TCP_ACK, TCP_ACK | TCP_PSH, TCP_ACK | TCP_FIN,
        TCP_ACK | TCP_URG, TCP_SYN, TCP_ACK | TCP_CWR,
    };
    uint8_t r[6] = { 0 };
    struct test_pkt_spec s = { .dport = 80, .ack = 1, .win = 100 };
    uint8_t *buf = xmalloc(FUZZ_BIG_ROOM + 128);
    size_t used = MIN(n, sizeof r), flow;

    memcpy(r, d, used);
    flow = r[0] & 3;
    s.ipv6 = r[0] & 4;
    s.flags = flags[(r[0] >> 3) & 7];
    s.sport = flow;
    s.payload_len = (r[1] << 8 | r[2]) % 4096;
    s.seq = next_seq[flow] + (r[3] & 0x80 ? (int8_t) r[3] : 0);
    s.tcp_opt_len = (r[4] & 3) * 4;
    s.tos = (r[4] >> 2) & 3;
    s.ttl = 64 + ((r[4] >> 4) & 1);
    s.ip_opt_len = r[4] & 0x20 ? 8 : 0;
    s.pad = r[5] & 15;
    s.payload_seed = r[5];
    next_seq[flow] = s.seq + s.payload_len;

    fuzz_add(b, buf, test_pkt_build(&s, buf, FUZZ_BIG_ROOM + 128),
             r[5] & 0x80 ? 0 : 4096);
    free(buf);
    return used;
}

/* Splits the fuzzer input into packets. */
static void
fuzz_parse_input(struct fuzz_batch *b, const uint8_t *d, size_t n)
{
    uint32_t next_seq[4] = { 1, 2, 3, 0xfffff000 };

    while (n && b->n < FUZZ_MAX_PKTS) {
        size_t used;

        if (d[0] & 0x80) {
            size_t len, extra;

            if (n < 3) {
                break;
            }
            len = MIN(((d[1] << 8) | d[2]) & 0x3fff, n - 3);
            extra = d[1] & 0x40 ? 65536 : 0;
            fuzz_add(b, d + 3, len, extra);
            used = 3 + len;
        } else {
            used = fuzz_synth(b, d + 1, n - 1, next_seq) + 1;
        }
        d += used;
        n -= used;
    }
}

/* Returns the TCP payload bytes of the packet of 'len' bytes at 'p', or 0
 * if it is not TCP. */
static size_t
fuzz_tcp_payload(const uint8_t *p, size_t len, struct pkt_ip_info *info)
{
    return (!pkt_ip_parse(p, len, info) && info->l4_proto == IPPROTO_TCP
            ? info->payload_len
            : 0);
}

/* Returns true if input packets 'i' and 'j' of 'b' are TCP packets of the
 * same flow (addresses and ports). */
static bool
fuzz_same_flow(const struct fuzz_batch *b, size_t i, size_t j)
{
    const uint8_t *p = b->orig[i], *q = b->orig[j];
    struct pkt_ip_info pi, qi;

    if (pkt_ip_parse(p, b->orig_len[i], &pi)
        || pkt_ip_parse(q, b->orig_len[j], &qi)
        || pi.l4_proto != IPPROTO_TCP || qi.l4_proto != IPPROTO_TCP
        || pi.ipv6 != qi.ipv6) {
        return false;
    }
    return (!memcmp(p + pi.l3_len, q + qi.l3_len, 4)
            && (pi.ipv6
                ? !memcmp(p + 8, q + 8, 32)
                : !memcmp(p + 12, q + 12, 8)));
}

/* Checks that no packet of head 'h''s flow between 'h' and its last member
 * was left out of the run (that would reorder the flow). */
static void
fuzz_check_order(const struct fuzz_batch *b, size_t h)
{
    size_t last = h;

    for (size_t i = h + 1; i < b->n; i++) {
        if (b->pkts[i].verdict == PKT_GRO_MERGED && b->pkts[i].head == h) {
            last = i;
        }
    }
    for (size_t i = h + 1; i < last; i++) {
        FUZZ_CHECK(!fuzz_same_flow(b, h, i)
                   || (b->pkts[i].verdict == PKT_GRO_MERGED
                       && b->pkts[i].head == h));
    }
}

/* Checks coalesced head 'h'; returns its payload bytes. */
static size_t
fuzz_check_head(const struct fuzz_batch *b, size_t h)
{
    const struct pkt_gro_pkt *pkt = &b->pkts[h];
    size_t hdr = pkt->l3_len + pkt->l4_len, ofs = hdr, n_segs = 0;
    const uint8_t *p = pkt->data;
    struct pkt_ip_info info;
    ovs_be16 ph;

    for (size_t i = h; i < b->n; i++) {
        if (i == h || (b->pkts[i].verdict == PKT_GRO_MERGED
                       && b->pkts[i].head == h)) {
            size_t n = fuzz_tcp_payload(b->orig[i], b->orig_len[i], &info);

            /* Only the last member may be short or carry PSH. */
            FUZZ_CHECK(n > 0 && ofs + n <= pkt->len);
            FUZZ_CHECK(n == pkt->gso_size || ofs + n == pkt->len);
            FUZZ_CHECK(!(b->orig[i][hdr - pkt->l4_len + 13] & TCP_PSH)
                       || ofs + n == pkt->len);
            FUZZ_CHECK(!memcmp(p + ofs, b->orig[i] + hdr, n));
            ofs += n;
            n_segs++;
        }
    }
    FUZZ_CHECK(ofs == pkt->len && n_segs == pkt->n_segs && n_segs >= 2);
    FUZZ_CHECK(fuzz_tcp_payload(p, pkt->len, &info) == pkt->len - hdr);
    FUZZ_CHECK(info.l3_len == pkt->l3_len && info.pkt_len == pkt->len);
    FUZZ_CHECK(pkt->ipv6 || !csum(p, pkt->l3_len));
    ph = ~csum_finish(test_pkt_pseudo(p, IPPROTO_TCP,
                                      pkt->len - pkt->l3_len));
    FUZZ_CHECK(!memcmp(p + pkt->l3_len + 16, &ph, 2));
    return pkt->len - hdr;
}

static void
fuzz_check(const struct fuzz_batch *b, size_t ret)
{
    size_t n_out = 0, in_payload = 0, out_payload = 0;
    struct pkt_ip_info info;

    for (size_t i = 0; i < b->n; i++) {
        const struct pkt_gro_pkt *pkt = &b->pkts[i];

        in_payload += fuzz_tcp_payload(b->orig[i], b->orig_len[i], &info);
        switch (pkt->verdict) {
        case PKT_GRO_PASS:
            FUZZ_CHECK(!pkt->placed);
            FUZZ_CHECK(pkt->len == b->orig_len[i]);
            FUZZ_CHECK(!memcmp(pkt->data, b->orig[i], pkt->len));
            out_payload += fuzz_tcp_payload(pkt->data, pkt->len, &info);
            n_out++;
            break;
        case PKT_GRO_COALESCED:
            out_payload += fuzz_check_head(b, i);
            fuzz_check_order(b, i);
            n_out++;
            break;
        case PKT_GRO_MERGED:
            FUZZ_CHECK(pkt->head < i);
            FUZZ_CHECK(b->pkts[pkt->head].verdict == PKT_GRO_COALESCED);
            break;
        default:
            FUZZ_CHECK(false);
        }
    }
    FUZZ_CHECK(ret == n_out);
    FUZZ_CHECK(in_payload == out_payload);
}

/* Makes head 'h' of 'b' a buffer of FUZZ_BIG_ROOM bytes. */
static void
fuzz_make_big(struct fuzz_batch *b, size_t h)
{
    if (b->pkts[h].room < FUZZ_BIG_ROOM) {
        b->mem[h] = xrealloc(b->mem[h], FUZZ_BIG_ROOM);
        b->pkts[h].data = b->mem[h];
        b->pkts[h].room = FUZZ_BIG_ROOM;
    }
}

/* A receiver's step 3, simulated on 'b': packets one after another, each
 * that continues the prediction (pkt_gro_pred_match() on its first bytes)
 * has its bytes after the headers written behind the run in the head's
 * buffer and its own bytes there overwritten.  Only packets without bytes
 * past their IP length take part, as a receiver places those only. */
static void
fuzz_place(struct fuzz_batch *b)
{
    struct pkt_gro_pred pred;
    size_t head = SIZE_MAX;

    for (size_t i = 0; i < b->n; i++) {
        struct pkt_gro_pkt *pkt = &b->pkts[i];
        size_t payload, rest;
        bool ends;

        if (head != SIZE_MAX && pkt->len > pred.hdr_len
            && pkt_gro_pred_match(&pred, pkt->data, pred.hdr_len, &payload,
                                  &ends)
            && pred.hdr_len + payload == pkt->len
            && pred.total + payload <= FUZZ_BIG_ROOM) {
            uint8_t *to;

            fuzz_make_big(b, head);
            pred.head = b->pkts[head].data;
            to = b->pkts[head].data + pred.total;
            rest = pkt->len - pred.hdr_len;
            memcpy(to, pkt->data + pred.hdr_len, rest);
            memset(pkt->data + pred.hdr_len, 0xee, rest);
            pkt->placed = to;
            pkt->placed_ofs = pred.hdr_len;
            pkt_gro_pred_advance(&pred, payload);
            head = ends ? SIZE_MAX : head;
            continue;
        }
        head = (pkt_gro_pred_start(&pred, pkt->data, pkt->len)
                && pred.total == pkt->len ? i : SIZE_MAX);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool use_grow = !size || !(data[0] & 0x40);
    struct fuzz_batch b = { .n = 0 };
    size_t ret;

    fuzz_parse_input(&b, data, size);
    if (size && data[0] & 0x20) {
        fuzz_place(&b);
    }
    ret = pkt_gro_batch(b.pkts, b.n, use_grow ? fuzz_grow : NULL, &b);
    fuzz_check(&b, ret);
    for (size_t i = 0; i < b.n; i++) {
        free(b.mem[i]);
        free(b.orig[i]);
    }
    return 0;
}
