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
#include <string.h>

#include "ovs-atomic.h"
#include "pkt-util.h"
#include "unaligned.h"

#ifdef WG_TEST_HOOKS
/* Parses so far, every depth, every thread: pkt_ip_parses_for_test(). */
static atomic_ullong pkt_ip_n_parses = 0;

static void
pkt_ip_count_parse(void)
{
    unsigned long long int orig;

    atomic_add_relaxed(&pkt_ip_n_parses, 1, &orig);
}

unsigned long long int
pkt_ip_parses_for_test(void)
{
    unsigned long long int n;

    atomic_read_relaxed(&pkt_ip_n_parses, &n);
    return n;
}
#else
static inline void
pkt_ip_count_parse(void)
{
}
#endif

int
pkt_ip_family(const void *pkt_, size_t len)
{
    const uint8_t *pkt = pkt_;

    if (len >= IP_HEADER_LEN && IP_VER(pkt[0]) == 4) {
        return AF_INET;
    } else if (len >= IPV6_HEADER_LEN && IP_VER(pkt[0]) == 6) {
        return AF_INET6;
    }
    return AF_UNSPEC;
}

/* Fills 'info' with the layer-3 fields of a 'len'-byte packet whose IP
 * header is 'l3_len' bytes and which is 'pkt_len' bytes long per its length
 * field, or returns EINVAL if those do not fit in each other. */
static int
pkt_ip_set_l3(struct pkt_ip_info *info, bool ipv6, uint8_t proto,
              size_t l3_len, size_t pkt_len, size_t len)
{
    if (l3_len > pkt_len || pkt_len > len) {
        return EINVAL;
    }
    info->ipv6 = ipv6;
    info->l4_proto = proto;
    info->l3_len = l3_len;
    info->l4_len = 0;
    info->pkt_len = pkt_len;
    info->payload_len = pkt_len - l3_len;
    return 0;
}

static int
pkt_ip_parse_ipv4(const uint8_t *pkt, size_t len, struct pkt_ip_info *info)
{
    size_t ihl = IP_IHL(pkt[0]) * 4;
    size_t tot_len = pkt_get16(pkt + PKT_IP4_OFS(ip_tot_len));

    if (ihl < IP_HEADER_LEN) {
        return EINVAL;
    }
    return pkt_ip_set_l3(info, false, pkt[PKT_IP4_OFS(ip_proto)], ihl,
                         tot_len, len);
}

static int
pkt_ip_parse_ipv6(const uint8_t *pkt, size_t len, struct pkt_ip_info *info)
{
    size_t tot_len = IPV6_HEADER_LEN + pkt_get16(pkt + PKT_IP6_OFS(ip6_plen));

    return pkt_ip_set_l3(info, true, pkt[PKT_IP6_OFS(ip6_nxt)],
                         IPV6_HEADER_LEN, tot_len, len);
}

int
pkt_ip_parse_l3(const void *pkt, size_t len, struct pkt_ip_info *info)
{
    pkt_ip_count_parse();
    switch (pkt_ip_family(pkt, len)) {
    case AF_INET:
        return pkt_ip_parse_ipv4(pkt, len, info);
    case AF_INET6:
        return pkt_ip_parse_ipv6(pkt, len, info);
    default:
        return EINVAL;
    }
}

/* Returns the control word (data offset and flags) of the TCP header at
 * 'tcp'. */
static ovs_be16
pkt_ip_tcp_ctl(const uint8_t *tcp)
{
    return get_unaligned_be16((const ovs_be16 *) (tcp + PKT_TCP_OFS(tcp_ctl)));
}

/* Steps over the IPv6 extension headers of the packet at 'pkt' that
 * pkt_ip_parse() accepts, updating 'info'. */
static int
pkt_ip_parse_ipv6_ext(const uint8_t *pkt, struct pkt_ip_info *info)
{
    size_t ofs = info->l3_len;
    uint8_t nxt = info->l4_proto;

    while (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_DSTOPTS) {
        if (ofs + 8 > info->pkt_len) {
            return EINVAL;
        }
        nxt = pkt[ofs];
        ofs += (pkt[ofs + 1] + 1) * 8;
    }
    if (ofs > info->pkt_len || nxt == IPPROTO_ROUTING
        || nxt == IPPROTO_FRAGMENT) {
        return EINVAL;
    }
    info->l4_proto = nxt;
    info->l3_len = ofs;
    return 0;
}

/* Returns the L4 header length of the packet at 'pkt' described by 'info',
 * which has 'room' bytes after its IP header (0 if a TCP header is cut
 * short). */
static size_t
pkt_ip_l4_len(const uint8_t *pkt, const struct pkt_ip_info *info,
              size_t room)
{
    const uint8_t *l4 = pkt + info->l3_len;

    switch (info->l4_proto) {
    case IPPROTO_TCP:
        return room >= TCP_HEADER_LEN ? TCP_OFFSET(pkt_ip_tcp_ctl(l4)) * 4 : 0;
    case IPPROTO_UDP:
        return UDP_HEADER_LEN;
    case IPPROTO_SCTP:
        return SCTP_HEADER_LEN;
    default:
        return 0;
    }
}

/* Goes on from the result of pkt_ip_parse_l3() in 'info' to the depth of
 * pkt_ip_parse() for the packet at 'pkt'. */
static int
pkt_ip_parse_upper(const uint8_t *pkt, struct pkt_ip_info *info)
{
    size_t room;

    if (info->ipv6
        ? pkt_ip_parse_ipv6_ext(pkt, info)
        : pkt_get16(pkt + PKT_IP4_OFS(ip_frag_off))
          & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK)) {
        return EINVAL;
    }
    room = info->pkt_len - info->l3_len;
    info->l4_len = pkt_ip_l4_len(pkt, info, room);
    if (info->l4_len > room
        || (info->l4_proto == IPPROTO_TCP && info->l4_len < TCP_HEADER_LEN)) {
        return EINVAL;
    }
    info->payload_len = room - info->l4_len;
    return 0;
}

int
pkt_ip_parse(const void *pkt, size_t len, struct pkt_ip_info *info)
{
    return (pkt_ip_parse_l3(pkt, len, info)
            || pkt_ip_parse_upper(pkt, info)) ? EINVAL : 0;
}

void
pkt_ip_frame_parse(struct pkt_ip_frame *f, const void *frame, size_t len,
                   size_t l3_ofs)
{
    const uint8_t *ip = (const uint8_t *) frame + l3_ofs;

    memset(f, 0, sizeof *f);
    f->l3_ofs = l3_ofs;
    f->l3_ok = l3_ofs <= len && !pkt_ip_parse_l3(ip, len - l3_ofs, &f->l3);
    f->l4 = f->l3;
    f->l4_ok = f->l3_ok && !pkt_ip_parse_upper(ip, &f->l4);
}

bool
pkt_ip_frame_ovs_agrees(const struct pkt_ip_frame *f, uint16_t ovs_l3_ofs,
                        uint16_t ovs_l4_ofs)
{
    return ((ovs_l3_ofs == UINT16_MAX || ovs_l3_ofs == f->l3_ofs)
            && (ovs_l4_ofs == UINT16_MAX || !f->l4_ok
                || ovs_l4_ofs == f->l3_ofs + f->l4.l3_len));
}

void
pkt_ip_get_addrs(const void *pkt_, bool ipv6, struct in6_addr *src,
                 struct in6_addr *dst)
{
    const uint8_t *addrs = (const uint8_t *) pkt_ + pkt_ip_addrs_ofs(ipv6);

    if (ipv6) {
        memcpy(src, addrs, sizeof *src);
        memcpy(dst, addrs + sizeof *src, sizeof *dst);
    } else {
        const ovs_be32 *ip4 = (const ovs_be32 *) addrs;

        *src = in6_addr_mapped_ipv4(get_unaligned_be32(ip4));
        *dst = in6_addr_mapped_ipv4(get_unaligned_be32(ip4 + 1));
    }
}

uint16_t
pkt_ip_tcp_flags(const void *tcp)
{
    return TCP_FLAGS(pkt_ip_tcp_ctl(tcp));
}

uint32_t
pkt_ip_pseudo_base(const void *pkt, bool ipv6, uint8_t l4_proto)
{
    const uint8_t *addrs = (const uint8_t *) pkt + pkt_ip_addrs_ofs(ipv6);
    uint32_t sum = csum_continue(0, addrs, 2 * pkt_ip_addr_len(ipv6));

    return csum_add16(sum, htons(l4_proto));
}

bool
pkt_ip_nd_find_lla(const uint8_t *opt, size_t n, uint8_t type,
                   struct eth_addr *mac, bool *found)
{
    *found = false;
    while (n > 0) {
        size_t opt_len = n >= 2 ? opt[1] * 8 : 0;

        if (!opt_len || opt_len > n) {
            return false;
        }
        if (opt[0] == type && opt_len == ND_LLA_OPT_LEN) {
            memcpy(mac, opt + 2, ETH_ADDR_LEN);
            *found = true;
        }
        opt += opt_len;
        n -= opt_len;
    }
    return true;
}
