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

#ifndef UL_FRAME_H
#define UL_FRAME_H 1

/* The datapath underlay's frames (issue 39, design.rst "The datapath
 * underlay (planned)"): the Ethernet frames a WireGuard port sends and
 * receives as a host on the underlay wire, over plain buffers.  Pure: no
 * state, no allocation, no clock; the caller counts verdicts
 * (ul_frame_count()).
 *
 * A frame is an untagged Ethernet frame starting at offset 0 of a buffer
 * that is at least 16-bit aligned (as a dp_packet's data is), so that
 * OVS's header structs (ovs_16aligned types) apply.
 *
 * The host: ul_frame_host holds the underlay MAC, an IPv4 address and an
 * IPv6 address (either may be unset), the UDP port and the MTU (the
 * largest IP packet sent or accepted; jumbo MTUs up to 65535 work).
 *
 * Egress: ul_frame_encap() writes the Ethernet, IPv4 or IPv6 and UDP
 * headers in front of one WireGuard message that the caller already put at
 * offset ul_frame_headroom() of the frame buffer (one message per frame):
 * TOS/traffic class (DSCP and ECN, pkt-ecn.h gives the ECN part), IPv4 ID
 * and DF, TTL/hop limit, IPv4 header checksum and the UDP checksum in
 * software (pkt_csum_partial() over the message), or, for a NIC's
 * checksum offload, only the folded pseudo-header sum in the UDP checksum
 * field.  ul_frame_arp(), ul_frame_ns() and ul_frame_na() build ARP
 * requests/replies and Neighbor Solicitations/Advertisements (with their
 * link-layer address option and ICMPv6 checksum) from the host.
 *
 * Ingress: ul_frame_classify() says what a frame from the underlay bridge
 * is: a WireGuard datagram for us (UL_FRAME_WG: where its payload is,
 * its source address and port, for roaming, and its outer TOS, for ECN),
 * an ARP request or reply or an NS or NA addressed to us (the caller
 * answers and learns, ul-neigh.h), or a drop with its reason.  Every
 * header field the verdict relies on is checked against the frame's
 * length first: no verdict reads past 'len', and a WG verdict's payload
 * lies within the frame.  The IP length field is authoritative (Ethernet
 * padding after it is ignored).  Not handled (dropped with a reason):
 * VLAN tags, IPv4 fragments, IPv6 extension headers, IPv6 DAD
 * solicitations for our address (no defence yet). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "packets.h"

/* Bytes in front of the message: Ethernet + IP + UDP headers. */
#define UL_FRAME_HEADROOM4 (ETH_HEADER_LEN + IP_HEADER_LEN + UDP_HEADER_LEN)
#define UL_FRAME_HEADROOM6 (ETH_HEADER_LEN + IPV6_HEADER_LEN + UDP_HEADER_LEN)

/* Length of an ARP frame, and room for any ARP or ND frame built here. */
#define UL_FRAME_ARP_LEN (ETH_HEADER_LEN + ARP_ETH_HEADER_LEN)
#define UL_FRAME_ND_LEN (ETH_HEADER_LEN + IPV6_HEADER_LEN + ND_MSG_LEN \
                         + ND_LLA_OPT_LEN)
#define UL_FRAME_CTRL_MAX UL_FRAME_ND_LEN

/* The host on the underlay wire. */
struct ul_frame_host {
    struct eth_addr mac;
    ovs_be32 ip4;               /* 0: no IPv4. */
    struct in6_addr ip6;        /* All zeros: no IPv6. */
    uint16_t port;              /* UDP port, host byte order. */
    unsigned int mtu;           /* Largest IP packet, 68..65535. */
};

/* One message's outer headers. */
struct ul_frame_tx {
    struct eth_addr dst_mac;    /* The next hop's (ul-neigh.h). */
    struct in6_addr dst;        /* Endpoint; IPv4-mapped for IPv4. */
    uint16_t dst_port;          /* Host byte order. */
    uint8_t tos;                /* DSCP << 2 | ECN. */
    uint8_t ttl;                /* TTL or hop limit. */
    uint16_t ip_id;             /* IPv4 identification. */
    bool df;                    /* IPv4 Don't Fragment. */
    bool csum_offload;          /* Leave the UDP checksum to the NIC. */
};

/* Drop reasons (and UL_FRAME_R_OK).  UL_FRAME_REASON(ENUM, name) gives
 * UL_FRAME_R_<ENUM> and the counter name "ul_<name>". */
#define UL_FRAME_REASONS                                                    \
    UL_FRAME_REASON(OK, ok)                     /* Not a drop. */           \
    UL_FRAME_REASON(ETH_SHORT, eth_short)       /* < 14 bytes. */           \
    UL_FRAME_REASON(OVERSIZED, oversized)       /* > 14 + MTU bytes. */     \
    UL_FRAME_REASON(SRC_MAC, bad_src_mac)       /* Multicast, 0, ours. */   \
    UL_FRAME_REASON(NOT_OUR_MAC, not_our_mac)   /* Unicast to another. */   \
    UL_FRAME_REASON(VLAN, vlan)                 /* 802.1Q/ad tagged. */     \
    UL_FRAME_REASON(ETHERTYPE, ethertype)       /* Not IPv4/IPv6/ARP. */    \
    UL_FRAME_REASON(TRUNCATED, truncated)       /* Headers cut short. */    \
    UL_FRAME_REASON(IP_HDR, ip_header)          /* Version, IHL, length. */ \
    UL_FRAME_REASON(IP_CSUM, ip_csum)           /* IPv4 header checksum. */ \
    UL_FRAME_REASON(FRAGMENT, fragment)                                     \
    UL_FRAME_REASON(NOT_OUR_IP, not_our_ip)     /* Other destination. */    \
    UL_FRAME_REASON(NOT_UDP, not_udp)           /* Other protocol. */       \
    UL_FRAME_REASON(NOT_OUR_PORT, not_our_port) /* UDP, not WireGuard. */   \
    UL_FRAME_REASON(UDP_LEN, udp_len)           /* Length mismatch. */      \
    UL_FRAME_REASON(UDP_CSUM, udp_csum)                                     \
    UL_FRAME_REASON(NOT_WG, not_wireguard)      /* Not a WG message. */     \
    UL_FRAME_REASON(ARP_BAD, arp_malformed)                                 \
    UL_FRAME_REASON(ARP_OP, arp_op)             /* Not request/reply. */    \
    UL_FRAME_REASON(ARP_NOT_FOR_US, arp_not_for_us) /* Floods. */           \
    UL_FRAME_REASON(ND_BAD, nd_malformed)       /* Hop limit, checksum. */  \
    UL_FRAME_REASON(ND_NOT_FOR_US, nd_not_for_us)                           \
    UL_FRAME_REASON(ND_DAD, nd_dad)             /* NS from ::. */           \
    UL_FRAME_REASON(ICMP6_OTHER, icmp6_other)   /* RA, echo, ... */

enum ul_frame_reason {
#define UL_FRAME_REASON(ENUM, NAME) UL_FRAME_R_##ENUM,
    UL_FRAME_REASONS
#undef UL_FRAME_REASON
    UL_FRAME_N_REASONS
};

/* What a received frame is. */
enum ul_frame_kind {
    UL_FRAME_WG,                /* A WireGuard datagram for us. */
    UL_FRAME_ARP_REQUEST,       /* For our IPv4 address: answer it. */
    UL_FRAME_ARP_REPLY,         /* To our IPv4 address: confirm. */
    UL_FRAME_NS,                /* For our IPv6 address: answer it. */
    UL_FRAME_NA,                /* Confirm. */
    UL_FRAME_DROP,              /* See 'reason'. */
};

struct ul_frame_rx {
    enum ul_frame_reason reason; /* UL_FRAME_R_OK unless dropped. */
    bool ipv6;
    struct in6_addr addr;       /* WG, NS: IP source; ARP: sender IP;
                                 * NA: target (IPv4-mapped for IPv4). */
    struct eth_addr mac;        /* Link-layer address of 'addr': ARP
                                 * sender's, ND option's, else the
                                 * Ethernet source. */
    uint16_t src_port;          /* WG: UDP source port, host order. */
    uint8_t tos;                /* WG: outer TOS / traffic class. */
    size_t payload_ofs;         /* WG: the message in the frame. */
    size_t payload_len;
};

/* Drops and verdicts counted by the caller. */
struct ul_frame_counts {
    uint64_t reasons[UL_FRAME_N_REASONS];
};

static inline void
ul_frame_count(struct ul_frame_counts *c, enum ul_frame_reason r)
{
    c->reasons[r < UL_FRAME_N_REASONS ? r : UL_FRAME_R_OK]++;
}

/* Returns "ul_<name>" for 'reason'. */
const char *ul_frame_reason_name(enum ul_frame_reason reason);

/* Bytes of headers before the message for the endpoint family. */
static inline size_t
ul_frame_headroom(bool ipv6)
{
    return ipv6 ? UL_FRAME_HEADROOM6 : UL_FRAME_HEADROOM4;
}

/* Writes the headers for the 'payload_len' bytes of message at
 * 'frame + ul_frame_headroom()' from 'host' per 'tx'.  Returns the frame's
 * length, or 0 (nothing written) if the IP packet would exceed the MTU or
 * the host has no address of the endpoint's family. */
size_t ul_frame_encap(void *frame, size_t payload_len,
                      const struct ul_frame_host *host,
                      const struct ul_frame_tx *tx);

/* Write an ARP, NS or NA frame into 'out' (UL_FRAME_CTRL_MAX bytes) and
 * return its length:
 *   - ul_frame_arp(): ARP 'op' (ARP_OP_REQUEST or ARP_OP_REPLY) from the
 *     host's MAC and IPv4 address to 'tha'/'tpa', in a frame to
 *     'eth_dst' (broadcast for a request, the known MAC for a probe).
 *   - ul_frame_ns(): NS for 'target' from the host's IPv6 address, to its
 *     solicited-node group, or to 'unicast' (a probe) if nonnull.
 *   - ul_frame_na(): NA for the host's IPv6 address to 'dst' at
 *     'eth_dst', Solicited and Override set. */
size_t ul_frame_arp(void *out, const struct ul_frame_host *host,
                    uint16_t op, struct eth_addr eth_dst,
                    struct eth_addr tha, ovs_be32 tpa);
size_t ul_frame_ns(void *out, const struct ul_frame_host *host,
                   const struct in6_addr *target,
                   const struct eth_addr *unicast);
size_t ul_frame_na(void *out, const struct ul_frame_host *host,
                   struct eth_addr eth_dst, const struct in6_addr *dst);

/* Classifies the 'len' bytes of 'frame' for 'host' into 'rx'.
 * 'l4_csum_good': the NIC verified the UDP checksum (not checked again). */
enum ul_frame_kind ul_frame_classify(const struct ul_frame_host *host,
                                     const void *frame, size_t len,
                                     bool l4_csum_good,
                                     struct ul_frame_rx *rx);

#endif /* ul-frame.h */
