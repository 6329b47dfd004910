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
#include "pkt-mtu.h"

#include "csum.h"
#include "test-bridge-l2.h"
#include "util.h"
#include "wgtest.h"

/* Unit tests of pkt-mtu: the MTU check, and IPv4 fragmentation checked by
 * reassembly.  (Its ICMP errors are checked through the L2 adapter, which
 * chooses their source address: test-bridge-l2-mtu.c.) */

static void
test_pkt_mtu_check(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    union l2t_frame f;
    struct ip_header *ip = (void *) f.b;

    l2t_ip4_pkt(f.b, "10.1.1.5", "10.1.2.9", 1500);
    WGTEST_CHECK(pkt_mtu_check(f.b, 1500, 1500) == PKT_MTU_FITS);
    WGTEST_CHECK(pkt_mtu_check(f.b, 1500, 1420) == PKT_MTU_FRAGMENT);
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    WGTEST_CHECK(pkt_mtu_check(f.b, 1500, 1420) == PKT_MTU_TOO_BIG);
    l2t_ip6_pkt(f.b, "fd00:1:1::5", "fd00:1:2::9", IPPROTO_UDP, 64, 1460);
    WGTEST_CHECK(pkt_mtu_check(f.b, 1500, 1420) == PKT_MTU_TOO_BIG);
    WGTEST_CHECK(pkt_mtu_check(f.b, 1420, 1420) == PKT_MTU_FITS);
}
WGTEST_REGISTER("pkt-mtu-check", test_pkt_mtu_check);

/* IPv4 fragmentation. */

/* Options: a copied one (loose source route, 7 bytes), a non-copied one
 * (record route, 7 bytes), no-operation, end of list: 16 bytes. */
static const uint8_t frag_opts[16] = {
    0x83, 7, 4, 10, 9, 9, 9, 0x07, 7, 4, 0, 0, 0, 0, 1, 0,
};
static const uint8_t frag_copied[8] = { 0x83, 7, 4, 10, 9, 9, 9, 0 };

struct frag_case {
    size_t tot;
    unsigned int mtu;
    bool opts;
    uint16_t base_off;          /* The packet is itself a fragment. */
    bool base_mf;
};

static const struct frag_case frag_cases[] = {
    { 4000, 1420, false, 0, false },
    { 4000, 576, true, 0, false },
    { 1500, 68, true, 0, false },
    { 1421, 1420, false, 0, false },
    { 1428, 1420, true, 0, false },
    { 3000, 1000, false, 100, true },
    { 3001, 999, true, 7, false },
    { 65535, 1420, false, 0, false },
    { 9000, 1500, true, 0, false },
};

/* Builds the original packet of 'c' into 'p'; returns its header length. */
static size_t
mk_frag_orig(uint8_t *p, const struct frag_case *c)
{
    struct ip_header *ip = (void *) p;
    size_t hlen = IP_HEADER_LEN + (c->opts ? sizeof frag_opts : 0);

    l2t_ip4_pkt(p, "10.1.1.5", "10.1.2.9", c->tot);
    memmove(p + hlen, p + IP_HEADER_LEN, c->tot - hlen);
    if (c->opts) {
        memcpy(p + IP_HEADER_LEN, frag_opts, sizeof frag_opts);
    }
    for (size_t i = hlen; i < c->tot; i++) {
        p[i] = (i * 131) >> 3;
    }
    ip->ip_ihl_ver = IP_IHL_VER(hlen / 4, 4);
    ip->ip_frag_off = htons(c->base_off | (c->base_mf ? IP_MORE_FRAGMENTS
                                           : 0));
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, hlen);
    return hlen;
}

/* Checks one fragment 'fr' of 'n' bytes against the original 'o' and adds
 * its payload to 'reasm'.  '*pos' is the payload offset expected next. */
static bool
check_fragment(const uint8_t *fr, size_t n, const uint8_t *o, size_t hlen,
               const struct frag_case *c, uint8_t *reasm, size_t *pos)
{
    const struct ip_header *ip = (const void *) fr, *oip = (const void *) o;
    size_t fh = IP_IHL(ip->ip_ihl_ver) * 4;
    uint16_t off = ntohs(ip->ip_frag_off);
    bool first = *pos == 0;
    bool last;

    WGTEST_CHECK(n <= c->mtu && IP_VER(ip->ip_ihl_ver) == 4);
    WGTEST_CHECK(ntohs(ip->ip_tot_len) == n && fh <= n);
    WGTEST_CHECK(!csum(ip, fh));
    WGTEST_CHECK(ip->ip_id == oip->ip_id && ip->ip_ttl == oip->ip_ttl);
    WGTEST_CHECK(ip->ip_proto == oip->ip_proto && ip->ip_tos == oip->ip_tos);
    WGTEST_CHECK(!memcmp(&ip->ip_src, &oip->ip_src, 8));
    WGTEST_CHECK(!(off & IP_DONT_FRAGMENT));
    if (first) {
        WGTEST_CHECK(fh == hlen && !memcmp(fr + 20, o + 20, hlen - 20));
    } else if (c->opts) {
        WGTEST_CHECK(fh == 28 && !memcmp(fr + 20, frag_copied, 8));
    } else {
        WGTEST_CHECK(fh == 20);
    }
    WGTEST_CHECK((off & IP_FRAG_OFF_MASK) == c->base_off + *pos / 8);
    last = *pos + (n - fh) == c->tot - hlen;
    if (!last) {
        WGTEST_CHECK(off & IP_MORE_FRAGMENTS && (n - fh) % 8 == 0);
        WGTEST_CHECK(n - fh > 0);
    } else {
        WGTEST_CHECK(!!(off & IP_MORE_FRAGMENTS) == c->base_mf);
    }
    memcpy(reasm + *pos, fr + fh, n - fh);
    *pos += n - fh;
    return last;
}

/* Fragments the packet of 'c' into buffers of 'out_size' bytes (at most
 * 'c->mtu' is used) and checks every fragment and the reassembly. */
static void
frag_one(const struct frag_case *c, size_t out_size, uint8_t *orig,
         uint8_t *reasm)
{
    struct frag_case lim = *c;
    size_t hlen = mk_frag_orig(orig, c);
    size_t payload = c->tot - hlen, pos = 0, n_frags = 0, n, first, later;
    uint8_t *fr = xmalloc(out_size);
    struct pkt_mtu_frag f;
    bool last = false;

    lim.mtu = MIN(c->mtu, out_size);
    first = (lim.mtu - hlen) & ~7;
    later = (lim.mtu - 20 - (c->opts ? 8 : 0)) & ~7;
    fprintf(stderr, "frag: %zu bytes, mtu %u, buffer %zu\n", c->tot, c->mtu,
            out_size);
    WGTEST_CHECK(pkt_mtu_frag_start(&f, orig, c->tot, c->mtu));
    while ((n = pkt_mtu_frag_next(&f, fr, out_size)) > 0) {
        WGTEST_CHECK(!last);
        last = check_fragment(fr, n, orig, hlen, &lim, reasm, &pos);
        n_frags++;
    }
    WGTEST_CHECK(last && pos == payload);
    WGTEST_CHECK(n_frags == 1 + DIV_ROUND_UP(payload - MIN(payload, first),
                                             later));
    WGTEST_CHECK_MEM(reasm, orig + hlen, payload);
    WGTEST_CHECK(!pkt_mtu_frag_next(&f, fr, out_size));
    free(fr);
}

static void
test_pkt_mtu_frag(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    uint8_t *orig = xmalloc(65536), *reasm = xmalloc(65536);

    for (size_t i = 0; i < ARRAY_SIZE(frag_cases); i++) {
        const struct frag_case *c = &frag_cases[i];

        frag_one(c, c->mtu, orig, reasm);
        frag_one(c, c->mtu + 100, orig, reasm);
        frag_one(c, MAX(44, c->mtu * 2 / 3), orig, reasm);
    }

    /* Refused: DF, fits, MTU below header + 8, bad option, not IPv4,
     * length beyond the buffer, offset overflow. */
    struct frag_case c = { 1500, 1420, true, 0, false };
    struct ip_header *ip = (void *) orig;
    struct pkt_mtu_frag f;
    size_t hlen = mk_frag_orig(orig, &c);

    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1500));
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, hlen + 7));
    WGTEST_CHECK(pkt_mtu_frag_start(&f, orig, 1500, hlen + 8));
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1499, 1420));
    ip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1420));
    ip->ip_frag_off = htons(8100);     /* 64800 + 1464 > 65535. */
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1420));
    ip->ip_frag_off = 0;
    orig[IP_HEADER_LEN + 8] = 40;   /* Record route: beyond the header. */
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1420));
    orig[IP_HEADER_LEN + 8] = 1;    /* Shorter than its own header. */
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1420));
    orig[IP_HEADER_LEN + 8] = 7;
    WGTEST_CHECK(pkt_mtu_frag_start(&f, orig, 1500, 1420));
    orig[0] = 0x60;
    WGTEST_CHECK(!pkt_mtu_frag_start(&f, orig, 1500, 1420));
    free(orig);
    free(reasm);
}
WGTEST_REGISTER("pkt-mtu-frag", test_pkt_mtu_frag);
