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

#ifndef PKT_GSO_H
#define PKT_GSO_H 1

/* Software TCP segmentation over plain buffers.
 *
 * All packets here are bare IP packets (no Ethernet header), at any
 * alignment, that pkt_ip_parse() accepts (see pkt-ip.h: no fragments, no
 * IPv6 Routing header, the IP length field authoritative).  Checksum
 * completion of packets that only ask for it is pkt_csum_l4_fill() /
 * pkt_csum_l4_copy() in pkt-csum.h.
 *
 * pkt_gso_segment() cuts a TCP super-packet into segments written straight
 * into caller-provided slots, each segment placed 'headroom' bytes into its
 * slot (room for the WireGuard data header, so encryption can run in place)
 * and with 'tailroom' bytes left free after it (padding and tag).  Per
 * segment: the IP header (options included) is copied; IPv4 total length,
 * identification (the super-packet's, plus the segment index) and header
 * checksum, or IPv6 payload length, are set; the TCP sequence number
 * advances by the payload bytes before the segment; FIN and PSH stay only on
 * the last segment, CWR only on the first; with URG, URG and the urgent
 * pointer stay on the segments that start before the urgent point (pointer
 * rebased), the others get neither (without URG the urgent pointer field is
 * copied as is); the TCP checksum is computed from scratch (pseudo
 * header, header and payload, the payload summed while it is copied).
 *
 * Whatever the super-packet's checksum fields hold (OVS 3.1's TAP receive
 * leaves the guest's pseudo-header sum there; other sources may leave
 * garbage) is ignored: every checksum is computed from scratch. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pkt-ip.h"

/* Returns the number of segments pkt_gso_segment() produces for a TCP
 * packet described by 'info' (from pkt_ip_parse()) with the given 'mss'
 * (at least 1). */
size_t pkt_gso_n_segs(const struct pkt_ip_info *info, size_t mss);

/* Returns the bytes of segment 'i' (counted from 0, below
 * pkt_gso_n_segs()) that pkt_gso_segment() cuts with 'mss' from the TCP
 * packet described by 'info': the headers and its share of the payload.
 * So a caller may set up each segment's message before cutting. */
size_t pkt_gso_seg_len(const struct pkt_ip_info *info, size_t mss,
                       size_t i);

/* Returns the largest MSS that keeps every segment of the packet described
 * by 'info' within 'mtu' bytes (an IP packet size), or 0 if even the
 * headers do not fit. */
size_t pkt_gso_mss_for_mtu(const struct pkt_ip_info *info, size_t mtu);

/* One output slot for a segment. */
struct pkt_gso_slot {
    uint8_t *base;              /* In: start of the slot's memory. */
    size_t room;                /* In: bytes available at 'base'. */
    size_t len;                 /* Out: segment bytes, at base + headroom. */
};

/* Parameters of pkt_gso_segment(). */
struct pkt_gso_params {
    size_t mss;                 /* Maximum TCP payload bytes per segment. */
    size_t headroom;            /* Bytes left free before each segment. */
    size_t tailroom;            /* Bytes that must stay free after it. */
};

/* Segments the TCP packet of 'len' bytes at 'pkt' (typically up to 64 KB)
 * into the 'n_slots' slots at 'slots', as described at the top of this
 * file.  On success returns 0 and stores the number of segments written in
 * '*n_segs' (slots[i].len set for each).  Errors: EINVAL if the packet does
 * not parse or is not TCP, or 'mss' is 0; ENOSPC if there are too few slots
 * (see pkt_gso_n_segs()) or a slot is too small for headroom + segment +
 * tailroom.  Nothing useful is in the slots after an error.  'pkt' must not
 * overlap any slot. */
int pkt_gso_segment(const void *pkt, size_t len,
                    const struct pkt_gso_params *params,
                    struct pkt_gso_slot *slots, size_t n_slots,
                    size_t *n_segs);

/* The same for a packet already parsed: 'info' is what pkt_ip_parse() gave
 * for the packet at 'pkt' (see pkt_ip_frame_parse()), which this trusts and
 * does not check again. */
int pkt_gso_segment_parsed(const void *pkt, const struct pkt_ip_info *info,
                           const struct pkt_gso_params *params,
                           struct pkt_gso_slot *slots, size_t n_slots,
                           size_t *n_segs);

#endif /* pkt-gso.h */
