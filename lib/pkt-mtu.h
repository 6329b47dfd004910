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

#ifndef PKT_MTU_H
#define PKT_MTU_H 1

/* What to do with a bare IP packet longer than the path's MTU: the check,
 * the ICMP error telling its sender (ICMPv4 "fragmentation needed", ICMPv6
 * "packet too big"), and IPv4 fragmentation (RFC 791).
 *
 * Over plain buffers: an "IP packet" starts with its IPv4 or IPv6 header
 * (no Ethernet header), parsed by pkt-ip (see pkt-ip.h for what it
 * accepts).  Output buffers must be 16-bit aligned, as OVS's header structs
 * require.  Which address an ICMP error comes from is the caller's choice;
 * nothing here keeps state between calls except the fragmenter's
 * 'struct pkt_mtu_frag'. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

/* Largest IP packet pkt_mtu_icmp_too_big() writes (the IPv6 minimum MTU). */
#define PKT_MTU_ICMP_MAX 1280

enum pkt_mtu_action {
    PKT_MTU_FITS,               /* At most 'mtu' bytes: send as is. */
    PKT_MTU_FRAGMENT,           /* IPv4, DF clear: pkt_mtu_frag_*(). */
    PKT_MTU_TOO_BIG,            /* IPv4 DF set, or IPv6: drop it, and send
                                 * pkt_mtu_icmp_too_big() to its sender. */
};

/* Decides what to do with IP packet 'ip' ('len' bytes) for 'mtu'. */
enum pkt_mtu_action pkt_mtu_check(const void *ip, size_t len,
                                  unsigned int mtu);

/* Writes into 'out' the IP packet telling the sender of the oversized 'ip'
 * ('len' bytes) to use 'mtu': ICMPv4 type 3 code 4 with the next-hop MTU,
 * or ICMPv6 Packet Too Big, quoting as much of the packet as fits in 576
 * (IPv4) or 1280 (IPv6) bytes of IP and in 'out_size'.  The error comes
 * from 'from' (an address of the packet's family, IPv4 ones IPv4-mapped),
 * or if 'from' is NULL from the packet's destination address, which the
 * sender accepts just as well (it only matches the quoted packet).  Returns
 * the packet's length, or 0 when no error may be sent (source not unicast,
 * packet is an ICMP error or a non-first fragment, malformed, IPv6 with
 * IPv4-mapped addresses, or 'out_size' too small). */
size_t pkt_mtu_icmp_too_big(const void *ip, size_t len, unsigned int mtu,
                            const struct in6_addr *from, void *out,
                            size_t out_size);

/* IPv4 fragmentation of a DF-clear packet into fragments of at most 'mtu'
 * bytes, one per pkt_mtu_frag_next() call.  Options are copied to later
 * fragments only if their "copied" bit is set. */
struct pkt_mtu_frag {
    const uint8_t *ip;          /* The original packet. */
    size_t hlen;                /* Its header length. */
    size_t tot_len;             /* Its total length. */
    size_t pos;                 /* Next payload byte (from 'hlen'). */
    unsigned int mtu;
    uint16_t base_off;          /* Original fragment offset (8-byte units). */
    bool base_mf;               /* Original "more fragments" flag. */
    size_t opts_len;            /* Copied options for later fragments, */
    uint8_t opts[40];           /* padded to 4 bytes. */
};

/* Prepares to fragment 'ip' ('len' bytes).  Returns false if it is not a
 * well-formed IPv4 packet, has DF set, fits in 'mtu', or 'mtu' leaves no
 * room for 8 bytes of payload after the header. */
bool pkt_mtu_frag_start(struct pkt_mtu_frag *f, const void *ip, size_t len,
                        unsigned int mtu);

/* Writes the next fragment to 'out' and returns its length, or 0 when all
 * fragments were written.  A fragment takes at most MIN('mtu', 'out_size')
 * bytes, which must leave room for 8 bytes of payload after the header
 * (asserted); an 'out_size' of at least 'mtu' gives the fewest
 * fragments. */
size_t pkt_mtu_frag_next(struct pkt_mtu_frag *f, void *out, size_t out_size);

#endif /* pkt-mtu.h */
