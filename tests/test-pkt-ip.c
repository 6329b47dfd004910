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
#include "pkt-ip.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "packets.h"
#include "pkt-csum.h"
#include "pkt-gso.h"
#include "test-pkt-util.h"
#include "util.h"
#include "wgtest.h"

/* "wgtest pkt-ip-frame": the one parse of a frame on its way out
 * (pkt_ip_frame_parse()) against the separate parses it replaces.  For
 * every frame of the table: the one parse gives what pkt_ip_parse_l3() and
 * pkt_ip_parse() gave, is exactly one parse, and checksum completion and
 * segmentation from it write what they wrote when they parsed for
 * themselves.  Each frame lives in a buffer of exactly its length, so that
 * a sanitizer build sees any read past it. */

#define FRAME_ROOM 4096
#define MSS 300
#define N_SLOTS 16
#define SLOT_ROOM 1600

/* How a case changes the built packet (bytes from the IP header on). */
enum frame_edit {
    EDIT_NONE,
    EDIT_TRUNCATE,              /* Frame cut to 'arg' IP bytes. */
    EDIT_PROTO,                 /* IPv4 protocol / IPv6 next header 'arg'. */
    EDIT_IHL,                   /* IPv4 header length field 'arg'. */
    EDIT_TOT_LEN,               /* IPv4 total length 'arg'. */
    EDIT_TCP_DOFF,              /* TCP data offset 'arg' (in words). */
    EDIT_VERSION,               /* Version nibble 'arg'. */
};

struct frame_case {
    const char *name;
    struct test_pkt_spec spec;
    enum frame_edit edit;
    size_t arg;
    bool l3_ok, l4_ok;          /* Expected. */
    uint8_t l4_proto;           /* Expected of the deep parse, if l4_ok. */
};

static const struct frame_case cases[] = {
    { "v4 tcp", { .payload_len = 1000 }, EDIT_NONE, 0, true, true,
      IPPROTO_TCP },
    { "v4 tcp, ip and tcp options",
      { .ip_opt_len = 8, .tcp_opt_len = 12, .payload_len = 700 },
      EDIT_NONE, 0, true, true, IPPROTO_TCP },
    { "v4 udp", { .proto = IPPROTO_UDP, .payload_len = 500 }, EDIT_NONE, 0,
      true, true, IPPROTO_UDP },
    { "v4 sctp", { .proto = IPPROTO_SCTP, .payload_len = 64 }, EDIT_NONE, 0,
      true, true, IPPROTO_SCTP },
    { "v4 other protocol", { .payload_len = 40 }, EDIT_PROTO, IPPROTO_ICMP,
      true, true, IPPROTO_ICMP },
    { "v4 DF", { .frag = IP_DONT_FRAGMENT, .payload_len = 900 }, EDIT_NONE,
      0, true, true, IPPROTO_TCP },
    { "v4 first fragment", { .frag = IP_MORE_FRAGMENTS, .payload_len = 80 },
      EDIT_NONE, 0, true, false, 0 },
    { "v4 later fragment", { .frag = 100, .payload_len = 80 }, EDIT_NONE, 0,
      true, false, 0 },
    { "v4 padding after the packet", { .payload_len = 10, .pad = 6 },
      EDIT_NONE, 0, true, true, IPPROTO_TCP },
    { "v4 ihl below 5", { .payload_len = 10 }, EDIT_IHL, 4, false, false, 0 },
    { "v4 length past the frame", { .payload_len = 100 }, EDIT_TRUNCATE, 60,
      false, false, 0 },
    { "v4 shorter than its fixed header", { .payload_len = 100 },
      EDIT_TRUNCATE, 12, false, false, 0 },
    { "v4 tcp header cut short", { .payload_len = 100 }, EDIT_TOT_LEN, 30,
      true, false, 0 },
    { "v4 tcp data offset below 5", { .payload_len = 100 }, EDIT_TCP_DOFF, 4,
      true, false, 0 },
    { "v4 tcp data offset past the packet", { .payload_len = 4 },
      EDIT_TCP_DOFF, 15, true, false, 0 },
    { "v6 tcp", { .ipv6 = true, .payload_len = 1200 }, EDIT_NONE, 0, true,
      true, IPPROTO_TCP },
    { "v6 udp", { .ipv6 = true, .proto = IPPROTO_UDP, .payload_len = 333 },
      EDIT_NONE, 0, true, true, IPPROTO_UDP },
    { "v6 tcp after destination options",
      { .ipv6 = true, .ip_opt_len = 16, .tcp_opt_len = 8,
        .payload_len = 600 }, EDIT_NONE, 0, true, true, IPPROTO_TCP },
    { "v6 udp after destination options",
      { .ipv6 = true, .proto = IPPROTO_UDP, .ip_opt_len = 8,
        .payload_len = 50 }, EDIT_NONE, 0, true, true, IPPROTO_UDP },
    { "v6 routing header", { .ipv6 = true, .payload_len = 50 }, EDIT_PROTO,
      IPPROTO_ROUTING, true, false, 0 },
    { "v6 fragment header", { .ipv6 = true, .payload_len = 50 }, EDIT_PROTO,
      IPPROTO_FRAGMENT, true, false, 0 },
    { "v6 length past the frame", { .ipv6 = true, .payload_len = 100 },
      EDIT_TRUNCATE, 100, false, false, 0 },
    { "v6 shorter than its fixed header", { .ipv6 = true },
      EDIT_TRUNCATE, 39, false, false, 0 },
    { "not ip", { .payload_len = 20 }, EDIT_VERSION, 5, false, false, 0 },
};

/* Applies the edit of 'c' to the IP packet 'ip' of '*len' bytes. */
static void
frame_edit(const struct frame_case *c, uint8_t *ip, size_t *len)
{
    size_t l3 = c->spec.ipv6 ? IPV6_HEADER_LEN : (ip[0] & 15) * 4;

    switch (c->edit) {
    case EDIT_TRUNCATE:
        *len = c->arg;
        break;
    case EDIT_PROTO:
        ip[c->spec.ipv6 ? 6 : 9] = c->arg;
        break;
    case EDIT_IHL:
        ip[0] = (ip[0] & 0xf0) | c->arg;
        break;
    case EDIT_TOT_LEN:
        test_pkt_put16(ip + 2, c->arg);
        break;
    case EDIT_TCP_DOFF:
        ip[l3 + 12] = (ip[l3 + 12] & 0x0f) | (c->arg << 4);
        break;
    case EDIT_VERSION:
        ip[0] = (ip[0] & 0x0f) | (c->arg << 4);
        break;
    case EDIT_NONE:
    default:
        break;
    }
}

/* Builds the frame of 'c' into a buffer of its exact length, returned;
 * its length in '*len'. */
static uint8_t *
frame_build(const struct frame_case *c, size_t *len)
{
    uint8_t buf[FRAME_ROOM];
    size_t ip_len;

    memset(buf, 0, ETH_HEADER_LEN);
    buf[12] = c->spec.ipv6 ? 0x86 : 0x08;
    buf[13] = c->spec.ipv6 ? 0xdd : 0x00;
    ip_len = test_pkt_build(&c->spec, buf + ETH_HEADER_LEN,
                            sizeof buf - ETH_HEADER_LEN);
    frame_edit(c, buf + ETH_HEADER_LEN, &ip_len);
    *len = ETH_HEADER_LEN + ip_len;
    return xmemdup(buf, *len);
}

static bool
info_equal(const struct pkt_ip_info *a, const struct pkt_ip_info *b)
{
    return (a->ipv6 == b->ipv6 && a->l4_proto == b->l4_proto
            && a->l3_len == b->l3_len && a->l4_len == b->l4_len
            && a->pkt_len == b->pkt_len && a->payload_len == b->payload_len);
}

/* True if the checksums of the TCP or UDP packet 'p' parsed into 'info'
 * verify. */
static bool
csums_ok(const uint8_t *p, const struct pkt_ip_info *info)
{
    return ((info->l4_proto != IPPROTO_TCP && info->l4_proto != IPPROTO_UDP)
            || test_pkt_csums_ok(p, info->l3_len, info->pkt_len));
}

/* Checksum completion from the one parse writes what it wrote parsing for
 * itself, and a checksum that verifies. */
static void
check_csum(const uint8_t *ip, size_t len, const struct pkt_ip_frame *f,
           bool intact)
{
    uint8_t *a = xmemdup(ip, len), *b = xmemdup(ip, len);
    int ea = pkt_csum_l4_fill(a, len);
    unsigned long long int parses = pkt_ip_parses_for_test();
    int eb = f->l4_ok ? pkt_csum_l4_fill_parsed(b, &f->l4) : EINVAL;

    WGTEST_CHECK(pkt_ip_parses_for_test() == parses);
    WGTEST_CHECK(ea == eb);
    WGTEST_CHECK_MEM(a, b, len);
    WGTEST_CHECK(eb || !intact || csums_ok(b, &f->l4));
    free(a);
    free(b);
}

/* Segmentation from the one parse cuts what it cut parsing for itself. */
static void
check_gso(const uint8_t *ip, size_t len, const struct pkt_ip_frame *f)
{
    struct pkt_gso_params params = { .mss = MSS };
    struct pkt_gso_slot sa[N_SLOTS], sb[N_SLOTS];
    uint8_t *a = xzalloc(N_SLOTS * SLOT_ROOM);
    uint8_t *b = xzalloc(N_SLOTS * SLOT_ROOM);
    unsigned long long int parses;
    size_t na, nb;
    int ea, eb;

    for (size_t i = 0; i < N_SLOTS; i++) {
        sa[i] = (struct pkt_gso_slot) { a + i * SLOT_ROOM, SLOT_ROOM, 0 };
        sb[i] = (struct pkt_gso_slot) { b + i * SLOT_ROOM, SLOT_ROOM, 0 };
    }
    ea = pkt_gso_segment(ip, len, &params, sa, N_SLOTS, &na);
    parses = pkt_ip_parses_for_test();
    eb = (f->l4_ok
          ? pkt_gso_segment_parsed(ip, &f->l4, &params, sb, N_SLOTS, &nb)
          : EINVAL);
    WGTEST_CHECK(pkt_ip_parses_for_test() == parses);
    WGTEST_CHECK(ea == eb);
    if (!ea) {
        WGTEST_CHECK(na == nb);
        WGTEST_CHECK_MEM(a, b, N_SLOTS * SLOT_ROOM);
        for (size_t i = 0; i < nb; i++) {
            struct pkt_ip_info seg;

            WGTEST_CHECK(!pkt_ip_parse(sb[i].base, sb[i].len, &seg));
            WGTEST_CHECK(csums_ok(sb[i].base, &seg));
        }
    }
    free(a);
    free(b);
}

/* OVS's offsets: unset or where the parse found the headers agree; any
 * other do not. */
static void
check_ovs_ofs(const struct pkt_ip_frame *f)
{
    uint16_t l4 = f->l3_ofs + f->l4.l3_len;

    WGTEST_CHECK(pkt_ip_frame_ovs_agrees(f, UINT16_MAX, UINT16_MAX));
    WGTEST_CHECK(pkt_ip_frame_ovs_agrees(f, ETH_HEADER_LEN, UINT16_MAX));
    WGTEST_CHECK(!pkt_ip_frame_ovs_agrees(f, ETH_HEADER_LEN + 4,
                                          UINT16_MAX));
    if (f->l4_ok) {
        WGTEST_CHECK(pkt_ip_frame_ovs_agrees(f, ETH_HEADER_LEN, l4));
        WGTEST_CHECK(!pkt_ip_frame_ovs_agrees(f, ETH_HEADER_LEN, l4 + 4));
        WGTEST_CHECK(!pkt_ip_frame_ovs_agrees(f, ETH_HEADER_LEN, l4 - 4));
    }
}

static void
check_case(const struct frame_case *c)
{
    struct pkt_ip_info i3, i4;
    struct pkt_ip_frame f;
    unsigned long long int before;
    size_t len, ip_len;
    uint8_t *frame = frame_build(c, &len);
    const uint8_t *ip = frame + ETH_HEADER_LEN;
    bool ok3, ok4;

    ip_len = len - ETH_HEADER_LEN;
    before = pkt_ip_parses_for_test();
    pkt_ip_frame_parse(&f, frame, len, ETH_HEADER_LEN);
    if (pkt_ip_parses_for_test() != before + 1) {
        fprintf(stderr, "%s: %llu parses\n", c->name,
                pkt_ip_parses_for_test() - before);
    }
    WGTEST_CHECK(pkt_ip_parses_for_test() == before + 1);
    ok3 = !pkt_ip_parse_l3(ip, ip_len, &i3);
    ok4 = !pkt_ip_parse(ip, ip_len, &i4);
    if (f.l3_ok != c->l3_ok || f.l4_ok != c->l4_ok) {
        fprintf(stderr, "%s: l3 %d l4 %d\n", c->name, f.l3_ok, f.l4_ok);
    }
    WGTEST_CHECK(f.l3_ofs == ETH_HEADER_LEN);
    WGTEST_CHECK(f.l3_ok == c->l3_ok && f.l4_ok == c->l4_ok);
    WGTEST_CHECK(f.l3_ok == ok3 && f.l4_ok == ok4);
    WGTEST_CHECK(!ok3 || info_equal(&f.l3, &i3));
    WGTEST_CHECK(!ok4 || info_equal(&f.l4, &i4));
    WGTEST_CHECK(!ok4 || f.l4.l4_proto == c->l4_proto);
    check_csum(ip, ip_len, &f, c->edit == EDIT_NONE);
    check_gso(ip, ip_len, &f);
    check_ovs_ofs(&f);
    free(frame);
}

static void
test_pkt_ip_frame(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t tiny[ETH_HEADER_LEN - 4] = { 0 };
    struct pkt_ip_frame f;

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        check_case(&cases[i]);
    }

    /* A frame shorter than the offset it is parsed at: nothing read. */
    pkt_ip_frame_parse(&f, tiny, sizeof tiny, ETH_HEADER_LEN);
    WGTEST_CHECK(!f.l3_ok && !f.l4_ok);
    WGTEST_CHECK(pkt_ip_frame_ovs_agrees(&f, UINT16_MAX, UINT16_MAX));
}
WGTEST_REGISTER("pkt-ip-frame", test_pkt_ip_frame);
