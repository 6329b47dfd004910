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

#include <netinet/in.h>

#include "csum.h"
#include "packets.h"
#include "pkt-gro.h"
#include "pkt-gso.h"
#include "test-pkt-util.h"
#include "util.h"
#include "wgtest.h"

/* Property test: random TCP super-packets (one or two flows at a time) are
 * segmented by pkt-gso, every segment's checksums are verified with OVS's
 * csum(), the segments of both flows are interleaved and coalesced by
 * pkt-gro, and the result must give back each original: the same bytes
 * (except that the TCP checksum field holds the pseudo-header sum) when the
 * flags allow one coalesced packet, and the same payload bytes in order
 * always. */

#define HEADROOM 16
#define TAILROOM 32
#define MAX_SEGS 256
#define BIG_ROOM (64 * 1024 + 128)

/* One super-packet and its segments. */
struct flow {
    struct test_pkt_spec spec;
    uint8_t *orig;
    size_t len, hdr_len, mss, n_segs;
    uint8_t *arena;
    struct pkt_gso_slot slots[MAX_SEGS];
};

/* Memory that the grow callback allocates, per packet. */
struct grown {
    uint8_t *mem[2 * MAX_SEGS];
    struct pkt_gro_pkt *base;
};

static bool
grow_cb(void *aux, struct pkt_gro_pkt *pkt, size_t room)
{
    struct grown *g = aux;
    size_t i = pkt - g->base;
    uint8_t *mem = xmalloc(BIG_ROOM);

    WGTEST_CHECK(room <= 65535 + 40);
    memcpy(mem, pkt->data, pkt->len);
    free(g->mem[i]);
    g->mem[i] = mem;
    pkt->data = mem;
    pkt->room = BIG_ROOM;
    return true;
}

static uint16_t
random_flags(void)
{
    static const uint16_t flags[] = {
        TCP_ACK, TCP_ACK | TCP_PSH, TCP_ACK, TCP_ACK | TCP_PSH,
        TCP_ACK | TCP_FIN, TCP_ACK | TCP_PSH | TCP_FIN, TCP_ACK | TCP_CWR,
        TCP_ACK | TCP_ECE, TCP_ACK | TCP_URG, TCP_ACK | TCP_PSH | TCP_CWR,
    };

    return flags[wgtest_random() % ARRAY_SIZE(flags)];
}

/* Builds a random super-packet for flow number 'id' into 'f'. */
static void
flow_build(struct flow *f, int id)
{
    struct test_pkt_spec *s = &f->spec;
    size_t l3, max_payload;

    memset(s, 0, sizeof *s);
    s->ipv6 = wgtest_random() & 1;
    s->tcp_opt_len = (wgtest_random() % 11) * 4;
    s->tos = wgtest_random();
    s->ttl = 1 + wgtest_random() % 255;
    s->frag = !s->ipv6 && wgtest_random() & 1 ? IP_DONT_FRAGMENT : 0;
    s->flow_label = wgtest_random() & 0xfffff;
    s->ip_id = wgtest_random();
    s->sport = 1000 + id;
    s->dport = wgtest_random();
    s->seq = wgtest_random();
    s->ack = wgtest_random();
    s->win = wgtest_random();
    s->flags = random_flags();
    s->urg = s->flags & TCP_URG ? wgtest_random() % 20000 : 0;
    s->opt_seed = wgtest_random();
    s->payload_seed = wgtest_random();
    s->pad = wgtest_random() % 16;

    l3 = s->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    f->hdr_len = l3 + TCP_HEADER_LEN + s->tcp_opt_len;
    max_payload = (s->ipv6 ? 65535 + l3 : 65535) - f->hdr_len;
    s->payload_len = (wgtest_random() & 1
                      ? max_payload - wgtest_random() % 64
                      : wgtest_random() % 5000);
    f->orig = xmalloc(BIG_ROOM);
    f->len = test_pkt_build(s, f->orig, BIG_ROOM);
}

/* Segments 'f' with a random MSS and checks every segment's checksums. */
static void
flow_segment(struct flow *f)
{
    static const size_t mss_choices[] = { 536, 1200, 1380, 1448, 8948 };
    size_t payload = f->spec.payload_len, slot_size;
    size_t min_mss = MAX(1, DIV_ROUND_UP(payload, MAX_SEGS));
    struct pkt_gso_params params;

    f->mss = (wgtest_random() % 3
              ? mss_choices[wgtest_random() % ARRAY_SIZE(mss_choices)]
              : 1 + wgtest_random() % 3000);
    f->mss = MAX(f->mss, min_mss);
    slot_size = HEADROOM + f->hdr_len + f->mss + TAILROOM;
    f->arena = xmalloc(MAX_SEGS * slot_size);
    for (size_t i = 0; i < MAX_SEGS; i++) {
        f->slots[i] = (struct pkt_gso_slot) {
            .base = f->arena + i * slot_size, .room = slot_size,
        };
    }
    params = (struct pkt_gso_params) { f->mss, HEADROOM, TAILROOM };
    WGTEST_CHECK(!pkt_gso_segment(f->orig, f->len, &params, f->slots,
                                  MAX_SEGS, &f->n_segs));
    for (size_t i = 0; i < f->n_segs; i++) {
        WGTEST_CHECK(test_pkt_csums_ok(f->slots[i].base + HEADROOM,
                                       f->hdr_len - TCP_HEADER_LEN
                                       - f->spec.tcp_opt_len,
                                       f->slots[i].len));
    }
}

/* Checks what pkt-gro made of the segments of 'f' ('pkts', 'n' packets in
 * the batch, of which those with flow[] == 'id' are this flow's). */
static void
flow_check(const struct flow *f, const struct pkt_gro_pkt *pkts,
           const int *flow_of, size_t n, int id)
{
    size_t l3 = f->hdr_len - TCP_HEADER_LEN - f->spec.tcp_opt_len;
    size_t pkt_len = f->len - f->spec.pad, ofs = 0, n_out = 0;
    uint16_t flags = f->spec.flags;
    const struct pkt_gro_pkt *last = NULL;

    for (size_t i = 0; i < n; i++) {
        const struct pkt_gro_pkt *p = &pkts[i];
        size_t payload = p->len - f->hdr_len;

        if (flow_of[i] != id || p->verdict == PKT_GRO_MERGED) {
            continue;
        }
        WGTEST_CHECK_MEM(p->data + f->hdr_len, f->orig + f->hdr_len + ofs,
                         payload);
        if (p->verdict == PKT_GRO_COALESCED) {
            ovs_be16 ph = ~csum_finish(test_pkt_pseudo(p->data, IPPROTO_TCP,
                                                       p->len - l3));

            WGTEST_CHECK_MEM(p->data + l3 + 16, &ph, 2);
            WGTEST_CHECK(p->gso_size == f->mss || p->n_segs == 1);
        } else {
            WGTEST_CHECK(test_pkt_csums_ok(p->data, l3, p->len));
        }
        ofs += payload;
        n_out++;
        last = p;
    }
    WGTEST_CHECK(ofs == f->spec.payload_len);

    /* With only ACK or ACK|PSH, one packet equal to the original. */
    if (flags == TCP_ACK || flags == (TCP_ACK | TCP_PSH)) {
        uint8_t *copy = xmemdup(last->data, last->len);

        WGTEST_CHECK(n_out == 1);
        WGTEST_CHECK(last->len == pkt_len);
        WGTEST_CHECK(last->verdict == (f->n_segs > 1 ? PKT_GRO_COALESCED
                                       : PKT_GRO_PASS));
        WGTEST_CHECK(f->n_segs == 1 || last->n_segs == f->n_segs);
        memcpy(copy + l3 + 16, f->orig + l3 + 16, 2);
        WGTEST_CHECK_MEM(copy, f->orig, pkt_len);
        free(copy);
    }
}

/* Totals printed at the end, to show what the run covered. */
static size_t n_segments, n_coalesced, n_big;

/* Runs one round trip of 'n_flows' flows. */
static void
roundtrip(int n_flows)
{
    struct pkt_gro_pkt pkts[2 * MAX_SEGS];
    int flow_of[2 * MAX_SEGS];
    struct grown grown = { .base = pkts };
    struct flow flows[2];
    size_t next[2] = { 0, 0 }, n = 0, total = 0;

    for (int i = 0; i < n_flows; i++) {
        flow_build(&flows[i], i);
        flow_segment(&flows[i]);
        total += flows[i].n_segs;
        n_big += flows[i].spec.payload_len > 60000;
    }
    /* Interleave the flows at random, each in its own order. */
    while (n < total) {
        int i = n_flows > 1 ? wgtest_random() & 1 : 0;
        struct pkt_gso_slot *slot;

        if (next[i] == flows[i].n_segs) {
            i = !i;
        }
        slot = &flows[i].slots[next[i]++];
        pkts[n] = (struct pkt_gro_pkt) {
            .data = slot->base + HEADROOM, .len = slot->len,
            .room = slot->room - HEADROOM,
        };
        flow_of[n++] = i;
    }

    pkt_gro_batch(pkts, n, grow_cb, &grown);
    n_segments += n;
    for (size_t i = 0; i < n; i++) {
        n_coalesced += pkts[i].verdict == PKT_GRO_COALESCED;
    }
    for (int i = 0; i < n_flows; i++) {
        flow_check(&flows[i], pkts, flow_of, n, i);
        free(flows[i].orig);
        free(flows[i].arena);
    }
    for (size_t i = 0; i < n; i++) {
        free(grown.mem[i]);
    }
}

static void
test_pkt_roundtrip_main(int argc, char *argv[])
{
    int iterations = argc > 1 ? atoi(argv[1]) : 400;

    wgtest_random_seed(0x5eed);
    for (int i = 0; i < iterations; i++) {
        roundtrip(1 + i % 2);
    }
    printf("%d round trips: %zu segments, %zu coalesced packets, "
           "%zu super-packets over 60000 bytes\n",
           iterations, n_segments, n_coalesced, n_big);
}
WGTEST_REGISTER("pkt-gso-gro", test_pkt_roundtrip_main);
