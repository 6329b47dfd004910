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
#include "ul-frame.h"

#include <netinet/icmp6.h>
#include <netinet/ip6.h>
#include "csum.h"
#include "pkt-csum.h"
#include "pkt-ip.h"
#include "util.h"
#include "wg-messages.h"

const char *
ul_frame_reason_name(enum ul_frame_reason reason)
{
    static const char *const names[] = {
#define UL_FRAME_REASON(ENUM, NAME) "ul_" #NAME,
        UL_FRAME_REASONS
#undef UL_FRAME_REASON
    };

    return reason < ARRAY_SIZE(names) ? names[reason] : "ul_unknown";
}

/* Egress. */

static void
put_eth(uint8_t *p, struct eth_addr dst, struct eth_addr src, uint16_t type)
{
    struct eth_header *eth = (struct eth_header *) p;

    eth->eth_dst = dst;
    eth->eth_src = src;
    eth->eth_type = htons(type);
}

static bool
host_has(const struct ul_frame_host *host, bool ipv6)
{
    return ipv6 ? ipv6_addr_is_set(&host->ip6) : host->ip4 != 0;
}

/* Writes an IPv4 header of 'ip_len' bytes of packet; returns the UDP
 * pseudo-header sum. */
static uint32_t
put_ip4(uint8_t *p, const struct ul_frame_host *host,
        const struct ul_frame_tx *tx, size_t ip_len)
{
    struct ip_header *ip = (struct ip_header *) p;

    ip->ip_ihl_ver = IP_IHL_VER(5, 4);
    ip->ip_tos = tx->tos;
    ip->ip_tot_len = htons(ip_len);
    ip->ip_id = htons(tx->ip_id);
    ip->ip_frag_off = tx->df ? htons(IP_DONT_FRAGMENT) : 0;
    ip->ip_ttl = tx->ttl;
    ip->ip_proto = IPPROTO_UDP;
    put_16aligned_be32(&ip->ip_src, host->ip4);
    put_16aligned_be32(&ip->ip_dst, in6_addr_get_mapped_ipv4(&tx->dst));
    ip->ip_csum = 0;
    ip->ip_csum = csum(ip, IP_HEADER_LEN);
    return packet_csum_pseudoheader(ip);
}

/* Writes the fixed IPv6 header with traffic class 'tc', next header 'nxt',
 * hop limit 'hlim' and 'plen' bytes of payload. */
static void
put_ip6_hdr(uint8_t *p, uint8_t tc, uint8_t nxt, uint8_t hlim, size_t plen,
            const struct in6_addr *src, const struct in6_addr *dst)
{
    struct ovs_16aligned_ip6_hdr *ip6 = (void *) p;

    put_16aligned_be32(&ip6->ip6_flow, htonl((6u << 28) | (tc << 20)));
    ip6->ip6_plen = htons(plen);
    ip6->ip6_nxt = nxt;
    ip6->ip6_hlim = hlim;
    memcpy(&ip6->ip6_src, src, sizeof *src);
    memcpy(&ip6->ip6_dst, dst, sizeof *dst);
}

static uint32_t
put_ip6(uint8_t *p, const struct ul_frame_host *host,
        const struct ul_frame_tx *tx, size_t ip_len)
{
    put_ip6_hdr(p, tx->tos, IPPROTO_UDP, tx->ttl, ip_len - IPV6_HEADER_LEN,
                &host->ip6, &tx->dst);
    return packet_csum_pseudoheader6((const void *) p);
}

/* Writes the UDP header before 'payload_len' bytes with its checksum (or,
 * offloaded, the folded pseudo-header sum 'partial'). */
static void
put_udp(uint8_t *p, const struct ul_frame_host *host,
        const struct ul_frame_tx *tx, size_t payload_len, uint32_t partial)
{
    struct udp_header *udp = (struct udp_header *) p;
    size_t len = UDP_HEADER_LEN + payload_len;
    ovs_be16 sum;

    udp->udp_src = htons(host->port);
    udp->udp_dst = htons(tx->dst_port);
    udp->udp_len = htons(len);
    udp->udp_csum = 0;
    if (tx->csum_offload) {
        udp->udp_csum = pkt_csum_fold(partial);
        return;
    }
    sum = csum_finish(pkt_csum_partial(udp, len, partial));
    udp->udp_csum = sum ? sum : htons(0xffff);
}

size_t
ul_frame_encap(void *frame, size_t payload_len,
               const struct ul_frame_host *host, const struct ul_frame_tx *tx)
{
    bool ipv6 = !IN6_IS_ADDR_V4MAPPED(&tx->dst);
    size_t room = ul_frame_headroom(ipv6);
    size_t ip_len = room - ETH_HEADER_LEN + payload_len;
    uint8_t *p = frame;
    uint32_t partial;

    if (ip_len > host->mtu || ip_len > UINT16_MAX || !host_has(host, ipv6)) {
        return 0;
    }
    put_eth(p, tx->dst_mac, host->mac, ipv6 ? ETH_TYPE_IPV6 : ETH_TYPE_IP);
    partial = (ipv6 ? put_ip6 : put_ip4)(p + ETH_HEADER_LEN, host, tx,
                                          ip_len);
    put_udp(p + room - UDP_HEADER_LEN, host, tx, payload_len, partial);
    return ETH_HEADER_LEN + ip_len;
}

size_t
ul_frame_arp(void *out, const struct ul_frame_host *host, uint16_t op,
             struct eth_addr eth_dst, struct eth_addr tha, ovs_be32 tpa)
{
    struct arp_eth_header *arp = (void *) ((uint8_t *) out + ETH_HEADER_LEN);

    put_eth(out, eth_dst, host->mac, ETH_TYPE_ARP);
    arp->ar_hrd = htons(ARP_HRD_ETHERNET);
    arp->ar_pro = htons(ARP_PRO_IP);
    arp->ar_hln = ETH_ADDR_LEN;
    arp->ar_pln = sizeof(ovs_be32);
    arp->ar_op = htons(op);
    arp->ar_sha = host->mac;
    put_16aligned_be32(&arp->ar_spa, host->ip4);
    arp->ar_tha = tha;
    put_16aligned_be32(&arp->ar_tpa, tpa);
    return UL_FRAME_ARP_LEN;
}

/* Writes an NS or NA ('type') with 'rso' flags for 'target' to 'dst' at
 * 'eth_dst', with the host's MAC as link-layer option 'opt'. */
static size_t
put_nd(uint8_t *p, const struct ul_frame_host *host, struct eth_addr eth_dst,
       const struct in6_addr *dst, uint8_t type, uint32_t rso,
       const struct in6_addr *target, uint8_t opt)
{
    struct ovs_16aligned_ip6_hdr *ip6 = (void *) (p + ETH_HEADER_LEN);
    struct ovs_nd_msg *nd = (void *) (ip6 + 1);
    size_t len = ND_MSG_LEN + ND_LLA_OPT_LEN;

    put_eth(p, eth_dst, host->mac, ETH_TYPE_IPV6);
    put_ip6_hdr((uint8_t *) ip6, 0, IPPROTO_ICMPV6, 255, len, &host->ip6,
                dst);
    nd->icmph.icmp6_type = type;
    nd->icmph.icmp6_code = 0;
    nd->icmph.icmp6_cksum = 0;
    put_16aligned_be32(&nd->rso_flags, htonl(rso));
    memcpy(&nd->target, target, sizeof *target);
    nd->options[0].type = opt;
    nd->options[0].len = 1;
    nd->options[0].mac = host->mac;
    nd->icmph.icmp6_cksum = packet_csum_upperlayer6(ip6, nd, IPPROTO_ICMPV6,
                                                    len);
    return UL_FRAME_ND_LEN;
}

size_t
ul_frame_ns(void *out, const struct ul_frame_host *host,
            const struct in6_addr *target, const struct eth_addr *unicast)
{
    struct in6_addr dst = *target;
    struct eth_addr eth_dst;

    if (unicast) {
        eth_dst = *unicast;
    } else {
        in6_addr_solicited_node(&dst, target);
        ipv6_multicast_to_ethernet(&eth_dst, &dst);
    }
    return put_nd(out, host, eth_dst, &dst, ND_NEIGHBOR_SOLICIT, 0, target,
                  ND_OPT_SOURCE_LINKADDR);
}

size_t
ul_frame_na(void *out, const struct ul_frame_host *host,
            struct eth_addr eth_dst, const struct in6_addr *dst)
{
    return put_nd(out, host, eth_dst, dst, ND_NEIGHBOR_ADVERT,
                  ND_RSO_SOLICITED | ND_RSO_OVERRIDE, &host->ip6,
                  ND_OPT_TARGET_LINKADDR);
}

/* Ingress. */

struct rx_ctx {
    const struct ul_frame_host *host;
    const uint8_t *p;               /* The frame. */
    size_t len;
    bool l4_csum_good;
    struct ul_frame_rx *rx;
};

static enum ul_frame_kind
rx_drop(struct rx_ctx *c, enum ul_frame_reason reason)
{
    c->rx->reason = reason;
    return UL_FRAME_DROP;
}

/* The Ethernet addresses of a frame for us. */
static enum ul_frame_reason
rx_eth_judge(const struct ul_frame_host *host, const struct eth_header *eth)
{
    struct eth_addr dst = eth->eth_dst;

    if (eth_addr_is_multicast(eth->eth_src) || eth_addr_is_zero(eth->eth_src)
        || eth_addr_equals(eth->eth_src, host->mac)) {
        return UL_FRAME_R_SRC_MAC;
    } else if (eth_addr_equals(dst, host->mac) || eth_addr_is_broadcast(dst)
               || (dst.ea[0] == 0x33 && dst.ea[1] == 0x33)) {
        return UL_FRAME_R_OK;
    }
    return UL_FRAME_R_NOT_OUR_MAC;
}

static enum ul_frame_kind
rx_arp(struct rx_ctx *c)
{
    const struct arp_eth_header *arp = (const void *) (c->p + ETH_HEADER_LEN);

    if (c->len < UL_FRAME_ARP_LEN) {
        return rx_drop(c, UL_FRAME_R_TRUNCATED);
    } else if (arp->ar_hrd != htons(ARP_HRD_ETHERNET)
               || arp->ar_pro != htons(ARP_PRO_IP)
               || arp->ar_hln != ETH_ADDR_LEN || arp->ar_pln != 4
               || eth_addr_is_multicast(arp->ar_sha)
               || eth_addr_is_zero(arp->ar_sha)) {
        return rx_drop(c, UL_FRAME_R_ARP_BAD);
    } else if (arp->ar_op != htons(ARP_OP_REQUEST)
               && arp->ar_op != htons(ARP_OP_REPLY)) {
        return rx_drop(c, UL_FRAME_R_ARP_OP);
    } else if (!c->host->ip4
               || get_16aligned_be32(&arp->ar_tpa) != c->host->ip4) {
        return rx_drop(c, UL_FRAME_R_ARP_NOT_FOR_US);
    }
    c->rx->addr = in6_addr_mapped_ipv4(get_16aligned_be32(&arp->ar_spa));
    c->rx->mac = arp->ar_sha;
    return (arp->ar_op == htons(ARP_OP_REQUEST)
            ? UL_FRAME_ARP_REQUEST : UL_FRAME_ARP_REPLY);
}

/* True if the 'n' bytes at 'm' look like a WireGuard message: a known
 * type, zero reserved bytes and its type's length (data: at least a
 * keepalive's; the device checks the rest). */
static bool
is_wg_message(const uint8_t *m, size_t n)
{
    if (n < 4 || m[1] || m[2] || m[3]) {
        return false;
    }
    switch (m[0]) {
    case WG_MSG_INITIATION:
        return n == WG_MSG_INITIATION_LEN;
    case WG_MSG_RESPONSE:
        return n == WG_MSG_RESPONSE_LEN;
    case WG_MSG_COOKIE_REPLY:
        return n == WG_MSG_COOKIE_REPLY_LEN;
    case WG_MSG_DATA:
        return n >= WG_MSG_DATA_MIN_LEN;
    }
    return false;
}

/* True if the UDP checksum of the 'l4_len' bytes at 'udp' is wrong, given
 * the pseudo-header sum 'partial' (0 means "none" for IPv4 only). */
static bool
udp_csum_bad(const struct udp_header *udp, size_t l4_len, uint32_t partial,
             bool ipv6)
{
    if (!udp->udp_csum) {
        return ipv6;
    }
    return csum_finish(pkt_csum_partial(udp, l4_len, partial)) != 0;
}

/* The UDP datagram of 'l4_len' bytes at offset 'ofs' of the frame. */
static enum ul_frame_kind
rx_udp(struct rx_ctx *c, size_t ofs, size_t l4_len, uint32_t partial)
{
    const struct udp_header *udp = (const void *) (c->p + ofs);
    size_t msg_ofs = ofs + UDP_HEADER_LEN;

    if (l4_len < UDP_HEADER_LEN) {
        return rx_drop(c, UL_FRAME_R_TRUNCATED);
    } else if (ntohs(udp->udp_len) != l4_len) {
        return rx_drop(c, UL_FRAME_R_UDP_LEN);
    } else if (ntohs(udp->udp_dst) != c->host->port) {
        return rx_drop(c, UL_FRAME_R_NOT_OUR_PORT);
    } else if (!c->l4_csum_good
               && udp_csum_bad(udp, l4_len, partial, c->rx->ipv6)) {
        return rx_drop(c, UL_FRAME_R_UDP_CSUM);
    } else if (!is_wg_message(c->p + msg_ofs, l4_len - UDP_HEADER_LEN)) {
        return rx_drop(c, UL_FRAME_R_NOT_WG);
    }
    c->rx->src_port = ntohs(udp->udp_src);
    c->rx->payload_ofs = msg_ofs;
    c->rx->payload_len = l4_len - UDP_HEADER_LEN;
    return UL_FRAME_WG;
}

/* The checks of the IPv4 header 'ip' of a frame with 'l3' bytes after the
 * Ethernet header, up to its destination. */
static enum ul_frame_reason
ip4_judge(const struct ul_frame_host *host, const struct ip_header *ip,
          size_t l3)
{
    size_t ihl, tot;

    if (l3 < IP_HEADER_LEN) {
        return UL_FRAME_R_TRUNCATED;
    }
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    tot = ntohs(ip->ip_tot_len);
    if (IP_VER(ip->ip_ihl_ver) != 4 || ihl < IP_HEADER_LEN || tot < ihl) {
        return UL_FRAME_R_IP_HDR;
    } else if (tot > l3) {
        return UL_FRAME_R_TRUNCATED;
    } else if (csum(ip, ihl)) {
        return UL_FRAME_R_IP_CSUM;
    } else if (IP_IS_FRAGMENT(ip->ip_frag_off)) {
        return UL_FRAME_R_FRAGMENT;
    } else if (!host->ip4 || get_16aligned_be32(&ip->ip_dst) != host->ip4) {
        return UL_FRAME_R_NOT_OUR_IP;
    }
    return ip->ip_proto == IPPROTO_UDP ? UL_FRAME_R_OK : UL_FRAME_R_NOT_UDP;
}

static enum ul_frame_kind
rx_ip4(struct rx_ctx *c)
{
    const struct ip_header *ip = (const void *) (c->p + ETH_HEADER_LEN);
    enum ul_frame_reason r = ip4_judge(c->host, ip, c->len - ETH_HEADER_LEN);
    size_t ihl;

    if (r != UL_FRAME_R_OK) {
        return rx_drop(c, r);
    }
    ihl = IP_IHL(ip->ip_ihl_ver) * 4;
    c->rx->addr = in6_addr_mapped_ipv4(get_16aligned_be32(&ip->ip_src));
    c->rx->tos = ip->ip_tos;
    return rx_udp(c, ETH_HEADER_LEN + ihl, ntohs(ip->ip_tot_len) - ihl,
                  packet_csum_pseudoheader(ip));
}

/* An NS or NA ('type') of 'plen' bytes at 'nd' from 'src', checksum and
 * hop limit already checked. */
static enum ul_frame_kind
rx_nd(struct rx_ctx *c, const struct ovs_nd_msg *nd, size_t plen,
      const struct in6_addr *src)
{
    bool ns = nd->icmph.icmp6_type == ND_NEIGHBOR_SOLICIT;
    struct in6_addr target;
    bool has_lla;

    memcpy(&target, &nd->target, sizeof target);
    if (!pkt_ip_nd_find_lla((const uint8_t *) nd->options, plen - ND_MSG_LEN,
                            ns ? ND_OPT_SOURCE_LINKADDR
                               : ND_OPT_TARGET_LINKADDR,
                            &c->rx->mac, &has_lla)
        || ipv6_addr_is_multicast(&target)) {
        return rx_drop(c, UL_FRAME_R_ND_BAD);
    } else if (!ns) {
        c->rx->addr = target;
        return UL_FRAME_NA;
    } else if (!ipv6_addr_equals(&target, &c->host->ip6)) {
        return rx_drop(c, UL_FRAME_R_ND_NOT_FOR_US);
    } else if (!ipv6_addr_is_set(src)) {
        return rx_drop(c, UL_FRAME_R_ND_DAD);
    }
    c->rx->addr = *src;
    return UL_FRAME_NS;
}

/* ICMPv6 of 'plen' bytes after the IPv6 header 'ip6'. */
static enum ul_frame_kind
rx_icmp6(struct rx_ctx *c, const struct ovs_16aligned_ip6_hdr *ip6,
         size_t plen, const struct in6_addr *src)
{
    const struct ovs_nd_msg *nd = (const void *) (ip6 + 1);
    uint8_t type = plen >= ICMP6_HEADER_LEN ? nd->icmph.icmp6_type : 0;

    if (plen < ICMP6_HEADER_LEN) {
        return rx_drop(c, UL_FRAME_R_TRUNCATED);
    } else if (type != ND_NEIGHBOR_SOLICIT && type != ND_NEIGHBOR_ADVERT) {
        return rx_drop(c, UL_FRAME_R_ICMP6_OTHER);
    } else if (plen < ND_MSG_LEN) {
        return rx_drop(c, UL_FRAME_R_TRUNCATED);
    } else if (ip6->ip6_hlim != 255 || nd->icmph.icmp6_code
               || packet_csum_upperlayer6(ip6, nd, IPPROTO_ICMPV6, plen)) {
        return rx_drop(c, UL_FRAME_R_ND_BAD);
    }
    return rx_nd(c, nd, plen, src);
}

/* Is 'dst' ours: our address, or for ICMPv6 also its solicited-node group
 * or all-nodes. */
static bool
ip6_dst_ours(const struct in6_addr *own, const struct in6_addr *dst,
             bool icmp)
{
    struct in6_addr snm;

    if (!ipv6_addr_is_set(own)) {
        return false;
    }
    in6_addr_solicited_node(&snm, own);
    return (ipv6_addr_equals(dst, own)
            || (icmp && (ipv6_addr_equals(dst, &snm)
                         || ipv6_addr_equals(dst, &in6addr_all_hosts))));
}

/* The checks of the IPv6 header 'ip6' of a frame with 'l3' bytes after the
 * Ethernet header, up to its destination. */
static enum ul_frame_reason
ip6_judge(const struct ul_frame_host *host,
          const struct ovs_16aligned_ip6_hdr *ip6, size_t l3)
{
    struct in6_addr dst;

    if (l3 < IPV6_HEADER_LEN) {
        return UL_FRAME_R_TRUNCATED;
    } else if (ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 28 != 6) {
        return UL_FRAME_R_IP_HDR;
    } else if (ntohs(ip6->ip6_plen) > l3 - IPV6_HEADER_LEN) {
        return UL_FRAME_R_TRUNCATED;
    } else if (ip6->ip6_nxt == IPPROTO_FRAGMENT) {
        return UL_FRAME_R_FRAGMENT;
    }
    memcpy(&dst, &ip6->ip6_dst, sizeof dst);
    return (ip6_dst_ours(&host->ip6, &dst, ip6->ip6_nxt == IPPROTO_ICMPV6)
            ? UL_FRAME_R_OK : UL_FRAME_R_NOT_OUR_IP);
}

static enum ul_frame_kind
rx_ip6(struct rx_ctx *c)
{
    const uint8_t *l3 = c->p + ETH_HEADER_LEN;
    const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) l3;
    enum ul_frame_reason r = ip6_judge(c->host, ip6, c->len - ETH_HEADER_LEN);
    struct in6_addr src;

    c->rx->ipv6 = true;
    if (r != UL_FRAME_R_OK) {
        return rx_drop(c, r);
    }
    memcpy(&src, &ip6->ip6_src, sizeof src);
    if (ip6->ip6_nxt == IPPROTO_ICMPV6) {
        return rx_icmp6(c, ip6, ntohs(ip6->ip6_plen), &src);
    } else if (ip6->ip6_nxt != IPPROTO_UDP) {
        return rx_drop(c, UL_FRAME_R_NOT_UDP);
    }
    c->rx->addr = src;
    c->rx->tos = ntohl(get_16aligned_be32(&ip6->ip6_flow)) >> 20;
    return rx_udp(c, ETH_HEADER_LEN + IPV6_HEADER_LEN, ntohs(ip6->ip6_plen),
                  packet_csum_pseudoheader6(ip6));
}

/* A frame for us of Ethernet type 'type'. */
static enum ul_frame_kind
rx_l3(struct rx_ctx *c, uint16_t type)
{
    switch (type) {
    case ETH_TYPE_ARP:
        return rx_arp(c);
    case ETH_TYPE_IP:
        return rx_ip4(c);
    case ETH_TYPE_IPV6:
        return rx_ip6(c);
    case ETH_TYPE_VLAN_8021Q:
    case ETH_TYPE_VLAN_8021AD:
        return rx_drop(c, UL_FRAME_R_VLAN);
    }
    return rx_drop(c, UL_FRAME_R_ETHERTYPE);
}

enum ul_frame_kind
ul_frame_classify(const struct ul_frame_host *host, const void *frame,
                  size_t len, bool l4_csum_good, struct ul_frame_rx *rx)
{
    const struct eth_header *eth = frame;
    struct rx_ctx c = { host, frame, len, l4_csum_good, rx };
    enum ul_frame_reason r;

    memset(rx, 0, sizeof *rx);
    if (len < ETH_HEADER_LEN) {
        return rx_drop(&c, UL_FRAME_R_ETH_SHORT);
    } else if (len > ETH_HEADER_LEN + host->mtu) {
        return rx_drop(&c, UL_FRAME_R_OVERSIZED);
    }
    r = rx_eth_judge(host, eth);
    if (r != UL_FRAME_R_OK) {
        return rx_drop(&c, r);
    }
    rx->mac = eth->eth_src;
    return rx_l3(&c, ntohs(eth->eth_type));
}
