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
#include "pkt-ecn.h"

#include "csum.h"
#include "packets.h"
#include "test-bridge-l2.h"
#include "util.h"
#include "wgtest.h"

/* ECN across the tunnel (lib/pkt-ecn.h): every combination of the inner
 * and outer ECN fields, IPv4 and IPv6, both directions. */

static size_t
mk_pkt(uint8_t *p, bool ipv6, uint8_t ecn)
{
    if (ipv6) {
        size_t n = l2t_ip6_pkt(p, "fd00:1:1::5", "fd00:1:2::9", IPPROTO_UDP,
                               64, 100);
        p[0] = 0x60 | 0x0b;                     /* Traffic class 0xb?: */
        p[1] = (p[1] & 0x0f) | (0x8 << 4) | (ecn << 4);   /* DSCP bits. */
        return n;
    } else {
        size_t n = l2t_ip4_pkt(p, "10.1.1.5", "10.1.2.9", 120);
        struct ip_header *ip = (void *) p;

        ip->ip_tos = 0xb8 | ecn;                /* DSCP EF and 'ecn'. */
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, IP_HEADER_LEN);
        return n;
    }
}

static void
test_pkt_ecn_encap(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    static const uint8_t outer[4] = {
        [PKT_ECN_NOT_ECT] = PKT_ECN_NOT_ECT, [PKT_ECN_ECT_1] = PKT_ECN_ECT_1,
        [PKT_ECN_ECT_0] = PKT_ECN_ECT_0, [PKT_ECN_CE] = PKT_ECN_ECT_0,
    };
    union l2t_frame f;

    for (int v6 = 0; v6 < 2; v6++) {
        for (uint8_t ecn = 0; ecn < 4; ecn++) {
            size_t n = mk_pkt(f.b, v6, ecn);

            WGTEST_CHECK(pkt_ecn_get(f.b, n) == ecn);
            /* The DSCP does not leak into the outer header. */
            WGTEST_CHECK(pkt_ecn_encap(f.b, n) == outer[ecn]);
        }
    }
    f.b[0] = 0x00;                      /* Not IP. */
    WGTEST_CHECK(pkt_ecn_encap(f.b, 100) == PKT_ECN_NOT_ECT);
    WGTEST_CHECK(pkt_ecn_encap(f.b, 0) == PKT_ECN_NOT_ECT);
}
WGTEST_REGISTER("pkt-ecn-encap", test_pkt_ecn_encap);

/* Checks the decapsulation of inner 'ecn' under 'outer' ECN: the packet
 * is left as it was, or is exactly the packet built with CE (checksum
 * included), or is to be dropped. */
static void
check_decap(bool v6, uint8_t ecn, uint8_t outer)
{
    union l2t_frame f, expect;
    size_t n = mk_pkt(f.b, v6, ecn);
    bool mark = outer == PKT_ECN_CE && ecn != PKT_ECN_NOT_ECT;
    bool drop = outer == PKT_ECN_CE && ecn == PKT_ECN_NOT_ECT;
    enum pkt_ecn_decap r;

    mk_pkt(expect.b, v6, mark ? PKT_ECN_CE : ecn);
    r = pkt_ecn_decap(f.b, n, 0xfc | outer);    /* DSCP bits ignored. */
    WGTEST_CHECK(r == (drop ? PKT_ECN_DECAP_DROP : PKT_ECN_DECAP_OK));
    WGTEST_CHECK(!memcmp(f.b, expect.b, n));
    WGTEST_CHECK(v6 || csum(f.b, IP_HEADER_LEN) == 0);
}

static void
test_pkt_ecn_decap(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    union l2t_frame f;

    for (int v6 = 0; v6 < 2; v6++) {
        for (uint8_t ecn = 0; ecn < 4; ecn++) {
            for (uint8_t outer = 0; outer < 4; outer++) {
                check_decap(v6, ecn, outer);
            }
        }
    }
    /* Not IP: left alone. */
    f.b[0] = 0;
    WGTEST_CHECK(pkt_ecn_decap(f.b, 100, PKT_ECN_CE) == PKT_ECN_DECAP_OK);
}
WGTEST_REGISTER("pkt-ecn-decap", test_pkt_ecn_decap);
