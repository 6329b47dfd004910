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

#ifndef PKT_ECN_H
#define PKT_ECN_H 1

/* Explicit Congestion Notification across the tunnel, over plain buffers,
 * as the Linux kernel's WireGuard does it (RFC 6040's rules, with RFC
 * 3168's mapping of an inner CE to an outer ECT(0) on encapsulation):
 *
 *   - pkt_ecn_encap(): the ECN field of the outer IP header of a message
 *     is the inner packet's (not-ECT, ECT(0) or ECT(1)), ECT(0) for an
 *     inner CE, not-ECT for what is not IP; the rest of the outer TOS or
 *     traffic class is 0.
 *   - pkt_ecn_decap(): after decryption, an outer CE becomes a CE in an
 *     ECN-capable inner packet (IPv4 header checksum updated); an inner
 *     packet that is not ECN-capable under an outer CE is to be dropped
 *     (the congestion mark could not reach its receiver); in every other
 *     case the inner packet is left as it is.
 *
 * 'tos' is the outer IPv4 TOS byte or IPv6 traffic class; only its two ECN
 * bits matter.  Uses pkt-ip.h's accessors only. */

#include <stddef.h>
#include <stdint.h>

#define PKT_ECN_MASK 3
#define PKT_ECN_NOT_ECT 0
#define PKT_ECN_ECT_1 1
#define PKT_ECN_ECT_0 2
#define PKT_ECN_CE 3

/* The ECN field of the IP packet of 'len' bytes at 'pkt', or
 * PKT_ECN_NOT_ECT if it is not an IP packet. */
uint8_t pkt_ecn_get(const void *pkt, size_t len);

/* The outer TOS/traffic class for a message carrying the inner packet of
 * 'len' bytes at 'inner'. */
uint8_t pkt_ecn_encap(const void *inner, size_t len);

enum pkt_ecn_decap {
    PKT_ECN_DECAP_OK,           /* Deliver (maybe marked CE now). */
    PKT_ECN_DECAP_DROP,         /* Outer CE over a not-ECT inner packet. */
};

/* Applies the outer TOS/traffic class 'outer_tos' to the decrypted inner
 * packet of 'len' bytes at 'inner'. */
enum pkt_ecn_decap pkt_ecn_decap(void *inner, size_t len, uint8_t outer_tos);

#endif /* pkt-ecn.h */
