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
#include "pkt-gso.h"

#include <errno.h>
#include <netinet/in.h>

#include "crc32c.h"
#include "csum.h"
#include "packets.h"
#include "pkt-csum.h"
#include "pkt-ip.h"
#include "test-pkt-util.h"
#include "util.h"
#include "wgtest.h"

#define BUF_SIZE (70 * 1024)
#define MAX_SLOTS 128
#define SLOT_SIZE 2048
#define HEADROOM 16
#define TAILROOM 32
#define GUARD_BYTE 0xcc

/* Slot memory for up to MAX_SLOTS segments at any alignment, or one big
 * segment. */
struct slots {
    uint8_t *arena;
    struct pkt_gso_slot slot[MAX_SLOTS];
};

static void
slots_init(struct slots *s, size_t n, size_t slot_size, size_t align)
{
    memset(s->arena, GUARD_BYTE, MAX_SLOTS * SLOT_SIZE + 8);
    for (size_t i = 0; i < n; i++) {
        s->slot[i].base = s->arena + align + i * slot_size;
        s->slot[i].room = slot_size - 8;
        s->slot[i].len = 0;
    }
}

static bool
all_guard(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != GUARD_BYTE) {
            return false;
        }
    }
    return true;
}

/* Expected TCP flags and urgent pointer of the segment whose payload starts
 * at 'ofs'. */
static uint16_t
expected_flags(const struct test_pkt_spec *spec, size_t ofs, bool first,
               bool last, uint16_t *urg)
{
    uint16_t f = spec->flags;

    *urg = spec->urg;
    if (!last) {
        f &= ~(TCP_FIN | TCP_PSH);
    }
    if (!first) {
        f &= ~TCP_CWR;
    }
    if (f & TCP_URG) {
        if (spec->urg > ofs) {
            *urg = spec->urg - ofs;
        } else {
            f &= ~TCP_URG;
            *urg = 0;
        }
    }
    return f;
}

/* Checks segment 'i' at 'seg' ('len' bytes) cut from 'orig' built from
 * 'spec', whose payload starts 'ofs' bytes into the original payload. */
static void
check_segment(const struct test_pkt_spec *spec, const uint8_t *orig,
              const uint8_t *seg, size_t len, size_t i, size_t ofs,
              bool last)
{
    size_t l3 = (spec->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN)
                + spec->ip_opt_len;
    size_t hdr = l3 + TCP_HEADER_LEN + spec->tcp_opt_len;
    const uint8_t *tcp = seg + l3, *otcp = orig + l3;
    uint16_t urg, flags = expected_flags(spec, ofs, i == 0, last, &urg);

    if (spec->ipv6) {
        WGTEST_CHECK_MEM(seg, orig, 4);
        WGTEST_CHECK(test_pkt_get16(seg + 4) == len - IPV6_HEADER_LEN);
        WGTEST_CHECK_MEM(seg + 6, orig + 6, l3 - 6);
    } else {
        WGTEST_CHECK_MEM(seg, orig, 2);
        WGTEST_CHECK(test_pkt_get16(seg + 2) == len);
        WGTEST_CHECK(test_pkt_get16(seg + 4) == (uint16_t) (spec->ip_id + i));
        WGTEST_CHECK_MEM(seg + 6, orig + 6, 4);
        WGTEST_CHECK_MEM(seg + 12, orig + 12, l3 - 12);
    }
    WGTEST_CHECK_MEM(tcp, otcp, 4);
    WGTEST_CHECK(test_pkt_get32(tcp + 4) == (uint32_t) (spec->seq + ofs));
    WGTEST_CHECK_MEM(tcp + 8, otcp + 8, 4);
    WGTEST_CHECK(test_pkt_get16(tcp + 12) == ((test_pkt_get16(otcp + 12)
                                                & 0xf000) | flags));
    WGTEST_CHECK_MEM(tcp + 14, otcp + 14, 2);
    WGTEST_CHECK(test_pkt_get16(tcp + 18) == urg);
    WGTEST_CHECK_MEM(tcp + 20, otcp + 20, spec->tcp_opt_len);
    WGTEST_CHECK_MEM(seg + hdr, orig + hdr + ofs, len - hdr);
    WGTEST_CHECK(test_pkt_csums_ok(seg, l3, len));
}

/* Checks the 'n_segs' segments in 's' cut with 'params' from 'orig'. */
static void
check_segments(const struct test_pkt_spec *spec, const uint8_t *orig,
               const struct pkt_gso_params *params, const struct slots *s,
               size_t n_segs)
{
    size_t hdr = (spec->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN)
                 + spec->ip_opt_len + TCP_HEADER_LEN + spec->tcp_opt_len;
    size_t payload = spec->payload_len, mss = params->mss, ofs = 0;
    struct pkt_ip_info info;

    WGTEST_CHECK(n_segs == (payload ? DIV_ROUND_UP(payload, mss) : 1));
    WGTEST_CHECK(!pkt_ip_parse(orig, hdr + payload, &info));
    for (size_t i = 0; i < n_segs; i++) {
        const struct pkt_gso_slot *slot = &s->slot[i];
        size_t seg_payload = MIN(mss, payload - ofs);
        const uint8_t *seg = slot->base + params->headroom;

        WGTEST_CHECK(slot->len == hdr + seg_payload);
        /* What a caller is told before cutting. */
        WGTEST_CHECK(pkt_gso_seg_len(&info, mss, i) == slot->len);
        WGTEST_CHECK(all_guard(slot->base, params->headroom));
        WGTEST_CHECK(all_guard(seg + slot->len,
                               slot->room - params->headroom - slot->len));
        check_segment(spec, orig, seg, slot->len, i, ofs, i == n_segs - 1);
        ofs += seg_payload;
    }
    WGTEST_CHECK(ofs == payload);
}

struct gso_case {
    const char *name;
    size_t mss;
    struct test_pkt_spec spec;
};

#define ACK TCP_ACK
static const struct gso_case gso_cases[] = {
    { "v4 three segments", 1000, { .payload_len = 3000, .flags = ACK } },
    { "v4 tiny last segment", 1000, { .payload_len = 2001, .flags = ACK } },
    { "v4 single segment", 1448, { .payload_len = 500, .flags = ACK } },
    { "v4 exactly one mss", 1448, { .payload_len = 1448, .flags = ACK } },
    { "v4 no payload", 1448, { .flags = ACK } },
    { "v4 64 KB", 1448, { .payload_len = 65535 - 40, .flags = ACK } },
    { "v6 64 KB", 1428, { .ipv6 = true, .payload_len = 65535 - 20,
                          .flags = ACK } },
    { "v4 mss 1", 1, { .payload_len = 100, .flags = ACK } },
    { "v4 tcp options", 1000, { .payload_len = 4000, .tcp_opt_len = 12,
                                .flags = ACK } },
    { "v4 tcp options 40", 700, { .payload_len = 2100, .tcp_opt_len = 40,
                                  .flags = ACK } },
    { "v4 ip options", 1000, { .payload_len = 2500, .ip_opt_len = 8,
                               .flags = ACK } },
    { "v4 ip options 40", 1000, { .payload_len = 2500, .ip_opt_len = 40,
                                  .tcp_opt_len = 20, .flags = ACK } },
    { "v6 dest options", 1000, { .ipv6 = true, .payload_len = 2500,
                                 .ip_opt_len = 16, .flags = ACK } },
    { "v6 three segments", 1200, { .ipv6 = true, .payload_len = 3600,
                                   .flags = ACK, .flow_label = 0x12345,
                                   .tos = 0xb8 } },
    { "v4 fin psh", 1000, { .payload_len = 3500,
                            .flags = ACK | TCP_PSH | TCP_FIN } },
    { "v4 cwr ece", 1000, { .payload_len = 3500,
                            .flags = ACK | TCP_CWR | TCP_ECE } },
    { "v6 fin psh cwr", 1000, { .ipv6 = true, .payload_len = 2999,
                                .flags = ACK | TCP_PSH | TCP_FIN
                                         | TCP_CWR } },
    { "v4 urg inside", 1000, { .payload_len = 3000, .urg = 1500,
                               .flags = ACK | TCP_URG } },
    { "v4 urg at boundary", 1000, { .payload_len = 3000, .urg = 1000,
                                    .flags = ACK | TCP_URG } },
    { "v4 urg field without flag", 1000, { .payload_len = 3000, .urg = 7,
                                           .flags = ACK } },
    { "v4 ns and reserved bits", 1000, { .payload_len = 3000,
                                         .flags = ACK | TCP_NS | 0x600 } },
    { "v4 seq and id wrap", 1000, { .payload_len = 5000, .seq = 0xfffffc00,
                                    .ip_id = 0xfffe, .flags = ACK } },
    { "v4 df tos ttl", 1000, { .payload_len = 3000, .frag = IP_DONT_FRAGMENT,
                               .tos = 0x10, .ttl = 3, .flags = ACK } },
    { "v4 trailing padding", 1000, { .payload_len = 2500, .pad = 15,
                                     .flags = ACK } },
    { "v6 trailing padding", 1000, { .ipv6 = true, .payload_len = 2500,
                                     .pad = 9, .flags = ACK } },
};

/* Fills the fields every case shares and a garbage TCP checksum (GSO must
 * ignore it). */
static size_t
build_case(const struct gso_case *c, struct test_pkt_spec *spec,
           uint8_t *pkt)
{
    size_t len;

    *spec = c->spec;
    spec->sport = 40000;
    spec->dport = 5201;
    spec->ack = 0x01020304;
    spec->win = 502;
    spec->payload_seed = 77;
    len = test_pkt_build(spec, pkt, BUF_SIZE);
    pkt[(spec->ipv6 ? 40 : 20) + spec->ip_opt_len + 16] ^= 0x5a;
    return len;
}

static void
test_gso_cases(uint8_t *buf, struct slots *s)
{
    for (size_t i = 0; i < ARRAY_SIZE(gso_cases); i++) {
        const struct gso_case *c = &gso_cases[i];

        for (size_t align = 0; align < 2; align++) {
            struct pkt_gso_params params = { c->mss, HEADROOM, TAILROOM };
            uint8_t *pkt = buf + align;
            struct test_pkt_spec spec;
            size_t len = build_case(c, &spec, pkt);
            size_t n_segs;

            slots_init(s, MAX_SLOTS, SLOT_SIZE, 1 - align);
            if (c->mss == 1) {
                slots_init(s, 100, 100, align);
            }
            if (pkt_gso_segment(pkt, len, &params, s->slot, MAX_SLOTS,
                                &n_segs)) {
                fprintf(stderr, "case \"%s\" failed\n", c->name);
                WGTEST_CHECK(false);
            }
            check_segments(&spec, pkt, &params, s, n_segs);
        }
    }
}

/* Builds a 3000-byte IPv4 TCP super-packet into 'pkt'. */
static size_t
build_plain(uint8_t *pkt, bool ipv6, size_t ip_opt_len, uint8_t proto)
{
    struct test_pkt_spec spec = { .ipv6 = ipv6, .payload_len = 3000,
                                  .flags = ACK, .ip_opt_len = ip_opt_len,
                                  .proto = proto };

    return test_pkt_build(&spec, pkt, BUF_SIZE);
}

static int
segment_err(const uint8_t *pkt, size_t len, size_t mss, struct slots *s,
            size_t n_slots)
{
    struct pkt_gso_params params = { mss, HEADROOM, TAILROOM };
    size_t n_segs = 99;
    int error;

    error = pkt_gso_segment(pkt, len, &params, s->slot, n_slots, &n_segs);
    WGTEST_CHECK(error ? n_segs == 0 : n_segs > 0);
    return error;
}

static void
test_gso_errors(uint8_t *pkt, struct slots *s)
{
    struct pkt_ip_info info;
    size_t len;

    slots_init(s, MAX_SLOTS, SLOT_SIZE, 0);
    len = build_plain(pkt, false, 0, 0);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == 0);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 2) == ENOSPC);
    WGTEST_CHECK(segment_err(pkt, len, 0, s, 3) == EINVAL);
    WGTEST_CHECK(segment_err(pkt, len - 1, 1000, s, 3) == EINVAL);
    WGTEST_CHECK(segment_err(pkt, 0, 1000, s, 3) == EINVAL);

    /* Slot room: exactly enough, then one byte short. */
    s->slot[1].room = HEADROOM + 40 + 1000 + TAILROOM;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == 0);
    s->slot[1].room--;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == ENOSPC);
    s->slot[1].room = 3;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == ENOSPC);
    slots_init(s, MAX_SLOTS, SLOT_SIZE, 0);

    /* Fragments, bad header lengths, bad versions. */
    test_pkt_put16(pkt + 6, IP_MORE_FRAGMENTS);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    test_pkt_put16(pkt + 6, 1);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    len = build_plain(pkt, false, 0, 0);
    pkt[0] = 0x44;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    pkt[0] = 0x55;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    pkt[0] = 0x45;
    pkt[20 + 12] = 0x40;                    /* TCP data offset 4. */
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    pkt[20 + 12] = 0xf0;                    /* 60 bytes: fits. */
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == 0);
    WGTEST_CHECK(segment_err(pkt, 20 + 40, 1000, s, 3) == EINVAL);
    test_pkt_put16(pkt + 2, 40);            /* Header past the length. */
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);

    /* Not TCP. */
    len = build_plain(pkt, false, 0, IPPROTO_UDP);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);

    /* IPv6: routing header refused, destination options accepted. */
    len = build_plain(pkt, true, 8, 0);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == 0);
    pkt[6] = IPPROTO_ROUTING;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    WGTEST_CHECK(pkt_ip_parse(pkt, len, &info) == EINVAL);
    pkt[6] = IPPROTO_FRAGMENT;
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    WGTEST_CHECK(pkt_ip_parse(pkt, len, &info) == EINVAL);
    pkt[6] = IPPROTO_DSTOPTS;
    pkt[40] = IPPROTO_ROUTING;              /* After the options header. */
    WGTEST_CHECK(pkt_ip_parse(pkt, len, &info) == EINVAL);
    pkt[40] = IPPROTO_ICMPV6;               /* Other protocols parse. */
    WGTEST_CHECK(!pkt_ip_parse(pkt, len, &info));
    WGTEST_CHECK(info.l4_proto == IPPROTO_ICMPV6 && info.l4_len == 0);
    WGTEST_CHECK(info.l3_len == 48 && info.payload_len == len - 48);
    pkt[40] = IPPROTO_TCP;
    pkt[6] = IPPROTO_DSTOPTS;
    pkt[41] = 200;                          /* Extension past the end. */
    test_pkt_put16(pkt + 4, 100);
    WGTEST_CHECK(segment_err(pkt, len, 1000, s, 3) == EINVAL);
    WGTEST_CHECK(segment_err(pkt, 39, 1000, s, 3) == EINVAL);
}

/* pkt_csum_l4_fill() and pkt_csum_l4_copy() on 'spec', whose checksum
 * field starts as 'mode' 0: garbage, 1: the pseudo-header sum (what OVS 3.1
 * TAP receive leaves), 2: zero. */
static void
check_csum_fill(const struct test_pkt_spec *spec, int mode, uint8_t *a,
                uint8_t *b)
{
    uint8_t *expect = xmalloc(BUF_SIZE), *in = xmalloc(BUF_SIZE);
    size_t len = test_pkt_build(spec, expect, BUF_SIZE);
    size_t l3 = (spec->ipv6 ? 40 : 20) + spec->ip_opt_len;
    size_t l4_total = len - spec->pad - l3;
    uint8_t proto = spec->proto ? spec->proto : IPPROTO_TCP;
    size_t field = l3 + (proto == IPPROTO_TCP ? 16
                         : proto == IPPROTO_UDP ? 6 : 8);

    memcpy(in, expect, len);
    if (mode == 0) {
        in[field] ^= 0x81;
        in[field + 1] ^= 0x18;
    } else if (mode == 1 && proto != IPPROTO_SCTP) {
        ovs_be16 ph = ~csum_finish(test_pkt_pseudo(in, proto, l4_total));

        memcpy(in + field, &ph, 2);
    } else {
        memset(in + field, 0, proto == IPPROTO_SCTP ? 4 : 2);
    }
    memcpy(a, in, len);
    WGTEST_CHECK(pkt_csum_l4_fill(a, len) == 0);
    WGTEST_CHECK_MEM(a, expect, len);
    memset(b, 0x77, len + 8);
    WGTEST_CHECK(pkt_csum_l4_copy(b, in, len) == 0);
    WGTEST_CHECK_MEM(b, expect, len);
    WGTEST_CHECK(b[len] == 0x77);
    free(expect);
    free(in);
}

static void
test_gso_csum(uint8_t *buf, uint8_t *buf2)
{
    static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP,
                                      IPPROTO_SCTP };
    static const size_t lens[] = { 0, 1, 2, 3, 1400, 1401, 9000, 65000 };

    for (int p = 0; p < ARRAY_SIZE(protos); p++) {
        for (int l = 0; l < ARRAY_SIZE(lens); l++) {
            for (int v = 0; v < 4; v++) {
                struct test_pkt_spec spec = {
                    .ipv6 = v & 1, .ip_opt_len = v & 2 ? 8 : 0,
                    .proto = protos[p], .payload_len = lens[l],
                    .payload_seed = l * 7 + v, .flags = ACK | TCP_PSH,
                    .sport = 53, .dport = 1000 + l, .pad = l % 3 ? 5 : 0,
                };

                for (int mode = 0; mode < 3; mode++) {
                    check_csum_fill(&spec, mode, buf + (l & 1), buf2 + v);
                }
            }
        }
    }
}

/* A UDP datagram whose checksum computes to 0 must carry 0xffff; another
 * protocol is refused and left alone. */
static void
test_gso_csum_special(uint8_t *pkt, uint8_t *copy)
{
    struct test_pkt_spec spec = { .proto = IPPROTO_UDP, .payload_len = 2,
                                  .sport = 1, .dport = 2 };
    size_t len = test_pkt_build(&spec, pkt, BUF_SIZE);
    uint32_t sum;

    pkt[28] = pkt[29] = 0;
    pkt[26] = pkt[27] = 0;
    sum = test_pkt_pseudo(pkt, IPPROTO_UDP, 10);
    put_unaligned_be16((ovs_be16 *) (pkt + 28),
                       csum_finish(csum_continue(sum, pkt + 20, 10)));
    WGTEST_CHECK(pkt_csum_l4_fill(pkt, len) == 0);
    WGTEST_CHECK(test_pkt_get16(pkt + 26) == 0xffff);
    WGTEST_CHECK(test_pkt_csums_ok(pkt, 20, len));

    len = build_plain(pkt, false, 0, IPPROTO_ICMP);
    memcpy(copy, pkt, len);
    WGTEST_CHECK(pkt_csum_l4_fill(pkt, len) == EINVAL);
    WGTEST_CHECK_MEM(pkt, copy, len);
    WGTEST_CHECK(pkt_csum_l4_copy(copy + 1, pkt, len) == EINVAL);
    WGTEST_CHECK_MEM(copy + 1, pkt, len);
    WGTEST_CHECK(pkt_csum_l4_fill(pkt, 10) == EINVAL);
}

/* pkt_ip_parse() and the helpers around it. */
static void
test_gso_info(uint8_t *pkt)
{
    struct test_pkt_spec spec = { .ipv6 = true, .ip_opt_len = 8,
                                  .tcp_opt_len = 12, .payload_len = 5000,
                                  .pad = 3 };
    size_t len = test_pkt_build(&spec, pkt, BUF_SIZE);
    struct pkt_ip_info info;

    WGTEST_CHECK(!pkt_ip_parse(pkt, len, &info));
    WGTEST_CHECK(info.ipv6 && info.l4_proto == IPPROTO_TCP);
    WGTEST_CHECK(info.l3_len == 48 && info.l4_len == 32);
    WGTEST_CHECK(info.pkt_len == len - 3 && info.payload_len == 5000);
    WGTEST_CHECK(pkt_gso_mss_for_mtu(&info, 1420) == 1420 - 80);
    WGTEST_CHECK(pkt_gso_mss_for_mtu(&info, 80) == 0);
    WGTEST_CHECK(pkt_gso_n_segs(&info, 1340) == 4);
    WGTEST_CHECK(pkt_gso_n_segs(&info, 5000) == 1);
    WGTEST_CHECK(pkt_gso_n_segs(&info, 4999) == 2);
}

static void
test_pkt_gso_main(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t *buf = xmalloc(BUF_SIZE), *buf2 = xmalloc(BUF_SIZE);
    struct slots s;

    s.arena = xmalloc(MAX_SLOTS * SLOT_SIZE + 8);
    test_gso_cases(buf, &s);
    test_gso_errors(buf, &s);
    test_gso_csum(buf, buf2);
    test_gso_csum_special(buf, buf2);
    test_gso_info(buf);
    free(s.arena);
    free(buf);
    free(buf2);
}
WGTEST_REGISTER("pkt-gso", test_pkt_gso_main);
