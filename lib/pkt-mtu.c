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

#include <netinet/icmp6.h>
#include <netinet/ip6.h>
#include <string.h>

#include "csum.h"
#include "packets.h"
#include "pkt-ip.h"
#include "util.h"

/* Oversized packets: the MTU check, ICMP errors to their sender and IPv4
 * fragmentation, over plain buffers (see pkt-mtu.h). */

enum pkt_mtu_action
pkt_mtu_check(const void *ip_, size_t len, unsigned int mtu)
{
    const struct ip_header *ip = ip_;

    if (len <= mtu) {
        return PKT_MTU_FITS;
    } else if (pkt_ip_family(ip, len) == AF_INET
               && !(ip->ip_frag_off & htons(IP_DONT_FRAGMENT))) {
        return PKT_MTU_FRAGMENT;
    }
    return PKT_MTU_TOO_BIG;
}

static bool
icmp4_is_error(uint8_t type)
{
    return (type == ICMP4_DST_UNREACH || type == ICMP4_SOURCEQUENCH
            || type == ICMP4_REDIRECT || type == ICMP4_TIME_EXCEEDED
            || type == ICMP4_PARAM_PROB);
}

/* Bytes of the offending packet ('tot' bytes, 'hlen' of header) to quote
 * in an error of 'overhead' bytes of headers, within 'limit' bytes of IP
 * and 'out_size' bytes of buffer; 0 if not even the header and 8 bytes
 * fit. */
static size_t
icmp_quote_len(size_t tot, size_t hlen, size_t overhead, size_t limit,
               size_t out_size)
{
    size_t room = out_size > overhead ? out_size - overhead : 0;
    size_t quote = MIN(MIN(tot, limit - overhead), room);

    return quote >= MIN(tot, hlen + 8) ? quote : 0;
}

/* True if an IPv6 (or IPv4) packet from 'src' to 'dst' may get an ICMP
 * error: its source is a unicast address, and an IPv6 packet carries no
 * IPv4-mapped address. */
static bool
icmp_may_answer(bool ipv6, const struct in6_addr *src,
                const struct in6_addr *dst)
{
    ovs_be32 src4 = in6_addr_get_mapped_ipv4(src);

    if (ipv6) {
        return (ipv6_addr_is_set(src) && !ipv6_addr_is_multicast(src)
                && !IN6_IS_ADDR_V4MAPPED(src) && !IN6_IS_ADDR_V4MAPPED(dst));
    }
    return src4 && src4 != htonl(INADDR_BROADCAST) && !ip_is_multicast(src4);
}

/* Parses the offending IPv4 (or, with 'ipv6', IPv6) packet at 'ip' ('len'
 * bytes) into 'info', 'src' and 'dst'.  Returns false if it is malformed,
 * of the other family, or its source may not get an ICMP error. */
static bool
icmp_parse(const void *ip, size_t len, bool ipv6, struct pkt_ip_info *info,
           struct in6_addr *src, struct in6_addr *dst)
{
    if (pkt_ip_parse_l3(ip, len, info) || info->ipv6 != ipv6) {
        return false;
    }
    pkt_ip_get_addrs(ip, ipv6, src, dst);
    return icmp_may_answer(ipv6, src, dst);
}

/* Returns true if the packet at 'ip' described by 'info' is an ICMP error
 * (ICMPv4 error types, ICMPv6 types below 128), which gets none back. */
static bool
icmp_is_error(const uint8_t *ip, const struct pkt_ip_info *info)
{
    uint8_t type;

    if (info->pkt_len <= info->l3_len) {
        return false;
    }
    type = ip[info->l3_len];
    return (info->ipv6
            ? info->l4_proto == IPPROTO_ICMPV6 && !(type & 0x80)
            : info->l4_proto == IPPROTO_ICMP && icmp4_is_error(type));
}

static size_t
icmp4_too_big(const struct ip_header *ip, size_t len, unsigned int mtu,
              const struct in6_addr *from, uint8_t *out, size_t out_size)
{
    struct ip_header *oip = (void *) out;
    struct icmp_header *icmp = (void *) (oip + 1);
    const size_t overhead = IP_HEADER_LEN + ICMP_HEADER_LEN;
    struct pkt_ip_info info;
    struct in6_addr src, dst;
    size_t quote;

    if (!icmp_parse(ip, len, false, &info, &src, &dst)
        || ip->ip_frag_off & htons(IP_FRAG_OFF_MASK)
        || icmp_is_error((const uint8_t *) ip, &info)) {
        return 0;
    }
    quote = icmp_quote_len(info.pkt_len, info.l3_len, overhead, 576,
                           out_size);
    if (!quote) {
        return 0;
    }
    from = from ? from : &dst;

    memset(oip, 0, overhead);
    oip->ip_ihl_ver = IP_IHL_VER(5, 4);
    oip->ip_tos = IP_DSCP_CS6;
    oip->ip_tot_len = htons(overhead + quote);
    oip->ip_frag_off = htons(IP_DONT_FRAGMENT);
    oip->ip_ttl = 64;
    oip->ip_proto = IPPROTO_ICMP;
    put_16aligned_be32(&oip->ip_src, in6_addr_get_mapped_ipv4(from));
    put_16aligned_be32(&oip->ip_dst, in6_addr_get_mapped_ipv4(&src));
    oip->ip_csum = csum(oip, IP_HEADER_LEN);
    icmp->icmp_type = ICMP4_DST_UNREACH;
    icmp->icmp_code = 4;                /* Fragmentation needed. */
    icmp->icmp_fields.frag.mtu = htons(MIN(mtu, UINT16_MAX));
    memcpy(icmp + 1, ip, quote);
    icmp->icmp_csum = csum(icmp, ICMP_HEADER_LEN + quote);
    return overhead + quote;
}

static size_t
icmp6_too_big(const struct ovs_16aligned_ip6_hdr *ip6, size_t len,
              unsigned int mtu, const struct in6_addr *from, uint8_t *out,
              size_t out_size)
{
    struct ovs_16aligned_ip6_hdr *oip6 = (void *) out;
    struct icmp6_data_header *icmp = (void *) (oip6 + 1);
    const size_t overhead = IPV6_HEADER_LEN + ICMP6_DATA_HEADER_LEN;
    struct pkt_ip_info info;
    struct in6_addr src, dst;
    size_t quote;

    if (!icmp_parse(ip6, len, true, &info, &src, &dst)
        || icmp_is_error((const uint8_t *) ip6, &info)) {
        return 0;
    }
    quote = icmp_quote_len(info.pkt_len, IPV6_HEADER_LEN, overhead, 1280,
                           out_size);
    if (!quote) {
        return 0;
    }
    from = from ? from : &dst;

    put_16aligned_be32(&oip6->ip6_flow, htonl(6 << 28));
    oip6->ip6_plen = htons(ICMP6_DATA_HEADER_LEN + quote);
    oip6->ip6_nxt = IPPROTO_ICMPV6;
    oip6->ip6_hlim = 64;
    memcpy(&oip6->ip6_src, from, sizeof *from);
    memcpy(&oip6->ip6_dst, &src, sizeof src);
    icmp->icmp6_base.icmp6_type = ICMP6_PACKET_TOO_BIG;
    icmp->icmp6_base.icmp6_code = 0;
    icmp->icmp6_base.icmp6_cksum = htons(0);
    put_16aligned_be32(&icmp->icmp6_data.be32[0], htonl(mtu));
    memcpy(icmp + 1, ip6, quote);
    icmp->icmp6_base.icmp6_cksum = packet_csum_upperlayer6(
        oip6, icmp, IPPROTO_ICMPV6, ICMP6_DATA_HEADER_LEN + quote);
    return overhead + quote;
}

size_t
pkt_mtu_icmp_too_big(const void *ip, size_t len, unsigned int mtu,
                     const struct in6_addr *from, void *out, size_t out_size)
{
    switch (pkt_ip_family(ip, len)) {
    case AF_INET:
        return icmp4_too_big(ip, len, mtu, from, out, out_size);
    case AF_INET6:
        return icmp6_too_big(ip, len, mtu, from, out, out_size);
    default:
        return 0;
    }
}

/* IPv4 fragmentation (RFC 791). */

/* Collects the options with the "copied" bit for later fragments. */
static bool
frag_copy_opts(struct pkt_mtu_frag *f)
{
    const uint8_t *opt = f->ip + IP_HEADER_LEN;
    size_t n = f->hlen - IP_HEADER_LEN;

    f->opts_len = 0;
    while (n > 0 && opt[0] != 0) {          /* 0: end of option list. */
        size_t opt_len = opt[0] == 1 ? 1    /* 1: no-operation. */
                         : n >= 2 ? opt[1] : 0;

        if (opt_len < 1 || opt_len > n || (opt[0] != 1 && opt_len < 2)) {
            return false;
        }
        if (opt[0] & 0x80) {
            memcpy(f->opts + f->opts_len, opt, opt_len);
            f->opts_len += opt_len;
        }
        opt += opt_len;
        n -= opt_len;
    }
    while (f->opts_len % 4) {
        f->opts[f->opts_len++] = 0;
    }
    return true;
}

bool
pkt_mtu_frag_start(struct pkt_mtu_frag *f, const void *ip_, size_t len,
                 unsigned int mtu)
{
    const struct ip_header *ip = ip_;
    struct pkt_ip_info info;
    uint16_t frag_off;

    memset(f, 0, sizeof *f);
    if (pkt_ip_parse_l3(ip, len, &info) || info.ipv6) {
        return false;
    }
    f->ip = ip_;
    f->hlen = info.l3_len;
    f->tot_len = info.pkt_len;
    f->pos = f->hlen;
    f->mtu = mtu;
    frag_off = ntohs(ip->ip_frag_off);
    f->base_off = frag_off & IP_FRAG_OFF_MASK;
    f->base_mf = (frag_off & IP_MORE_FRAGMENTS) != 0;
    return (f->tot_len > mtu && !(frag_off & IP_DONT_FRAGMENT)
            && mtu >= f->hlen + 8
            && f->base_off * 8 + (f->tot_len - f->hlen) <= UINT16_MAX
            && frag_copy_opts(f));
}

size_t
pkt_mtu_frag_next(struct pkt_mtu_frag *f, void *out_, size_t out_size)
{
    struct ip_header *out = out_;
    bool first = f->pos == f->hlen;
    size_t hlen = first ? f->hlen : IP_HEADER_LEN + f->opts_len;
    size_t limit = MIN(f->mtu, out_size);
    size_t n = f->tot_len - f->pos;
    bool last = hlen + n <= limit;
    uint16_t off;

    if (f->pos >= f->tot_len) {
        return 0;
    }
    ovs_assert(limit >= hlen + 8);
    if (!last) {
        n = (limit - hlen) & ~(size_t) 7;
    }
    memcpy(out, f->ip, IP_HEADER_LEN);
    if (first) {
        memcpy(out + 1, f->ip + IP_HEADER_LEN, hlen - IP_HEADER_LEN);
    } else {
        memcpy(out + 1, f->opts, f->opts_len);
    }
    off = f->base_off + (f->pos - f->hlen) / 8;
    out->ip_ihl_ver = IP_IHL_VER(hlen / 4, 4);
    out->ip_tot_len = htons(hlen + n);
    out->ip_frag_off = htons(off | (!last || f->base_mf
                                    ? IP_MORE_FRAGMENTS : 0));
    out->ip_csum = htons(0);
    out->ip_csum = csum(out, hlen);
    memcpy((uint8_t *) out + hlen, f->ip + f->pos, n);
    f->pos += n;
    return hlen + n;
}
