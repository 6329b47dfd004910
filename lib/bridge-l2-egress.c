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
#include "bridge-l2.h"

#include <string.h>

#include "bridge-l2-private.h"
#include "dp-packet.h"
#include "pkt-ip.h"
#include "pkt-mtu.h"
#include "util.h"

#define ETH_TYPE_LLDP 0x88cc

/* Bridge to peer: classification, neighbor learning, proxy ARP and ND.
 * and the ICMP "too big" frame back into the bridge.  Calls only into
 * bridge-l2.c (neighbor table, own addresses, frame builders), pkt-ip and
 * pkt-mtu, never the other way. */

/* Bridge to peer. */

struct eg_ctx {
    struct bridge_l2 *l2;
    size_t len;
    const struct eth_header *eth;
    long long int now;
    bridge_l2_routable_cb *routable;
    void *aux;
    struct bridge_l2_egress *out;
};

static enum bridge_l2_eg_action
eg_drop(struct eg_ctx *c, enum bridge_l2_reason reason)
{
    c->out->reason = reason;
    bridge_l2_count(c->l2, reason);
    return BRIDGE_L2_EG_DROP;
}

static enum bridge_l2_eg_action
eg_reply(struct eg_ctx *c, struct dp_packet *reply)
{
    c->out->reply = reply;
    c->out->reply_len = dp_packet_size(reply);
    return BRIDGE_L2_EG_REPLY;
}

static void
eg_learn(struct eg_ctx *c, const struct in6_addr *a, struct eth_addr mac)
{
    if (bridge_l2_neigh_learn(c->l2, a, mac, c->now)) {
        c->out->resolved = true;
    }
}

/* True if the frame's destination MAC is the port's or a group address. */
static bool
eg_dst_ok(const struct eg_ctx *c)
{
    return (eth_addr_is_multicast(c->eth->eth_dst)
            || eth_addr_equals(c->eth->eth_dst, c->l2->conf.mac));
}

/* Decides whether the port answers for 'target'.  Returns BRIDGE_L2_R_OK or
 * the reason not to ('local' / 'unroutable' given per protocol). */
static enum bridge_l2_reason
eg_answers_for(const struct eg_ctx *c, const struct in6_addr *target,
               enum bridge_l2_reason local, enum bridge_l2_reason unroutable)
{
    if (bridge_l2_is_own(c->l2, target)) {
        return BRIDGE_L2_R_OK;
    } else if (bridge_l2_is_local(c->l2, target, c->now)) {
        return local;
    } else if (!bridge_l2_is_unicast(target)
               || (!bridge_l2_is_v4(target) && bridge_l2_is_ll6(target))
               || !c->routable(c->aux, bridge_l2_af(target),
                               bridge_l2_bytes(target))) {
        return unroutable;
    }
    return BRIDGE_L2_R_OK;
}

static enum bridge_l2_eg_action
eg_arp(struct eg_ctx *c)
{
    const struct arp_eth_header *arp = (const void *) (c->eth + 1);
    struct in6_addr spa, tpa;
    enum bridge_l2_reason r;

    if (c->len < BRIDGE_L2_ARP_FRAME_LEN
        || arp->ar_hrd != htons(ARP_HRD_ETHERNET)
        || arp->ar_pro != htons(ARP_PRO_IP) || arp->ar_hln != ETH_ADDR_LEN
        || arp->ar_pln != 4 || eth_addr_is_multicast(arp->ar_sha)
        || eth_addr_is_zero(arp->ar_sha)) {
        return eg_drop(c, BRIDGE_L2_R_ARP_BAD);
    }
    if (arp->ar_op != htons(ARP_OP_REQUEST)
        && arp->ar_op != htons(ARP_OP_REPLY)) {
        return eg_drop(c, BRIDGE_L2_R_ARP_OP);
    }
    spa = in6_addr_mapped_ipv4(get_16aligned_be32(&arp->ar_spa));
    tpa = in6_addr_mapped_ipv4(get_16aligned_be32(&arp->ar_tpa));
    eg_learn(c, &spa, arp->ar_sha);

    if (arp->ar_op == htons(ARP_OP_REPLY)) {
        return eg_drop(c, BRIDGE_L2_R_ARP_REPLY);
    } else if (!get_16aligned_be32(&arp->ar_spa)) {
        return eg_drop(c, BRIDGE_L2_R_ARP_PROBE);
    } else if (ipv6_addr_equals(&spa, &tpa)) {
        return eg_drop(c, BRIDGE_L2_R_ARP_GRATUITOUS);
    } else if (!eth_addr_is_broadcast(c->eth->eth_dst)
               && !eth_addr_equals(c->eth->eth_dst, c->l2->conf.mac)) {
        return eg_drop(c, BRIDGE_L2_R_NOT_FOR_US);
    }
    r = eg_answers_for(c, &tpa, BRIDGE_L2_R_ARP_LOCAL,
                       BRIDGE_L2_R_ARP_UNROUTABLE);
    if (r != BRIDGE_L2_R_OK) {
        return eg_drop(c, r);
    }
    c->l2->stats.arp_replies++;
    return eg_reply(c, bridge_l2_compose_arp(
                        c->l2, ARP_OP_REPLY, get_16aligned_be32(&arp->ar_tpa),
                        arp->ar_sha, false, get_16aligned_be32(&arp->ar_spa)));
}

static enum bridge_l2_eg_action
eg_ns(struct eg_ctx *c, const struct ovs_16aligned_ip6_hdr *ip6,
      const struct in6_addr *src, const struct in6_addr *dst, size_t plen)
{
    const struct ovs_nd_msg *ns = (const void *) (ip6 + 1);
    struct in6_addr target, snm;
    struct eth_addr slla;
    enum bridge_l2_reason r;
    uint32_t flags;
    bool has_slla;

    memcpy(&target, &ns->target, sizeof target);
    in6_addr_solicited_node(&snm, &target);
    if (plen < ND_MSG_LEN || ipv6_addr_is_multicast(&target)
        || bridge_l2_is_v4(&target)
        || !pkt_ip_nd_find_lla((const uint8_t *) ns->options,
                               plen - ND_MSG_LEN, ND_OPT_SOURCE_LINKADDR,
                               &slla, &has_slla)
        || (ipv6_addr_is_multicast(dst) && !ipv6_addr_equals(dst, &snm))) {
        return eg_drop(c, BRIDGE_L2_R_ND_BAD);
    } else if (!ipv6_addr_is_set(src)) {
        return eg_drop(c, has_slla ? BRIDGE_L2_R_ND_BAD : BRIDGE_L2_R_ND_DAD);
    }
    eg_learn(c, src, has_slla ? slla : c->eth->eth_src);
    if (!eg_dst_ok(c)) {
        return eg_drop(c, BRIDGE_L2_R_NOT_FOR_US);
    }
    /* Own addresses (and the port's link-local one): the port is the
     * router that owns them (R, O).  Proxied ones: no Override, so that a
     * real owner's advertisement wins. */
    if (bridge_l2_is_own(c->l2, &target)
        || ipv6_addr_equals(&target, &c->l2->lla)) {
        flags = ND_RSO_ROUTER | ND_RSO_SOLICITED | ND_RSO_OVERRIDE;
    } else {
        r = eg_answers_for(c, &target, BRIDGE_L2_R_ND_LOCAL,
                           BRIDGE_L2_R_ND_UNROUTABLE);
        if (r != BRIDGE_L2_R_OK) {
            return eg_drop(c, r);
        }
        flags = ND_RSO_SOLICITED;
    }
    c->l2->stats.na_replies++;
    return eg_reply(c, bridge_l2_compose_na(c->l2,
                                            has_slla ? slla : c->eth->eth_src,
                                            &target, src, flags));
}

/* Neighbor Discovery: hop limit 255, code 0, checksum verified. */
static enum bridge_l2_eg_action
eg_nd(struct eg_ctx *c, const struct ovs_16aligned_ip6_hdr *ip6,
      const struct in6_addr *src, const struct in6_addr *dst, size_t plen)
{
    const struct icmp6_header *icmp = (const void *) (ip6 + 1);
    const struct ovs_nd_msg *nd = (const void *) icmp;
    struct in6_addr target;
    struct eth_addr lla;
    bool has_lla;

    if (ip6->ip6_hlim != 255 || icmp->icmp6_code
        || packet_csum_upperlayer6(ip6, icmp, IPPROTO_ICMPV6, plen)) {
        return eg_drop(c, BRIDGE_L2_R_ND_BAD);
    }
    switch (icmp->icmp6_type) {
    case ND_NEIGHBOR_SOLICIT:
        return eg_ns(c, ip6, src, dst, plen);
    case ND_NEIGHBOR_ADVERT:
        if (plen < ND_MSG_LEN
            || !pkt_ip_nd_find_lla((const uint8_t *) nd->options,
                                   plen - ND_MSG_LEN, ND_OPT_TARGET_LINKADDR,
                                   &lla, &has_lla)) {
            return eg_drop(c, BRIDGE_L2_R_ND_BAD);
        }
        memcpy(&target, &nd->target, sizeof target);
        if (!bridge_l2_is_v4(&target)) {
            eg_learn(c, &target, has_lla ? lla : c->eth->eth_src);
        }
        return eg_drop(c, BRIDGE_L2_R_ND_NA);
    case ND_ROUTER_SOLICIT:
        return eg_drop(c, BRIDGE_L2_R_ND_RS);
    default:
        return eg_drop(c, BRIDGE_L2_R_ND_OTHER);
    }
}

/* What an IP frame's headers and the configuration alone say about it:
 * the same for a caller holding its lock (eg_ip()) and for one without it
 * (bridge_l2_from_bridge_unlocked()). */
struct eg_ip {
    enum bridge_l2_reason reason;   /* BRIDGE_L2_R_OK: to a peer. */
    bool learn;                     /* 'src' is learned first. */
    const struct ovs_16aligned_ip6_hdr *nd;  /* Neighbor Discovery (for
                                             * eg_nd()), or NULL. */
    struct in6_addr src, dst;
    size_t l3_len;                  /* IP packet, Ethernet padding off. */
};

/* The checks every frame from the bridge passes first. */
static enum bridge_l2_reason
eg_eth_judge(const struct bridge_l2_conf *conf, const struct eth_header *eth,
             size_t len)
{
    if (len < ETH_HEADER_LEN) {
        return BRIDGE_L2_R_ETH_SHORT;
    } else if (eth_addr_is_multicast(eth->eth_src)
               || eth_addr_is_zero(eth->eth_src)
               || eth_addr_equals(eth->eth_src, conf->mac)) {
        return BRIDGE_L2_R_SRC_MAC;
    }
    return BRIDGE_L2_R_OK;
}

/* Judges the learned destination last: an own address is not a peer's. */
static void
eg_to_peer_judge(const struct bridge_l2_conf *conf, struct eg_ip *v)
{
    if (v->reason == BRIDGE_L2_R_OK
        && bridge_l2_conf_is_own(conf, &v->dst)) {
        v->reason = BRIDGE_L2_R_IP_TO_SELF;
    }
}

/* Returns the layer-3 parse of the IP packet right after the Ethernet
 * header of the frame parsed into 'ip', or NULL if there is none. */
static const struct pkt_ip_info *
eg_l3(const struct pkt_ip_frame *ip)
{
    return ip->l3_ok && ip->l3_ofs == ETH_HEADER_LEN ? &ip->l3 : NULL;
}

static void
eg_ipv6_judge(const struct bridge_l2_conf *conf, const struct eth_header *eth,
              const struct pkt_ip_frame *ip, struct eg_ip *v)
{
    const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) (eth + 1);
    const struct pkt_ip_info *info = eg_l3(ip);
    size_t plen;

    memset(v, 0, sizeof *v);
    if (!info || !info->ipv6) {
        v->reason = BRIDGE_L2_R_IP6_BAD;
        return;
    }
    plen = info->pkt_len - IPV6_HEADER_LEN;
    pkt_ip_get_addrs(ip6, true, &v->src, &v->dst);
    v->l3_len = info->pkt_len;
    if (ipv6_addr_is_multicast(&v->src) || bridge_l2_is_v4(&v->src)
        || bridge_l2_is_v4(&v->dst)) {
        v->reason = BRIDGE_L2_R_IP6_BAD;
        return;
    }
    if (info->l4_proto == IPPROTO_ICMPV6 && plen >= ICMP6_HEADER_LEN) {
        uint8_t type = ((const struct icmp6_header *) (ip6 + 1))->icmp6_type;

        if (type >= ND_ROUTER_SOLICIT && type <= ND_REDIRECT) {
            v->nd = ip6;
            return;
        }
    }
    v->learn = true;
    if (eth_addr_is_multicast(eth->eth_dst)
        || ipv6_addr_is_multicast(&v->dst)) {
        v->reason = BRIDGE_L2_R_IP6_MULTICAST;
    } else if (!eth_addr_equals(eth->eth_dst, conf->mac)) {
        v->reason = BRIDGE_L2_R_NOT_FOR_US;
    } else if (!ipv6_addr_is_set(&v->src) || !ipv6_addr_is_set(&v->dst)) {
        v->reason = BRIDGE_L2_R_IP6_BAD;
    } else if (bridge_l2_is_ll6(&v->src) || bridge_l2_is_ll6(&v->dst)) {
        v->reason = BRIDGE_L2_R_IP6_LINK_LOCAL;
    }
    eg_to_peer_judge(conf, v);
}

static void
eg_ipv4_judge(const struct bridge_l2_conf *conf, const struct eth_header *eth,
              const struct pkt_ip_frame *ip, struct eg_ip *v)
{
    const struct pkt_ip_info *info = eg_l3(ip);

    memset(v, 0, sizeof *v);
    if (!info || info->ipv6) {
        v->reason = BRIDGE_L2_R_IP_BAD;
        return;
    }
    pkt_ip_get_addrs(eth + 1, false, &v->src, &v->dst);
    v->l3_len = info->pkt_len;
    v->learn = true;
    if (eth_addr_is_multicast(eth->eth_dst)) {
        v->reason = BRIDGE_L2_R_IP_MULTICAST;
    } else if (!eth_addr_equals(eth->eth_dst, conf->mac)) {
        v->reason = BRIDGE_L2_R_NOT_FOR_US;
    } else if (!bridge_l2_is_unicast(&v->dst)
               || bridge_l2_conf_is_bcast(conf, &v->dst)) {
        v->reason = BRIDGE_L2_R_IP_MULTICAST;
    }
    eg_to_peer_judge(conf, v);
}

/* Fills 'out' for an IP frame that goes to a peer. */
static void
eg_fill_to_peer(const struct eg_ip *v, struct bridge_l2_egress *out)
{
    out->l3_ofs = ETH_HEADER_LEN;
    out->l3_len = v->l3_len;
    out->src = v->src;
    out->family = bridge_l2_af(&v->dst);
    memcpy(out->dst, bridge_l2_bytes(&v->dst),
           out->family == AF_INET ? 4 : 16);
}

/* An IP frame, judged: Neighbor Discovery, or learning, then the verdict. */
static enum bridge_l2_eg_action
eg_ip(struct eg_ctx *c, const struct eg_ip *v)
{
    if (v->nd) {
        return eg_nd(c, v->nd, &v->src, &v->dst,
                     v->l3_len - IPV6_HEADER_LEN);
    }
    if (v->learn) {
        eg_learn(c, &v->src, c->eth->eth_src);
    }
    if (v->reason != BRIDGE_L2_R_OK) {
        return eg_drop(c, v->reason);
    }
    eg_fill_to_peer(v, c->out);
    return BRIDGE_L2_EG_TO_PEER;
}

/* Returns 'ip', or the parse of 'frame' ('len' bytes) into '*own' if
 * 'ip' is NULL. */
static const struct pkt_ip_frame *
eg_parse(const struct pkt_ip_frame *ip, const void *frame, size_t len,
         struct pkt_ip_frame *own)
{
    if (!ip) {
        pkt_ip_frame_parse(own, frame, len, ETH_HEADER_LEN);
    }
    return ip ? ip : own;
}

enum bridge_l2_eg_action
bridge_l2_from_bridge(struct bridge_l2 *l2, const void *frame, size_t len,
                      const struct pkt_ip_frame *ip, long long int now,
                      bridge_l2_routable_cb *routable, void *aux,
                      struct bridge_l2_egress *out)
{
    struct eg_ctx c = {
        .l2 = l2, .len = len, .eth = frame, .now = now,
        .routable = routable, .aux = aux, .out = out,
    };
    struct pkt_ip_frame own;
    uint16_t type;
    struct eg_ip v;

    memset(out, 0, sizeof *out);
    bridge_l2_neigh_expire(l2, now);
    c.out->reason = eg_eth_judge(&l2->conf, c.eth, len);
    if (c.out->reason != BRIDGE_L2_R_OK) {
        return eg_drop(&c, c.out->reason);
    }
    type = ntohs(c.eth->eth_type);
    switch (type) {
    case ETH_TYPE_IP:
        eg_ipv4_judge(&l2->conf, c.eth, eg_parse(ip, frame, len, &own), &v);
        return eg_ip(&c, &v);
    case ETH_TYPE_IPV6:
        eg_ipv6_judge(&l2->conf, c.eth, eg_parse(ip, frame, len, &own), &v);
        return eg_ip(&c, &v);
    case ETH_TYPE_ARP:
        return eg_arp(&c);
    case ETH_TYPE_VLAN_8021Q:
    case ETH_TYPE_VLAN_8021AD:
        return eg_drop(&c, BRIDGE_L2_R_VLAN);
    case ETH_TYPE_LLDP:
        return eg_drop(&c, BRIDGE_L2_R_LLDP);
    default:
        return eg_drop(&c, (type < ETH_TYPE_MIN ? BRIDGE_L2_R_LLC
                            : BRIDGE_L2_R_ETHERTYPE));
    }
}

/* Oversized IP frames: the ICMP error back into the bridge. */

size_t
bridge_l2_icmp_too_big(const struct bridge_l2 *l2, const void *frame,
                       size_t len, unsigned int mtu, void *out_,
                       size_t out_size)
{
    const struct eth_header *eth = frame;
    const uint8_t *ip = (const uint8_t *) (eth + 1);
    uint8_t *out = out_;
    int family = AF_UNSPEC;
    struct in6_addr src, dst;
    size_t n;

    if (len >= ETH_HEADER_LEN && out_size >= ETH_HEADER_LEN) {
        family = (eth->eth_type == htons(ETH_TYPE_IP) ? AF_INET
                  : eth->eth_type == htons(ETH_TYPE_IPV6) ? AF_INET6
                  : AF_UNSPEC);
    }
    if (family == AF_UNSPEC
        || pkt_ip_family(ip, len - ETH_HEADER_LEN) != family) {
        return 0;
    }
    pkt_ip_get_addrs(ip, family == AF_INET6, &src, &dst);
    if (family == AF_INET && bridge_l2_is_bcast(l2, &src)) {
        return 0;
    }
    n = pkt_mtu_icmp_too_big(ip, len - ETH_HEADER_LEN, mtu,
                             bridge_l2_own_for(l2, &src), out + ETH_HEADER_LEN,
                             out_size - ETH_HEADER_LEN);
    if (n) {
        bridge_l2_put_eth(out, eth->eth_src, l2->conf.mac,
                          ntohs(eth->eth_type));
    }
    return n ? ETH_HEADER_LEN + n : 0;
}

bool
bridge_l2_from_bridge_unlocked(const struct bridge_l2 *l2, const void *frame,
                               size_t len, const struct pkt_ip_frame *ip,
                               struct bridge_l2_egress *out,
                               struct in6_addr *src)
{
    const struct bridge_l2_conf *conf
        = ovsrcu_get(struct bridge_l2_conf *, &l2->published);
    const struct eth_header *eth = frame;
    struct pkt_ip_frame own;
    struct eg_ip v;

    memset(out, 0, sizeof *out);
    if (eg_eth_judge(conf, eth, len) != BRIDGE_L2_R_OK) {
        return false;
    } else if (eth->eth_type == htons(ETH_TYPE_IP)) {
        eg_ipv4_judge(conf, eth, eg_parse(ip, frame, len, &own), &v);
    } else if (eth->eth_type == htons(ETH_TYPE_IPV6)) {
        eg_ipv6_judge(conf, eth, eg_parse(ip, frame, len, &own), &v);
    } else {
        return false;
    }
    if (v.nd || v.reason != BRIDGE_L2_R_OK) {
        return false;
    }
    eg_fill_to_peer(&v, out);
    *src = v.src;
    return true;
}
