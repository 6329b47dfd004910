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

#ifndef OVS_COMPAT_H
#define OVS_COMPAT_H 1

/* The one place that knows how Open vSwitch lines differ.
 *
 * The port builds against OVS 3.1, 3.3, 3.5, 3.6, 3.7 and 4.0.  What it
 * needs of a packet's offload state and of a batch changed between them;
 * this header gives each such thing one small name of ours.  configure
 * finds the differences by compiling against the tree (m4/ovs-wireguard.m4,
 * OVSWG_CHECK_OVS_API) and passes one OVSWG_OVS_* macro per feature; no
 * other file may test those macros (utilities/checks/lib-layering fails
 * the suite if one does).
 *
 *   OVSWG_OVS_TSO_SEGSZ    3.3+: the guest's TCP segment size travels with
 *                          the packet, and netdev_send() segments a TSO
 *                          packet in software for a port without TSO.
 *                          3.1 keeps no segment size (every consumer
 *                          derives it from its MTU) and drops such a
 *                          packet ("No TSO support").
 *   OVSWG_OVS_HWOL         up to 3.5: offload requests are 'ol_flags' bits
 *                          behind dp_packet_hwol_*().
 *   OVSWG_OVS_CSUM_STATE   3.6+: a checksum state per layer (good, bad,
 *                          partial, unknown); a packet is TSO exactly when
 *                          it has a segment size; a tunnel packet's inner
 *                          checksum may be left to the port.
 *   OVSWG_OVS_ND_NS_UNICAST  4.0: compose_nd_ns() takes whether to send
 *                          to the solicited-node group and a destination
 *                          MAC.
 *   OVSWG_OVS_BATCH_RESET  4.0: a batch's packet array can grow and belongs
 *                          to whoever initialized the batch: a netdev that
 *                          consumed a batch only resets it.
 *
 * Everything here is a thin static inline over OVS's own accessors, so the
 * same source also builds against OVS with DPDK, where a dp_packet is an
 * rte_mbuf. */

#include <stdbool.h>
#include <stdint.h>

#include "dp-packet.h"
#include "netdev-provider.h"

/* True when netdev_send() of this Open vSwitch segments a TSO packet in
 * software for a port that lacks TSO (3.3+); false when it drops it. */
#ifdef OVSWG_OVS_TSO_SEGSZ
#define OVS_COMPAT_SOFTWARE_GSO true
#else
#define OVS_COMPAT_SOFTWARE_GSO false
#endif

/* True when netdev_send() of this Open vSwitch completes, in software for
 * a port that cannot, an L4 checksum that a packet leaves to output
 * (3.3+); 3.1 drops such a packet ("No UDP checksum support"). */
#define OVS_COMPAT_SOFTWARE_CSUM OVS_COMPAT_SOFTWARE_GSO

/* Packets. */

/* Returns true if 'pkt' is a TCP super-packet to be segmented on output. */
static inline bool
ovs_compat_pkt_is_tso(const struct dp_packet *pkt)
{
#ifdef OVSWG_OVS_HWOL
    return dp_packet_hwol_is_tso(pkt);
#else
    return dp_packet_get_tso_segsz(pkt) != 0;
#endif
}

/* Returns the TCP payload bytes per segment that the sender of super-packet
 * 'pkt' asked for, or 0 if this Open vSwitch does not carry it (3.1). */
static inline uint16_t
ovs_compat_pkt_tso_segsz(const struct dp_packet *pkt OVS_UNUSED)
{
#ifdef OVSWG_OVS_TSO_SEGSZ
    return dp_packet_get_tso_segsz(pkt);
#else
    return 0;
#endif
}

/* Returns true if the L4 checksum of 'pkt' is left for output to complete
 * (the sender handed it over with its pseudo-header sum only). */
static inline bool
ovs_compat_pkt_l4_csum_partial(const struct dp_packet *pkt)
{
#ifdef OVSWG_OVS_HWOL
    return dp_packet_hwol_tx_l4_checksum(pkt);
#else
    return dp_packet_l4_checksum_partial(pkt);
#endif
}

/* Returns true if the receiving NIC verified the L4 checksum of 'pkt' and
 * found it good (3.1 calls it "valid", later lines "good"). */
static inline bool
ovs_compat_pkt_l4_csum_good(const struct dp_packet *pkt)
{
#ifdef OVSWG_OVS_TSO_SEGSZ
    return dp_packet_l4_checksum_good(pkt);
#else
    return dp_packet_l4_checksum_valid(pkt);
#endif
}

/* Marks 'pkt', an Ethernet frame whose complete IPv4 or IPv6 ('ipv6')
 * header is at offset 'l3_ofs' and whose UDP header, at 'l4_ofs', holds
 * the pseudo-header sum in its checksum, for output to complete the UDP
 * checksum (the NIC, or Open vSwitch in software).  Only where
 * OVS_COMPAT_SOFTWARE_CSUM; elsewhere it changes nothing. */
static inline void
ovs_compat_pkt_set_udp_csum_partial(struct dp_packet *pkt, bool ipv6,
                                    uint16_t l3_ofs, uint16_t l4_ofs)
{
#ifdef OVSWG_OVS_TSO_SEGSZ
    pkt->l3_ofs = l3_ofs;
    pkt->l4_ofs = l4_ofs;
#ifdef OVSWG_OVS_HWOL
    dp_packet_hwol_set_csum_udp(pkt);
    if (ipv6) {
        dp_packet_hwol_set_tx_ipv6(pkt);
    } else {
        dp_packet_hwol_set_tx_ipv4(pkt);
    }
#else
    (void) ipv6;
    dp_packet_l4_proto_set_udp(pkt);
    dp_packet_l4_checksum_set_partial(pkt);
#endif
#else
    (void) pkt;
    (void) ipv6;
    (void) l3_ofs;
    (void) l4_ofs;
#endif
}

/* Marks 'pkt', a TCP super-packet over IPv4 or IPv6 ('ipv6') with a finished
 * IP header, for segmentation into 'segsz' payload bytes per segment and
 * for its TCP checksum to be completed by whoever segments it or by the
 * receiving guest. */
static inline void
ovs_compat_pkt_set_tso(struct dp_packet *pkt, bool ipv6,
                       uint16_t segsz OVS_UNUSED)
{
#ifdef OVSWG_OVS_HWOL
    dp_packet_hwol_set_tcp_seg(pkt);
    dp_packet_hwol_set_csum_tcp(pkt);
    if (ipv6) {
        dp_packet_hwol_set_tx_ipv6(pkt);
    } else {
        dp_packet_hwol_set_tx_ipv4(pkt);
    }
#else
    (void) ipv6;
    dp_packet_l4_proto_set_tcp(pkt);
    dp_packet_l4_checksum_set_partial(pkt);
#endif
#ifdef OVSWG_OVS_TSO_SEGSZ
    dp_packet_set_tso_segsz(pkt, segsz);
#endif
}

/* Completes the checksums of tunnel packet 'pkt' (Geneve or VXLAN that
 * Open vSwitch encapsulated for output through this port) that Open vSwitch
 * left partial.  From 3.6 on it leaves the inner TCP or UDP checksum to a
 * port that offers checksum offload, as it would to a NIC with tunnel
 * offload (computing the outer UDP checksum for the inner one's final
 * value); the port encrypts the tunnel packet whole, so nobody after it
 * could complete it.  Open vSwitch's own preparation, for a port that
 * offloads nothing, does it.  Before 3.6 Open vSwitch completes it
 * itself. */
static inline void
ovs_compat_pkt_finish_tunnel_csum(struct dp_packet *pkt OVS_UNUSED)
{
#ifdef OVSWG_OVS_CSUM_STATE
    if (dp_packet_tunnel(pkt)) {
        dp_packet_ol_send_prepare(pkt, 0);
    }
#endif
}

/* Netdevs. */

/* Advertises that 'netdev' segments TCP super-packets and completes TCP,
 * UDP and SCTP checksums itself. */
static inline void
ovs_compat_netdev_set_tso(struct netdev *netdev)
{
    netdev->ol_flags |= NETDEV_TX_OFFLOAD_TCP_TSO
                        | NETDEV_TX_OFFLOAD_TCP_CKSUM
                        | NETDEV_TX_OFFLOAD_UDP_CKSUM
                        | NETDEV_TX_OFFLOAD_SCTP_CKSUM;
}

/* Composes into 'pkt' a Neighbor Solicitation from 'eth_src' and
 * 'ipv6_src' for 'target', sent to target's solicited-node group. */
static inline void
ovs_compat_compose_nd_ns(struct dp_packet *pkt, struct eth_addr eth_src,
                         const struct in6_addr *ipv6_src,
                         const struct in6_addr *target)
{
#ifdef OVSWG_OVS_ND_NS_UNICAST
    compose_nd_ns(pkt, true, eth_src, eth_addr_zero, ipv6_src, target);
#else
    compose_nd_ns(pkt, eth_src, ipv6_src, target);
#endif
}

/* Batches. */

/* Empties 'batch', whose packets the caller has taken, keeping it usable
 * for the one who initialized it. */
static inline void
ovs_compat_batch_clear(struct dp_packet_batch *batch)
{
#ifdef OVSWG_OVS_BATCH_RESET
    dp_packet_batch_reset(batch);
#else
    dp_packet_batch_init(batch);
#endif
}

#endif /* ovs-compat.h */
