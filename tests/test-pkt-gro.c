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
#include "pkt-gro.h"

#include <netinet/in.h>

#include "csum.h"
#include "packets.h"
#include "pkt-gso.h"
#include "test-pkt-util.h"
#include "util.h"
#include "wgtest.h"

#define BIG_ROOM (64 * 1024 + 128)
#define MAX_PKTS 80
#define P -1                    /* Expected: passes untouched. */

/* A batch under test: the packets, copies of the originals, and what the
 * test expects. */
struct batch {
    size_t n;
    struct pkt_gro_pkt pkts[MAX_PKTS];
    uint8_t *orig[MAX_PKTS];
    size_t orig_len[MAX_PKTS];
    uint8_t *mem[MAX_PKTS];     /* What to free. */
    struct test_pkt_spec spec[MAX_PKTS];
    int expect[MAX_PKTS];       /* P, own index (head), or the head's. */
    uint8_t *dead[MAX_PKTS];    /* Buffers of removed packets, freed last
                                 * (placed bytes may be there). */
    size_t n_dead;
};

enum room_mode {
    ROOM_BIG,                   /* Room for 64 KB, no grow callback. */
    ROOM_GROW,                  /* Tight room, a grow callback. */
    ROOM_TIGHT,                 /* Tight room, no callback. */
    ROOM_GROW_FAILS,            /* Tight room, a callback that fails. */
    ROOM_PLACED,                /* As ROOM_BIG, with payloads placed as a
                                 * receiver predicting runs places them
                                 * (batch_place()). */
};

static bool
grow_cb(void *aux, struct pkt_gro_pkt *pkt, size_t room)
{
    struct batch *b = aux;
    size_t i = pkt - b->pkts;
    uint8_t *mem;

    WGTEST_CHECK(i < b->n && room > pkt->room && room <= 65535 + 40);
    WGTEST_CHECK(pkt->len <= pkt->room);
    mem = xmalloc(BIG_ROOM + 1);
    memcpy(mem + 1, pkt->data, pkt->len);          /* Odd alignment. */
    free(b->mem[i]);
    b->mem[i] = mem;
    pkt->data = mem + 1;
    pkt->room = BIG_ROOM;
    return true;
}

static bool
grow_fail_cb(void *aux OVS_UNUSED, struct pkt_gro_pkt *pkt OVS_UNUSED,
             size_t room OVS_UNUSED)
{
    return false;
}

/* Adds the packet 'spec' to 'b', expecting 'expect'. */
static void
batch_add(struct batch *b, const struct test_pkt_spec *spec, int expect,
          enum room_mode mode)
{
    size_t i = b->n++;
    uint8_t *tmp = xmalloc(BIG_ROOM);
    size_t len = test_pkt_build(spec, tmp, BIG_ROOM);
    size_t room = mode == ROOM_BIG ? BIG_ROOM : len;
    size_t align = mode == ROOM_BIG ? 0 : i % 4;

    ovs_assert(i < MAX_PKTS);
    b->mem[i] = xmalloc(room + align);
    memcpy(b->mem[i] + align, tmp, len);
    b->pkts[i] = (struct pkt_gro_pkt) {
        .data = b->mem[i] + align, .len = len, .room = room,
    };
    b->orig[i] = tmp;
    b->orig_len[i] = len;
    b->spec[i] = *spec;
    b->expect[i] = expect;
}

static void
batch_free(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->mem[i]);
        free(b->orig[i]);
    }
    for (size_t i = 0; i < b->n_dead; i++) {
        free(b->dead[i]);
    }
    b->n = b->n_dead = 0;
}

/* Checks coalesced head 'h' of 'b'. */
static void
check_head(const struct batch *b, size_t h)
{
    const struct pkt_gro_pkt *pkt = &b->pkts[h];
    const struct test_pkt_spec *spec = &b->spec[h];
    size_t l3 = spec->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    size_t l4 = TCP_HEADER_LEN + spec->tcp_opt_len, hdr = l3 + l4;
    const uint8_t *p = pkt->data, *o = b->orig[h];
    uint16_t flags = spec->flags;
    size_t ofs = hdr, n_segs = 0;
    uint8_t *copy;
    ovs_be16 ph;

    /* The payloads, in order, and the segment count. */
    for (size_t i = h; i < b->n; i++) {
        if (b->expect[i] == h) {
            size_t n = b->spec[i].payload_len;

            WGTEST_CHECK(ofs + n <= pkt->len);
            WGTEST_CHECK_MEM(p + ofs, b->orig[i] + hdr, n);
            ofs += n;
            n_segs++;
            flags |= b->spec[i].flags & TCP_PSH;
        }
    }
    WGTEST_CHECK(ofs == pkt->len);
    WGTEST_CHECK(pkt->n_segs == n_segs);
    WGTEST_CHECK(pkt->gso_size == spec->payload_len);
    WGTEST_CHECK(pkt->ipv6 == spec->ipv6);
    WGTEST_CHECK(pkt->l3_len == l3 && pkt->l4_len == l4);

    /* Headers: lengths, IPv4 checksum, PSH, the pseudo-header sum. */
    if (spec->ipv6) {
        WGTEST_CHECK(test_pkt_get16(p + 4) == pkt->len - l3);
        WGTEST_CHECK_MEM(p, o, 4);
        WGTEST_CHECK_MEM(p + 6, o + 6, l3 - 6);
    } else {
        WGTEST_CHECK(test_pkt_get16(p + 2) == pkt->len);
        WGTEST_CHECK(!csum(p, l3));
        WGTEST_CHECK_MEM(p, o, 2);
        WGTEST_CHECK_MEM(p + 4, o + 4, 6);
        WGTEST_CHECK_MEM(p + 12, o + 12, 8);
    }
    WGTEST_CHECK_MEM(p + l3, o + l3, 12);
    WGTEST_CHECK(test_pkt_get16(p + l3 + 12) == ((l4 / 4) << 12 | flags));
    WGTEST_CHECK_MEM(p + l3 + 14, o + l3 + 14, 2);
    WGTEST_CHECK_MEM(p + l3 + 18, o + l3 + 18, l4 - 18);
    ph = ~csum_finish(test_pkt_pseudo(p, IPPROTO_TCP, pkt->len - l3));
    WGTEST_CHECK_MEM(p + l3 + 16, &ph, 2);

    /* Completing it the way a NEEDS_CSUM receiver does gives a valid
     * packet. */
    copy = xmemdup(p, pkt->len);
    ph = csum(copy + l3, pkt->len - l3);
    memcpy(copy + l3 + 16, &ph, 2);
    WGTEST_CHECK(test_pkt_csums_ok(copy, l3, pkt->len));
    free(copy);
}

/* Runs pkt_gro_batch() on 'b' and checks every packet. */
static void
batch_run(struct batch *b, enum room_mode mode, const char *name)
{
    pkt_gro_grow_func *grow = (mode == ROOM_GROW ? grow_cb
                               : mode == ROOM_GROW_FAILS ? grow_fail_cb
                               : NULL);
    size_t n_out = 0, ret;

    ret = pkt_gro_batch(b->pkts, b->n, grow, b);
    for (size_t i = 0; i < b->n; i++) {
        const struct pkt_gro_pkt *pkt = &b->pkts[i];
        int e = b->expect[i];

        if (e == P ? pkt->verdict != PKT_GRO_PASS
            : e == i ? pkt->verdict != PKT_GRO_COALESCED
            : pkt->verdict != PKT_GRO_MERGED || pkt->head != e) {
            fprintf(stderr, "%s: packet %zu: verdict %d head %zu, "
                    "expected %d\n", name, i, pkt->verdict, pkt->head, e);
            WGTEST_CHECK(false);
        }
        WGTEST_CHECK(!pkt->placed);
        if (e == P) {
            WGTEST_CHECK(pkt->len == b->orig_len[i]);
            WGTEST_CHECK_MEM(pkt->data, b->orig[i], pkt->len);
        } else if (e == i) {
            check_head(b, i);
        }
        n_out += e != P && e != i ? 0 : 1;
    }
    WGTEST_CHECK(ret == n_out);
}

/* Removes packet 'i' from 'b'. */
static void
batch_remove(struct batch *b, size_t i)
{
    b->dead[b->n_dead++] = b->mem[i];
    free(b->orig[i]);
    b->n--;
    for (size_t j = i; j < b->n; j++) {
        b->pkts[j] = b->pkts[j + 1];
        b->orig[j] = b->orig[j + 1];
        b->orig_len[j] = b->orig_len[j + 1];
        b->mem[j] = b->mem[j + 1];
        b->spec[j] = b->spec[j + 1];
        b->expect[j] = b->expect[j + 1];
    }
}

/* A receiver's step 3 on 'b' (built with ROOM_BIG), simulated: packets
 * arrive one after another; one that continues the prediction
 * (pkt_gro_pred_match() on its headers) gets its bytes after the headers
 * written behind the run in the head's buffer, as the cipher would write
 * them, and its own bytes there overwritten.  Packet 'fail' fails its
 * tag: its placed bytes become zeros, it leaves the batch and the
 * prediction stays; packet 'drop' is dropped later (a replay): it leaves
 * the batch after its bytes were placed. */
static void
batch_place(struct batch *b, size_t fail, size_t drop)
{
    struct pkt_gro_pred pred;
    bool active = false;
    uint8_t *head = NULL;
    size_t n = b->n;

    for (size_t i = 0, k = 0; k < n; k++) {
        struct pkt_gro_pkt *pkt = &b->pkts[i];
        uint8_t *to = active ? head + pred.total : NULL;
        size_t payload, rest = active ? pkt->len - pred.hdr_len : 0;
        bool ends;

        if (active && pred.total + rest <= BIG_ROOM
            && pkt_gro_pred_match(&pred, pkt->data, pred.hdr_len, &payload,
                                  &ends)) {
            memcpy(to, pkt->data + pred.hdr_len, rest);
            memset(pkt->data + pred.hdr_len, 0xee, rest);
            pkt->placed = to;
            pkt->placed_ofs = pred.hdr_len;
            if (k == fail) {
                memset(to, 0, rest);
                batch_remove(b, i);
                continue;
            }
            pkt_gro_pred_advance(&pred, payload);
            active = !ends;
        } else if (k == fail) {
            batch_remove(b, i);
            continue;
        } else if ((active = pkt_gro_pred_start(&pred, pkt->data,
                                                pkt->len))) {
            head = pkt->data;
        }
        if (k == drop) {
            batch_remove(b, i);
            continue;
        }
        i++;
    }
}

/* One packet of a table case; the test fills ports, addresses, sequence
 * numbers (continuing the flow after 'skip' bytes), ack, window. */
struct gro_desc {
    struct test_pkt_spec s;     /* .sport is a flow number here; .ack and
                                 * .win are added to the defaults. */
    int32_t skip;
};

struct gro_case {
    const char *name;
    int family;                 /* 4 or 6 for one family, 0 for both. */
    size_t n;
    struct gro_desc pkts[8];
    int expect[8];
};

#define SEG(N, ...) { .s = { .payload_len = N, __VA_ARGS__ } }
#define GAP(N, SKIP, ...) { .s = { .payload_len = N, __VA_ARGS__ }, \
                            .skip = SKIP }
#define PSH .flags = TCP_ACK | TCP_PSH
#define ACK TCP_ACK

static const struct gro_case gro_cases[] = {
    { "single", 0, 1, { SEG(1000) }, { P } },
    { "three", 0, 3, { SEG(1000), SEG(1000), SEG(1000) }, { 0, 0, 0 } },
    { "tiny last ends run", 0, 5,
      { SEG(1000), SEG(1000), SEG(1), SEG(1000), SEG(1000) },
      { 0, 0, 0, 3, 3 } },
    { "larger segment", 0, 3, { SEG(500), SEG(1000), SEG(1000) },
      { P, 1, 1 } },
    { "gap", 0, 3, { SEG(1000), GAP(1000, 1), SEG(1000) }, { P, 1, 1 } },
    { "retransmission", 0, 3,
      { SEG(1000), GAP(1000, -1000), SEG(1000) }, { P, 1, 1 } },
    { "psh ends run", 0, 3, { SEG(1000), SEG(1000, PSH), SEG(1000) },
      { 0, 0, P } },
    { "psh on first", 0, 2, { SEG(1000, PSH), SEG(1000) }, { P, P } },
    { "fin", 0, 3,
      { SEG(1000), SEG(1000), SEG(1000, .flags = ACK | TCP_FIN) },
      { 0, 0, P } },
    { "fin psh", 0, 3,
      { SEG(1000), SEG(1000), SEG(1000, .flags = ACK | TCP_PSH | TCP_FIN) },
      { 0, 0, P } },
    { "syn", 0, 3,
      { SEG(1000), SEG(1000, .flags = ACK | TCP_SYN), SEG(1000) },
      { P, P, P } },
    { "rst", 0, 3, { SEG(1000), SEG(1000, .flags = TCP_RST), SEG(1000) },
      { P, P, P } },
    { "urg", 0, 4,
      { SEG(1000), SEG(1000, .flags = ACK | TCP_URG, .urg = 5),
        SEG(1000), SEG(1000) },
      { P, P, 2, 2 } },
    { "cwr", 0, 3, { SEG(1000, .flags = ACK | TCP_CWR), SEG(1000),
                     SEG(1000) }, { P, 1, 1 } },
    { "ece", 0, 3, { SEG(1000), SEG(1000), SEG(1000, .flags = ACK | TCP_ECE) },
      { 0, 0, P } },
    { "ns", 0, 2, { SEG(1000), SEG(1000, .flags = ACK | TCP_NS) },
      { P, P } },
    { "no ack flag", 0, 2, { SEG(1000, .flags = TCP_PSH), SEG(1000) },
      { P, P } },
    { "pure ack in between", 0, 3, { SEG(1000), SEG(0), SEG(1000) },
      { P, P, P } },
    { "tos differs", 0, 3, { SEG(1000), SEG(1000, .tos = 4), SEG(1000) },
      { P, P, P } },
    { "ecn ce differs", 0, 3,
      { SEG(1000, .tos = 1), SEG(1000, .tos = 3), SEG(1000, .tos = 3) },
      { P, 1, 1 } },
    { "ttl differs", 0, 3, { SEG(1000), SEG(1000), SEG(1000, .ttl = 9) },
      { 0, 0, P } },
    { "df differs", 4, 3,
      { SEG(1000, .frag = IP_DONT_FRAGMENT),
        SEG(1000, .frag = IP_DONT_FRAGMENT), SEG(1000) },
      { 0, 0, P } },
    { "same df", 4, 2, { SEG(1000, .frag = IP_DONT_FRAGMENT),
                         SEG(1000, .frag = IP_DONT_FRAGMENT) }, { 0, 0 } },
    { "flow label differs", 6, 2, { SEG(1000), SEG(1000, .flow_label = 1) },
      { P, P } },
    { "ack differs", 0, 2, { SEG(1000), SEG(1000, .ack = 1) }, { P, P } },
    { "window differs", 0, 2, { SEG(1000), SEG(1000, .win = 1) }, { P, P } },
    { "same tcp options", 0, 3,
      { SEG(1000, .tcp_opt_len = 12), SEG(1000, .tcp_opt_len = 12),
        SEG(1000, .tcp_opt_len = 12) }, { 0, 0, 0 } },
    { "tcp options differ", 0, 3,
      { SEG(1000, .tcp_opt_len = 12), SEG(1000, .tcp_opt_len = 12,
                                          .opt_seed = 1),
        SEG(1000, .tcp_opt_len = 12, .opt_seed = 1) }, { P, 1, 1 } },
    { "tcp option length differs", 0, 2,
      { SEG(1000, .tcp_opt_len = 12), SEG(1000, .tcp_opt_len = 16) },
      { P, P } },
    { "ip options", 0, 3,
      { SEG(1000, .ip_opt_len = 8), SEG(1000, .ip_opt_len = 8),
        SEG(1000, .ip_opt_len = 8) }, { P, P, P } },
    { "ip options mid-run", 0, 4,
      { SEG(1000), SEG(1000, .ip_opt_len = 8), SEG(1000), SEG(1000) },
      { P, P, 2, 2 } },
    { "fragment", 4, 3,
      { SEG(1000), SEG(1000, .frag = IP_MORE_FRAGMENTS), SEG(1000) },
      { P, P, P } },
    { "udp", 0, 3,
      { SEG(1000, .proto = IPPROTO_UDP), SEG(1000, .proto = IPPROTO_UDP),
        SEG(1000, .proto = IPPROTO_UDP) }, { P, P, P } },
    { "two flows interleaved", 0, 5,
      { SEG(1000), SEG(900, .sport = 1), SEG(1000), SEG(900, .sport = 1),
        SEG(1000) }, { 0, 1, 0, 1, 0 } },
    { "other addresses are another flow", 0, 3,
      { SEG(1000), SEG(1000, .addr = 1), GAP(1000, -1000) }, { 0, P, 0 } },
    { "padding", 0, 3,
      { SEG(1000, .pad = 15), SEG(1000, .pad = 3), SEG(999, .pad = 1) },
      { 0, 0, 0 } },
    { "padding, small last", 0, 2,
      { SEG(1000, .pad = 15), SEG(20, .pad = 3) }, { 0, 0 } },
};

/* Fills in the flow-dependent fields of packet 'i' of case 'c'. */
static void
make_spec(const struct gro_case *c, size_t i, bool ipv6, uint32_t *next_seq,
          struct test_pkt_spec *spec)
{
    const struct gro_desc *d = &c->pkts[i];
    size_t flow = d->s.sport;

    *spec = d->s;
    spec->ipv6 = ipv6;
    spec->sport = 1000 + flow;
    spec->dport = 80;
    spec->seq = next_seq[flow] + d->skip;
    spec->ack = 5555 + d->s.ack;
    spec->win = 1000 + d->s.win;
    spec->flags = d->s.flags ? d->s.flags : TCP_ACK;
    spec->payload_seed = i * 1000;
    next_seq[flow] = spec->seq + spec->payload_len;
}

static void
run_case(const struct gro_case *c, bool ipv6, enum room_mode mode,
         uint32_t seq0)
{
    uint32_t next_seq[2] = { seq0, 7 };
    struct batch b = { .n = 0 };
    bool merges = (mode == ROOM_BIG || mode == ROOM_GROW
                   || mode == ROOM_PLACED);

    for (size_t i = 0; i < c->n; i++) {
        struct test_pkt_spec spec;
        int e = c->expect[i];

        make_spec(c, i, ipv6, next_seq, &spec);
        /* Without room, nothing coalesces. */
        batch_add(&b, &spec, merges ? e : P,
                  mode == ROOM_PLACED ? ROOM_BIG : mode);
    }
    if (mode == ROOM_PLACED) {
        batch_place(&b, SIZE_MAX, SIZE_MAX);
        mode = ROOM_BIG;
    }
    batch_run(&b, mode, c->name);
    batch_free(&b);
}

static void
test_gro_cases(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(gro_cases); i++) {
        const struct gro_case *c = &gro_cases[i];

        for (int v6 = 0; v6 < 2; v6++) {
            if (c->family == (v6 ? 4 : 6)) {
                continue;
            }
            for (int mode = ROOM_BIG; mode <= ROOM_PLACED; mode++) {
                run_case(c, v6, mode, 1000);
            }
            run_case(c, v6, ROOM_BIG, 0xfffff000);   /* Sequence wraps. */
        }
    }
}

/* Placed payloads when a message of the flow fails its tag or is dropped
 * after it was placed, in the middle of a run: the run's earlier segments
 * stay intact, the packets after it are whole (moved back, or moved to
 * the run they do continue), and each packet comes out right.  Given as
 * (case, packet that fails, packet dropped, expectations for the packets
 * left). */
static void
test_gro_placed_failures(void)
{
    static const struct {
        const char *name;
        size_t n, fail, drop;
        int expect[8];
    } cases[] = {
        { "bad tag mid-run", 6, 2, SIZE_MAX, { 0, 0, 2, 2, 2 } },
        { "bad tag on the second", 4, 1, SIZE_MAX, { P, 1, 1 } },
        { "bad tag on the last", 4, 3, SIZE_MAX, { 0, 0, 0 } },
        { "dropped mid-run", 6, SIZE_MAX, 2, { 0, 0, 2, 2, 2 } },
        { "dropped head", 4, SIZE_MAX, 0, { 0, 0, 0 } },
        { "bad tag, then dropped", 7, 2, 4, { 0, 0, P, 3, 3 } },
    };

    for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
        for (int v6 = 0; v6 < 2; v6++) {
            struct batch b = { .n = 0 };
            uint32_t seq = 1;

            for (size_t i = 0; i < cases[c].n; i++) {
                struct test_pkt_spec spec = {
                    .ipv6 = v6, .sport = 1, .dport = 2, .seq = seq,
                    .flags = TCP_ACK, .payload_len = 1000,
                    .payload_seed = i,
                };

                batch_add(&b, &spec, P, ROOM_BIG);
                seq += spec.payload_len;
            }
            batch_place(&b, cases[c].fail, cases[c].drop);
            for (size_t i = 0; i < b.n; i++) {
                b.expect[i] = cases[c].expect[i];
            }
            batch_run(&b, ROOM_BIG, cases[c].name);
            batch_free(&b);
        }
    }
}

/* Runs one flow of segments of 'sizes' through GRO, expecting 'expect'. */
static void
run_sizes(bool ipv6, const size_t *sizes, const int *expect, size_t n)
{
    struct batch b = { .n = 0 };
    uint32_t seq = 1;

    for (size_t i = 0; i < n; i++) {
        struct test_pkt_spec spec = {
            .ipv6 = ipv6, .sport = 1, .dport = 2, .seq = seq,
            .flags = TCP_ACK, .payload_len = sizes[i], .payload_seed = i,
        };

        batch_add(&b, &spec, expect[i], i % 2 ? ROOM_GROW : ROOM_BIG);
        seq += spec.payload_len;
    }
    batch_run(&b, ROOM_GROW, "64 KB limit");
    batch_free(&b);
}

static void
test_gro_limits(void)
{
    size_t sizes[47];
    int expect[47];

    /* 45 segments of 1448 fit (IPv4 65200 bytes, IPv6 payload 65180), the
     * 46th starts a new run. */
    for (int i = 0; i < 47; i++) {
        sizes[i] = 1448;
        expect[i] = i < 45 ? 0 : 45;
    }
    run_sizes(false, sizes, expect, 47);
    run_sizes(true, sizes, expect, 47);

    /* Exactly 65535 bytes of IPv4 total length or IPv6 payload length, then
     * one byte more. */
    for (int i = 0; i < 6; i++) {
        sizes[i] = i < 5 ? 13099 : 1;
        expect[i] = i < 5 ? 0 : P;
    }
    run_sizes(false, sizes, expect, 6);
    for (int i = 0; i < 5; i++) {
        sizes[i] = 13103;
    }
    run_sizes(true, sizes, expect, 6);

    /* One byte below the limit: a last byte still fits, two do not. */
    sizes[0] = sizes[1] = 32747;
    sizes[2] = 1;
    expect[0] = expect[1] = expect[2] = 0;
    run_sizes(false, sizes, expect, 3);
    sizes[2] = 2;
    expect[2] = P;
    run_sizes(false, sizes, expect, 3);
}

/* 64 flows fill the flow table: a 65th flow passes untouched, while the
 * first 64 still coalesce. */
static void
test_gro_flow_limit(void)
{
    struct batch b = { .n = 0 };

    for (size_t i = 0; i < 67; i++) {
        bool extra = i == 64 || i == 65;
        struct test_pkt_spec spec = {
            .sport = i < 64 ? 1000 + i : extra ? 2000 : 1000,
            .dport = 80, .flags = TCP_ACK, .payload_len = 100,
            .seq = i == 65 || i == 66 ? 101 : 1, .payload_seed = i,
        };

        batch_add(&b, &spec, extra ? P : i == 66 ? 0 : i ? P : 0,
                  ROOM_BIG);
    }
    batch_run(&b, ROOM_BIG, "flow table full");
    batch_free(&b);
}

/* Batches of odd shapes. */
static void
test_gro_misc(void)
{
    struct pkt_gro_pkt pkts[3];
    uint8_t junk[3][64];

    WGTEST_CHECK(pkt_gro_batch(pkts, 0, NULL, NULL) == 0);
    for (int i = 0; i < 3; i++) {
        memset(junk[i], i * 0x33, sizeof junk[i]);
        pkts[i] = (struct pkt_gro_pkt) { .data = junk[i], .len = i * 20,
                                         .room = 64 };
    }
    WGTEST_CHECK(pkt_gro_batch(pkts, 3, NULL, NULL) == 3);
    for (int i = 0; i < 3; i++) {
        WGTEST_CHECK(pkts[i].verdict == PKT_GRO_PASS);
        WGTEST_CHECK(pkts[i].len == i * 20 && junk[i][0] == i * 0x33);
    }
}

static void
test_pkt_gro_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_gro_cases();
    test_gro_placed_failures();
    test_gro_limits();
    test_gro_flow_limit();
    test_gro_misc();
}
WGTEST_REGISTER("pkt-gro", test_pkt_gro_main);
