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
#include "test-pkt-util.h"

#include <netinet/in.h>
#include <string.h>

#include "crc32c.h"
#include "csum.h"
#include "packets.h"
#include "util.h"

uint16_t
test_pkt_get16(const uint8_t *p)
{
    return (p[0] << 8) | p[1];
}

uint32_t
test_pkt_get32(const uint8_t *p)
{
    return ((uint32_t) test_pkt_get16(p) << 16) | test_pkt_get16(p + 2);
}

void
test_pkt_put16(uint8_t *p, uint16_t x)
{
    p[0] = x >> 8;
    p[1] = x;
}

void
test_pkt_put32(uint8_t *p, uint32_t x)
{
    test_pkt_put16(p, x >> 16);
    test_pkt_put16(p + 2, x);
}

uint8_t
test_pkt_payload_byte(uint32_t seed, size_t i)
{
    uint32_t x = (seed + i) * 2654435761u;

    return (x >> 24) ^ (x >> 11);
}

/* Writes the IPv4 header (with options) for 'spec' carrying 'l4_len' bytes
 * of upper layer.  Returns the header length. */
static size_t
build_ipv4(const struct test_pkt_spec *spec, uint8_t proto, uint8_t *p,
           size_t l4_len)
{
    size_t ihl = IP_HEADER_LEN + spec->ip_opt_len;

    ovs_assert(ihl <= 60 && !(spec->ip_opt_len % 4));
    p[0] = 0x40 | (ihl / 4);
    p[1] = spec->tos;
    test_pkt_put16(p + 2, ihl + l4_len);
    test_pkt_put16(p + 4, spec->ip_id);
    test_pkt_put16(p + 6, spec->frag);
    p[8] = spec->ttl ? spec->ttl : 64;
    p[9] = proto;
    test_pkt_put16(p + 10, 0);
    test_pkt_put32(p + 12, 0x0a000001 | (spec->addr << 8));
    test_pkt_put32(p + 16, 0x0a000002 | (spec->addr << 8));
    memset(p + IP_HEADER_LEN, 0x01, spec->ip_opt_len);    /* NOPs. */
    put_unaligned_be16((ovs_be16 *) (p + 10), csum(p, ihl));
    return ihl;
}

/* Writes the IPv6 header (and a Destination Options header if
 * spec->ip_opt_len) for 'spec'.  Returns the header length. */
static size_t
build_ipv6(const struct test_pkt_spec *spec, uint8_t proto, uint8_t *p,
           size_t l4_len)
{
    size_t ext = spec->ip_opt_len;

    ovs_assert(!(ext % 8));
    test_pkt_put32(p, (6u << 28) | (spec->tos << 20)
                      | (spec->flow_label & 0xfffff));
    test_pkt_put16(p + 4, ext + l4_len);
    p[6] = ext ? IPPROTO_DSTOPTS : proto;
    p[7] = spec->ttl ? spec->ttl : 64;
    memset(p + 8, 0, 32);
    p[8] = p[24] = 0xfd;
    p[22] = p[38] = spec->addr;
    p[23] = 1;
    p[39] = 2;
    if (ext) {
        uint8_t *e = p + IPV6_HEADER_LEN;

        memset(e, 0, ext);
        e[0] = proto;
        e[1] = ext / 8 - 1;
        e[2] = 1;                           /* PadN option. */
        e[3] = ext - 4;
    }
    return IPV6_HEADER_LEN + ext;
}

/* Writes the L4 header of 'spec' at 'l4'.  Returns its length. */
static size_t
build_l4_header(const struct test_pkt_spec *spec, uint8_t proto,
                uint8_t *l4, size_t l4_total)
{
    test_pkt_put16(l4, spec->sport);
    test_pkt_put16(l4 + 2, spec->dport);
    if (proto == IPPROTO_UDP) {
        test_pkt_put16(l4 + 4, l4_total);
        test_pkt_put16(l4 + 6, 0);
        return UDP_HEADER_LEN;
    } else if (proto == IPPROTO_SCTP) {
        test_pkt_put32(l4 + 4, spec->seq);
        test_pkt_put32(l4 + 8, 0);
        return SCTP_HEADER_LEN;
    }
    ovs_assert(spec->tcp_opt_len <= 40 && !(spec->tcp_opt_len % 4));
    test_pkt_put32(l4 + 4, spec->seq);
    test_pkt_put32(l4 + 8, spec->ack);
    test_pkt_put16(l4 + 12, ((TCP_HEADER_LEN + spec->tcp_opt_len) / 4) << 12
                            | spec->flags);
    test_pkt_put16(l4 + 14, spec->win);
    test_pkt_put16(l4 + 16, 0);
    test_pkt_put16(l4 + 18, spec->urg);
    for (size_t i = 0; i < spec->tcp_opt_len; i++) {
        l4[TCP_HEADER_LEN + i] = spec->opt_seed * 31 + i;
    }
    return TCP_HEADER_LEN + spec->tcp_opt_len;
}

uint32_t
test_pkt_pseudo(const uint8_t *p, uint8_t proto, size_t l4_len)
{
    uint32_t sum = (IP_VER(p[0]) == 6
                    ? csum_continue(0, p + 8, 32)
                    : csum_continue(0, p + 12, 8));

    sum = csum_add16(sum, htons(proto));
    return csum_add32(sum, htonl(l4_len));
}

/* Fills in the L4 checksum of the packet at 'p'. */
static void
fill_l4_csum(uint8_t *p, uint8_t proto, size_t l3_len, size_t l4_total)
{
    uint8_t *l4 = p + l3_len;

    if (proto == IPPROTO_SCTP) {
        ovs_be32 crc = crc32c(l4, l4_total);

        memcpy(l4 + 8, &crc, 4);
    } else {
        uint8_t *field = l4 + (proto == IPPROTO_UDP ? 6 : 16);
        uint32_t sum = test_pkt_pseudo(p, proto, l4_total);
        ovs_be16 c = csum_finish(csum_continue(sum, l4, l4_total));

        if (proto == IPPROTO_UDP && !c) {
            c = htons(0xffff);
        }
        put_unaligned_be16((ovs_be16 *) field, c);
    }
}

size_t
test_pkt_build(const struct test_pkt_spec *spec, uint8_t *buf, size_t room)
{
    uint8_t proto = spec->proto ? spec->proto : IPPROTO_TCP;
    size_t l4_hdr = (proto == IPPROTO_TCP ? TCP_HEADER_LEN + spec->tcp_opt_len
                     : proto == IPPROTO_UDP ? UDP_HEADER_LEN
                     : SCTP_HEADER_LEN);
    size_t l4_total = l4_hdr + spec->payload_len;
    size_t l3_len, total;

    ovs_assert(60 + 8 + l4_total + spec->pad <= room);
    l3_len = (spec->ipv6
              ? build_ipv6(spec, proto, buf, l4_total)
              : build_ipv4(spec, proto, buf, l4_total));
    build_l4_header(spec, proto, buf + l3_len, l4_total);
    for (size_t i = 0; i < spec->payload_len; i++) {
        buf[l3_len + l4_hdr + i] = test_pkt_payload_byte(spec->payload_seed,
                                                         i);
    }
    fill_l4_csum(buf, proto, l3_len, l4_total);
    total = l3_len + l4_total;
    memset(buf + total, 0xee, spec->pad);
    return total + spec->pad;
}

bool
test_pkt_csums_ok(const uint8_t *p, size_t l3_len, size_t pkt_len)
{
    uint8_t proto;
    uint32_t sum;

    if (IP_VER(p[0]) == 4) {
        if (csum(p, l3_len)) {
            return false;
        }
        proto = p[9];
    } else {
        proto = p[6];
        for (size_t ofs = IPV6_HEADER_LEN; ofs < l3_len;
             ofs += (p[ofs + 1] + 1) * 8) {
            proto = p[ofs];
        }
    }
    if (proto != IPPROTO_TCP && proto != IPPROTO_UDP) {
        return false;
    }
    sum = test_pkt_pseudo(p, proto, pkt_len - l3_len);
    return !csum_finish(csum_continue(sum, p + l3_len, pkt_len - l3_len));
}
