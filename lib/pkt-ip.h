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

#ifndef PKT_IP_H
#define PKT_IP_H 1

/* The one parser of IPv4, IPv6 and TCP/UDP/SCTP headers, over plain
 * buffers.
 *
 * A packet here is a bare IP packet (no Ethernet header) that may start at
 * any alignment; every field is read through the unaligned accessors at the
 * offsets below, taken from OVS's header structs.  The IP header's length
 * field is authoritative: bytes past it (e.g. Ethernet or WireGuard padding)
 * are ignored; a length field larger than the buffer is an error.
 *
 * Three depths of checking, each including the one before:
 *   - pkt_ip_family(): the version nibble, and the buffer holds the fixed
 *     header (20 bytes for IPv4, 40 for IPv6).
 *   - pkt_ip_parse_l3(): IPv4 header length of at least 20 bytes, total
 *     length from the header length to the buffer's; IPv6 payload length
 *     within the buffer.  Nothing is asked of what follows the IP header.
 *   - pkt_ip_parse(): also refuses IPv4 fragments (first ones included),
 *     steps over IPv6 Hop-by-Hop and Destination Options headers, refuses
 *     IPv6 Routing and Fragment headers, and requires a complete TCP (data
 *     offset included), UDP or SCTP header; other protocols have none.
 *
 * Also here: the source and destination addresses, the TCP flags and the
 * partial sum of the TCP/UDP pseudo header (RFC 793, RFC 8200 8.1), in the
 * partial-sum form of OVS's lib/csum.h.
 *
 * A frame on its way out is parsed once: pkt_ip_frame_parse() makes both
 * depths' results in one pass (struct pkt_ip_frame), and every step after
 * it (the layer-2 judge, checksum completion, segmentation, the address
 * read) takes that result instead of parsing again.
 *
 * Why not OVS's own parsing: flow extraction (miniflow_extract(), or
 * parse_tcp_flags()) fills a flow key and the packet's l3_ofs/l4_ofs, but
 * not what the steps here need and must not trust blindly: the IP length
 * field against the bytes the buffer really has (a truncating action, or a
 * frame changed after extraction, makes them differ), the TCP header's
 * length, whether an IPv4 packet is a fragment and which protocol follows
 * the IPv6 extension headers.  The offsets are there only where the
 * datapath parsed the packet at its input (a packet the port queued
 * itself has none), actions may have changed the packet since, and the
 * receive side works on bare decrypted packets that no flow extraction has
 * seen.  So the port parses with this module, once, and takes OVS's
 * offsets, where the datapath set them, only as a check of that parse
 * (pkt_ip_frame_ovs_agrees()): both give the same header starts, or the
 * port's parse, which checked every length against the buffer, wins.
 *
 * Only OVS's packets.h, csum.h and unaligned.h are used: the protocol
 * files (wg-*) may include this header. */

#include <netinet/in.h>
#include <netinet/ip6.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "csum.h"
#include "packets.h"

/* Byte offsets of header fields, for access at any alignment. */
#define PKT_IP4_OFS(FIELD) offsetof(struct ip_header, FIELD)
#define PKT_IP6_OFS(FIELD) offsetof(struct ovs_16aligned_ip6_hdr, FIELD)
#define PKT_TCP_OFS(FIELD) offsetof(struct tcp_header, FIELD)

/* Layout of a parsed packet. */
struct pkt_ip_info {
    bool ipv6;                  /* IPv6 (else IPv4). */
    uint8_t l4_proto;           /* IPv4 protocol, or the IPv6 next header
                                 * after the headers in 'l3_len'. */
    uint32_t l3_len;            /* IP header bytes, options included;
                                 * pkt_ip_parse(): IPv6 extension headers
                                 * included. */
    uint16_t l4_len;            /* pkt_ip_parse(): L4 header bytes (TCP:
                                 * data offset * 4, UDP: 8, SCTP: 12, others:
                                 * 0); pkt_ip_parse_l3(): 0. */
    uint32_t pkt_len;           /* Packet bytes per its IP length field. */
    uint32_t payload_len;       /* pkt_len - l3_len - l4_len. */
};

/* One parse of the IP packet in a frame, made once on the way out and
 * handed to every step after it. */
struct pkt_ip_frame {
    size_t l3_ofs;              /* Offset of the IP header in the frame. */
    bool l3_ok;                 /* pkt_ip_parse_l3() accepts the packet: its
                                 * result is 'l3'. */
    bool l4_ok;                 /* pkt_ip_parse() accepts it too: its result
                                 * is 'l4'. */
    struct pkt_ip_info l3;      /* What pkt_ip_parse_l3() gives. */
    struct pkt_ip_info l4;      /* What pkt_ip_parse() gives. */
};

/* Returns AF_INET or AF_INET6 if the 'len' bytes at 'pkt' hold the fixed
 * header of that IP version, otherwise AF_UNSPEC. */
int pkt_ip_family(const void *pkt, size_t len);

/* Parse the packet of 'len' bytes at 'pkt' into 'info' to the depth told at
 * the top of this file.  Return 0 on success, otherwise EINVAL ('info' then
 * holds nothing useful). */
int pkt_ip_parse_l3(const void *pkt, size_t len, struct pkt_ip_info *info);
int pkt_ip_parse(const void *pkt, size_t len, struct pkt_ip_info *info);

/* Parses the IP packet that starts 'l3_ofs' bytes into the 'len'-byte
 * 'frame' into 'f', both depths in one pass: 'f->l3' and 'f->l4' then hold
 * exactly what pkt_ip_parse_l3() and pkt_ip_parse() give for the bytes
 * from 'l3_ofs' on, where 'l3_ok' and 'l4_ok' say they succeed.  Reads
 * nothing outside the frame, whatever 'l3_ofs' is. */
void pkt_ip_frame_parse(struct pkt_ip_frame *f, const void *frame,
                        size_t len, size_t l3_ofs);

/* Returns true if the network and transport header offsets that OVS's
 * flow extraction stored with a packet ('ovs_l3_ofs', 'ovs_l4_ofs', each
 * UINT16_MAX if unset) agree with the parse 'f' of its frame: each one set
 * is where 'f' found that header. */
bool pkt_ip_frame_ovs_agrees(const struct pkt_ip_frame *f,
                             uint16_t ovs_l3_ofs, uint16_t ovs_l4_ofs);

/* Offset of the source address in an IPv6 or IPv4 header; the destination
 * address follows it. */
static inline size_t
pkt_ip_addrs_ofs(bool ipv6)
{
    return ipv6 ? PKT_IP6_OFS(ip6_src) : PKT_IP4_OFS(ip_src);
}

/* Bytes of one IPv6 or IPv4 address. */
static inline size_t
pkt_ip_addr_len(bool ipv6)
{
    return ipv6 ? sizeof(struct in6_addr) : sizeof(ovs_be32);
}

/* Stores the source and destination addresses of the IPv6 (or IPv4) packet
 * at 'pkt', whose fixed header is there, into 'src' and 'dst'; IPv4 ones
 * IPv4-mapped (::ffff:a.b.c.d). */
void pkt_ip_get_addrs(const void *pkt, bool ipv6, struct in6_addr *src,
                      struct in6_addr *dst);

/* Returns the flags (the low 12 bits of the control word) of the TCP
 * header at 'tcp'. */
uint16_t pkt_ip_tcp_flags(const void *tcp);

/* Finds the link-layer address option 'type' (ND_OPT_SOURCE_LINKADDR or
 * ND_OPT_TARGET_LINKADDR) among the 'n' bytes of neighbor discovery
 * options at 'opt': stores its address in '*mac' and sets '*found' when
 * it is there.  Returns false if the options are malformed (an option of
 * length zero or past the end). */
bool pkt_ip_nd_find_lla(const uint8_t *opt, size_t n, uint8_t type,
                        struct eth_addr *mac, bool *found);

/* Returns the partial sum of the pseudo header of the IPv6 (or IPv4) packet
 * at 'pkt' for upper-layer protocol 'l4_proto', without the upper-layer
 * length. */
uint32_t pkt_ip_pseudo_base(const void *pkt, bool ipv6, uint8_t l4_proto);

/* Adds the upper-layer length 'l4_total' (L4 header and payload bytes) to
 * pseudo-header sum 'base'. */
static inline uint32_t
pkt_ip_pseudo_add_len(uint32_t base, size_t l4_total)
{
    return csum_add32(base, htonl(l4_total));
}

#ifdef WG_TEST_HOOKS
/* Parses made so far, of either depth, by any thread (test builds). */
unsigned long long int pkt_ip_parses_for_test(void);
#endif

#endif /* pkt-ip.h */
