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
#include "test-bridge-l2.h"

#include <netinet/icmp6.h>
#include <netinet/ip6.h>

#include "csum.h"
#include "util.h"
#include "wgtest.h"

/* Unit tests of the L2 adapter's ICMP "fragmentation needed" and ICMPv6
 * "packet too big" frames (built by pkt-mtu, whose check and fragmenter
 * test-pkt-mtu.c tests), and random frames through every entry point. */

/* ICMP errors. */

enum icmp_tweak {
    I_NONE,
    I_DF,               /* IPv4 DF set (the usual case). */
    I_ICMP_ERR,         /* The packet is an ICMP(v6) error. */
    I_ICMP_ECHO,        /* The packet is an ICMP(v6) echo request. */
    I_FRAG,             /* IPv4 non-first fragment. */
    I_CUT,              /* Frame shorter than the IP length. */
};

struct icmp_case {
    const char *name;
    const char *own;
    const char *src, *dst;
    size_t tot;                 /* IP length of the offending packet. */
    enum icmp_tweak tweak;
    size_t out_size;
    size_t expect_len;          /* 0: no error may be sent. */
    const char *expect_src;
};

#define I_MAX BRIDGE_L2_ICMP_FRAME_MAX
static const struct icmp_case icmp_cases[] = {
    { "v4 own address", OWN, "10.1.1.5", "10.1.2.9", 1500, I_DF, I_MAX,
      14 + 576, "10.1.1.254" },
    { "v4 no address", "", "10.1.1.5", "10.1.2.9", 1500, I_DF, I_MAX,
      14 + 576, "10.1.2.9" },
    { "v4 other prefix", "10.9.9.1/24,fd00::1/64", "10.1.1.5", "10.1.2.9",
      1500, I_DF, I_MAX, 14 + 576, "10.9.9.1" },
    { "v4 short packet", OWN, "10.1.1.5", "10.1.2.9", 100, I_DF, I_MAX,
      14 + 28 + 100, "10.1.1.254" },
    { "v4 echo", OWN, "10.1.1.5", "10.1.2.9", 1500, I_ICMP_ECHO, I_MAX,
      14 + 576, "10.1.1.254" },
    { "v4 ICMP error", OWN, "10.1.1.5", "10.1.2.9", 1500, I_ICMP_ERR, I_MAX,
      0, NULL },
    { "v4 fragment", OWN, "10.1.1.5", "10.1.2.9", 1500, I_FRAG, I_MAX, 0,
      NULL },
    { "v4 source 0", OWN, "0.0.0.0", "10.1.2.9", 1500, I_DF, I_MAX, 0,
      NULL },
    { "v4 broadcast source", OWN, "10.1.1.255", "10.1.2.9", 1500, I_DF,
      I_MAX, 0, NULL },
    { "v4 truncated", OWN, "10.1.1.5", "10.1.2.9", 1500, I_CUT, I_MAX, 0,
      NULL },
    { "v4 small buffer", OWN, "10.1.1.5", "10.1.2.9", 1500, I_DF, 70, 70,
      "10.1.1.254" },
    { "v4 too small buffer", OWN, "10.1.1.5", "10.1.2.9", 1500, I_DF, 69, 0,
      NULL },
    { "v6 own address", OWN, "fd00:1:1::5", "fd00:1:2::9", 1500, I_NONE,
      I_MAX, 14 + 1280, "fd00:1:1::fe" },
    { "v6 no address", "10.1.1.254/24", "fd00:1:1::5", "fd00:1:2::9", 1500,
      I_NONE, I_MAX, 14 + 1280, "fd00:1:2::9" },
    { "v6 short packet", OWN, "fd00:1:1::5", "fd00:1:2::9", 200, I_NONE,
      I_MAX, 14 + 48 + 200, "fd00:1:1::fe" },
    { "v6 echo", OWN, "fd00:1:1::5", "fd00:1:2::9", 1500, I_ICMP_ECHO,
      I_MAX, 14 + 1280, "fd00:1:1::fe" },
    { "v6 ICMPv6 error", OWN, "fd00:1:1::5", "fd00:1:2::9", 1500,
      I_ICMP_ERR, I_MAX, 0, NULL },
    { "v6 source ::", OWN, "::", "fd00:1:2::9", 1500, I_NONE, I_MAX, 0,
      NULL },
    { "v6 truncated", OWN, "fd00:1:1::5", "fd00:1:2::9", 1500, I_CUT, I_MAX,
      0, NULL },
};

/* Builds the offending frame for 'c' at 'p'; returns its length. */
static size_t
mk_icmp_case_frame(uint8_t *p, const struct icmp_case *c)
{
    bool v6 = strchr(c->src, ':') != NULL;
    uint8_t *l3 = l2t_put_eth(p, port_mac, mac_a,
                              v6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    struct ip_header *ip = (void *) l3;
    size_t hlen = v6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    uint8_t proto = v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;

    if (v6) {
        l2t_ip6_pkt(l3, c->src, c->dst, IPPROTO_UDP, 64, c->tot - hlen);
    } else {
        l2t_ip4_pkt(l3, c->src, c->dst, c->tot);
    }
    if (c->tweak == I_ICMP_ERR || c->tweak == I_ICMP_ECHO) {
        l3[v6 ? 6 : 9] = proto;
        l3[hlen] = (c->tweak == I_ICMP_ECHO ? (v6 ? 128 : 8)
                    : (v6 ? 1 : 3));
    }
    if (!v6) {
        ip->ip_frag_off = htons(c->tweak == I_FRAG ? 185 : IP_DONT_FRAGMENT);
        ip->ip_csum = 0;
        ip->ip_csum = csum(ip, IP_HEADER_LEN);
    }
    return ETH_HEADER_LEN + c->tot - (c->tweak == I_CUT);
}

static void
check_icmp4(const uint8_t *r, size_t len, const uint8_t *orig,
            const struct icmp_case *c)
{
    const struct ip_header *ip = (const void *) (r + ETH_HEADER_LEN);
    const struct icmp_header *icmp = (const void *) (ip + 1);
    size_t quote = len - ETH_HEADER_LEN - 28;

    WGTEST_CHECK(ip->ip_ihl_ver == 0x45);
    WGTEST_CHECK(ntohs(ip->ip_tot_len) == len - ETH_HEADER_LEN);
    WGTEST_CHECK(ip->ip_ttl > 0 && ip->ip_proto == IPPROTO_ICMP);
    WGTEST_CHECK(!(ip->ip_frag_off & htons(IP_FRAG_OFF_MASK
                                           | IP_MORE_FRAGMENTS)));
    WGTEST_CHECK(get_16aligned_be32(&ip->ip_src) == l2t_ip4(c->expect_src));
    WGTEST_CHECK(get_16aligned_be32(&ip->ip_dst) == l2t_ip4(c->src));
    WGTEST_CHECK(!csum(ip, IP_HEADER_LEN));
    WGTEST_CHECK(icmp->icmp_type == 3 && icmp->icmp_code == 4);
    WGTEST_CHECK(icmp->icmp_fields.frag.empty == 0);
    WGTEST_CHECK(icmp->icmp_fields.frag.mtu == htons(1420));
    WGTEST_CHECK(!csum(icmp, ICMP_HEADER_LEN + quote));
    WGTEST_CHECK(quote == MIN(c->tot, 576 - 28) || c->out_size < I_MAX);
    WGTEST_CHECK_MEM(icmp + 1, orig, quote);
}

static void
check_icmp6(const uint8_t *r, size_t len, const uint8_t *orig,
            const struct icmp_case *c)
{
    const struct ovs_16aligned_ip6_hdr *ip = (const void *) (r + 14);
    const struct icmp6_data_header *icmp = (const void *) (ip + 1);
    struct in6_addr s = l2t_ip6(c->expect_src), d = l2t_ip6(c->src);
    size_t quote = len - ETH_HEADER_LEN - 48;

    WGTEST_CHECK(get_16aligned_be32(&ip->ip6_flow) == htonl(0x60000000));
    WGTEST_CHECK(ntohs(ip->ip6_plen) == 8 + quote);
    WGTEST_CHECK(ip->ip6_nxt == IPPROTO_ICMPV6 && ip->ip6_hlim > 0);
    WGTEST_CHECK(!memcmp(&ip->ip6_src, &s, 16));
    WGTEST_CHECK(!memcmp(&ip->ip6_dst, &d, 16));
    WGTEST_CHECK(icmp->icmp6_base.icmp6_type == ICMP6_PACKET_TOO_BIG);
    WGTEST_CHECK(icmp->icmp6_base.icmp6_code == 0);
    WGTEST_CHECK(get_16aligned_be32(&icmp->icmp6_data.be32[0])
                 == htonl(1420));
    WGTEST_CHECK(!packet_csum_upperlayer6(ip, icmp, IPPROTO_ICMPV6,
                                          8 + quote));
    WGTEST_CHECK(quote == MIN(c->tot, 1280 - 48));
    WGTEST_CHECK_MEM(icmp + 1, orig, quote);
}

static void
test_l2_icmp(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    for (size_t i = 0; i < ARRAY_SIZE(icmp_cases); i++) {
        const struct icmp_case *c = &icmp_cases[i];
        struct bridge_l2 *l2 = l2t_new(c->own, NULL);
        uint8_t *out = xmalloc(c->out_size);
        const struct eth_header *eth = (const void *) out;
        union l2t_frame f;
        size_t len = mk_icmp_case_frame(f.b, c);
        size_t n;

        fprintf(stderr, "icmp: %s\n", c->name);
        n = bridge_l2_icmp_too_big(l2, f.b, len, 1420, out, c->out_size);
        WGTEST_CHECK(n == c->expect_len);
        if (n) {
            WGTEST_CHECK(eth_addr_equals(eth->eth_dst, mac_a));
            WGTEST_CHECK(eth_addr_equals(eth->eth_src, port_mac));
            if (strchr(c->src, ':')) {
                WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_IPV6));
                check_icmp6(out, n, f.b + ETH_HEADER_LEN, c);
            } else {
                WGTEST_CHECK(eth->eth_type == htons(ETH_TYPE_IP));
                check_icmp4(out, n, f.b + ETH_HEADER_LEN, c);
            }
        }
        free(out);
        bridge_l2_destroy(l2);
    }
}
WGTEST_REGISTER("l2-icmp", test_l2_icmp);

/* Random frames through every entry point (see fuzz-bridge-l2.c), seeded:
 * "wgtest l2-fuzz [SEED [ITERATIONS]]". */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
void fuzz_bridge_l2_reset(void);

/* A valid frame of a random kind at 'p', addressed among a few guests,
 * the port, own and routable addresses. */
static size_t
random_template(uint8_t *p)
{
    static const char *const v4[] = {
        "10.1.1.5", "10.1.1.6", "10.1.1.254", "10.1.2.9", "0.0.0.0",
        "10.1.1.255", "224.0.0.1",
    };
    static const char *const v6[] = {
        "fd00:1:1::5", "fd00:1:1::6", "fd00:1:1::fe", "fd00:1:2::9", "::",
        "fe80::ff:fe00:1", "ff02::1:ff00:9",
    };
    const struct eth_addr macs[] = { port_mac, mac_a, mac_b, mac_bcast };
    struct eth_addr dst = macs[wgtest_random() % 4];
    struct eth_addr src = macs[1 + wgtest_random() % 2];
    const char *s4 = v4[wgtest_random() % 7], *d4 = v4[wgtest_random() % 7];
    const char *s6 = v6[wgtest_random() % 7], *d6 = v6[wgtest_random() % 7];
    uint8_t *l3;

    switch (wgtest_random() % 6) {
    case 0:
        return l2t_arp(p, dst, src, 1 + wgtest_random() % 3, s4, d4);
    case 1:
        return l2t_nd(p, dst, src, s6, d6, 133 + wgtest_random() % 5,
                      v6[wgtest_random() % 7],
                      wgtest_random() % 2 ? &src : NULL, 255);
    case 2:
        l3 = l2t_put_eth(p, dst, src, ETH_TYPE_IP);
        return ETH_HEADER_LEN + l2t_ip4_pkt(l3, s4, d4,
                                            20 + wgtest_random() % 1600);
    case 3:
        l3 = l2t_put_eth(p, dst, src, ETH_TYPE_IPV6);
        return ETH_HEADER_LEN + l2t_ip6_pkt(l3, s6, d6,
                                            58 - wgtest_random() % 2 * 41,
                                            64, wgtest_random() % 1600);
    default:
        wgtest_random_fill(p, 64);
        return wgtest_random() % 64;
    }
}

static void
test_l2_fuzz(int argc, char *argv[])
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 20260101;
    long iterations = argc > 2 ? atol(argv[2]) : 30000;
    uint8_t *buf = xmalloc(5 + 2048);
    union l2t_frame f;

    fprintf(stderr, "l2-fuzz: seed %"PRIu64", %ld iterations\n", seed,
            iterations);
    wgtest_random_seed(seed);
    for (long i = 0; i < iterations; i++) {
        size_t len = random_template(f.b);
        int flips = wgtest_random() % 8;

        memcpy(buf + 5, f.b, len);
        wgtest_random_fill(buf, 5);
        buf[1] &= 0x0f;                         /* At most ~4.5 min. */
        for (int j = 0; j < flips && len; j++) {
            buf[5 + wgtest_random() % len] = wgtest_random();
        }
        if (wgtest_random() % 4 == 0) {
            len = wgtest_random() % (len + 1);  /* Truncate. */
        }
        LLVMFuzzerTestOneInput(buf, 5 + len);
    }
    fuzz_bridge_l2_reset();
    free(buf);
}
WGTEST_REGISTER("l2-fuzz", test_l2_fuzz);
