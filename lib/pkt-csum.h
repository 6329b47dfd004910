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

#ifndef PKT_CSUM_H
#define PKT_CSUM_H 1

/* Fast Internet checksum (RFC 1071 ones'-complement sum) for payloads.
 *
 * Short headers use OVS's csum() and csum_continue(), which add one 16-bit
 * word per iteration.  Payloads (every segment the port cuts, completes or
 * coalesces) use this module instead: it is 7 times faster from 1500 bytes
 * on ("wgtest pkt-csum-bench" measures both) and sums while it copies.  It
 * adds 8 bytes at a time into a 64-bit ones'-complement accumulator
 * (carries folded back in), 64 bytes per unrolled loop iteration, with
 * unaligned loads, so any alignment and any length work.
 *
 * Byte order and partial-sum form are those of OVS's lib/csum.h: data are
 * summed as native-endian 16-bit words starting at the first byte, a
 * trailing odd byte counts as the first byte of a zero-padded word, and the
 * result has the byte order of the data (store it as is into a packet).
 * Exact relations, for every buffer 'p' of 'n' bytes and every 'initial':
 *
 *     csum_finish(pkt_csum_partial(p, n, initial))
 *         == csum_finish(csum_continue(initial, p, n))
 *     csum_finish(pkt_csum_partial(p, n, 0)) == csum(p, n)
 *
 * and the partial sums are congruent modulo 0xffff.  A partial sum returned
 * here is always folded to at most 16 bits, so it can be passed on as
 * 'initial', given to csum_add16()/csum_add32()/csum_continue(), or finished
 * with csum_finish() or pkt_csum_fold().
 *
 * Like csum_continue(), passing a partial sum as 'initial' continues the sum
 * as if the new bytes started at an even offset.
 *
 * pkt_csum_l4_fill() and pkt_csum_l4_copy() complete the TCP, UDP or SCTP
 * checksum of a whole bare IP packet (one that asked for checksum offload
 * only), parsed by pkt_ip_parse() (see pkt-ip.h for what it accepts); the
 * checksum field's old content is ignored. */

#include <stddef.h>
#include <stdint.h>
#include "openvswitch/types.h"

struct pkt_ip_info;

/* Adds the 'n' bytes at 'data' to the partial checksum 'initial' (0 to start
 * a new sum) and returns the new partial sum, folded to 16 bits. */
uint32_t pkt_csum_partial(const void *data, size_t n, uint32_t initial);

/* Copies 'n' bytes from 'src' to 'dst' (which must not overlap) and returns
 * pkt_csum_partial(src, n, initial), reading each byte only once. */
uint32_t pkt_csum_copy(void *dst, const void *src, size_t n,
                       uint32_t initial);

/* Folds the partial sum 'partial' to 16 bits without complementing it: the
 * form a "checksum partial" field takes (e.g. the TCP pseudo-header sum that
 * VIRTIO_NET_HDR_F_NEEDS_CSUM expects).  ~pkt_csum_fold(x) equals
 * csum_finish(x). */
static inline ovs_be16
pkt_csum_fold(uint32_t partial)
{
    partial = (partial & 0xffff) + (partial >> 16);
    partial = (partial & 0xffff) + (partial >> 16);
    return (OVS_FORCE ovs_be16) partial;
}

/* Computes and stores, in place, the TCP, UDP or SCTP checksum of the
 * packet of 'len' bytes at 'pkt'.  A UDP checksum that computes to 0 is sent
 * as 0xffff.  Returns 0, or EINVAL if the packet does not parse or carries
 * another protocol (the packet is then unchanged). */
int pkt_csum_l4_fill(void *pkt, size_t len);

/* The same for a packet already parsed: 'info' is what pkt_ip_parse()
 * gave for it (see pkt_ip_frame_parse()), which this trusts and does not
 * check again.  Returns 0, or EINVAL for another protocol. */
int pkt_csum_l4_fill_parsed(void *pkt, const struct pkt_ip_info *info);

/* Like pkt_csum_l4_fill(), but copies the packet's 'len' bytes to 'dst'
 * (which must have room for 'len' bytes and must not overlap 'pkt') and
 * fills the checksum in the copy, summing TCP and UDP payloads during the
 * copy.  'pkt' is not modified.  Returns 0 or EINVAL (then 'dst' holds an
 * unmodified copy of 'pkt'). */
int pkt_csum_l4_copy(void *dst, const void *pkt, size_t len);

#endif /* pkt-csum.h */
