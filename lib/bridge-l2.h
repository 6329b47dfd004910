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

#ifndef BRIDGE_L2_H
#define BRIDGE_L2_H 1

/* The port's layer-2 adapter: bridge glue between an Ethernet bridge and
 * WireGuard's IP packets.  Not part of the protocol (hence not wg-*): it
 * plays the Ethernet host the bridge expects, with a neighbor table, a
 * pending queue and proxy ARP/ND.
 *
 * Frames from the bridge are read as byte buffers: a "frame" is an untagged
 * Ethernet frame (header at offset 0), 16-bit aligned as OVS's packet
 * structures require (a dp_packet's data is).  What the adapter sends or
 * keeps is a struct dp_packet: inner packets (an "IP packet" starts with
 * its IPv4 or IPv6 header) wait in the pending queue as the caller's own
 * dp_packets, and replies and solicitations are built by OVS's
 * compose_arp(), compose_nd_ns() and compose_nd_na() into new ones that
 * the caller sends into the bridge.  All times are caller-supplied
 * monotonic milliseconds ('now').  The caller serializes every call on
 * one 'struct bridge_l2' but bridge_l2_from_bridge_unlocked(), which any
 * thread may call at the same time, under OVS RCU.
 *
 * Bridge to peer: bridge_l2_from_bridge() classifies each frame.  IP frames
 * addressed to the port's MAC go to WireGuard (the caller does cryptokey
 * routing on the destination returned); ARP requests and IPv6 Neighbor
 * Solicitations for an address routable through a peer (the caller's
 * callback says which) or owned by the port are answered with a reply
 * frame (proxy ARP / ND); everything else is
 * dropped with an enum bridge_l2_reason.  Never answered: gratuitous ARP,
 * ARP probes, DAD solicitations, and addresses seen as a source on the
 * bridge side.  Every ARP, ND and IP frame teaches the neighbor table
 * (IP -> MAC).
 *
 * Peer to bridge: bridge_l2_to_bridge() gives the Ethernet header for a
 * decrypted inner packet.  When the destination's MAC is unknown, the
 * adapter keeps the packet in its pending queue (bounded per
 * destination, in total packets and in total bytes; drops counted) and
 * asks the caller to send an ARP request or NS into the bridge.  When a
 * later bridge_l2_from_bridge() learns the MAC it sets 'resolved'; the
 * caller then takes the finished frames with bridge_l2_pending_pop().
 * Pending packets not resolved within BRIDGE_L2_PENDING_TIMEOUT_MS are
 * dropped by bridge_l2_run().
 *
 * The neighbor table doubles as the "seen locally" set: an entry is used
 * for delivery for BRIDGE_L2_NEIGH_EXPIRE_MS after it was last confirmed
 * by a frame from the bridge (after BRIDGE_L2_NEIGH_STALE_MS a unicast ARP
 * request or NS refreshes it), and keeps suppressing proxy answers for its
 * address for BRIDGE_L2_LOCAL_EXPIRE_MS.  It holds at most 'max_neighbors'
 * entries; the least recently confirmed one is evicted when full.
 *
 * Oversized packets from the bridge (see pkt-mtu.h for the check and IPv4
 * fragmentation): bridge_l2_icmp_too_big() answers ICMPv4 fragmentation
 * needed / ICMPv6 packet too big as a frame back into the bridge.
 *
 * Choices:
 *   - IP frames go to WireGuard only if addressed to the port's MAC (a
 *     NORMAL bridge floods unknown unicast to every port); link-local IPv6
 *     never leaves the link; VLAN-tagged frames are dropped (the bridge
 *     strips tags on access ports).
 *   - A Neighbor Advertisement for the port's own addresses (and for its
 *     link-local address) carries Router, Solicited and Override; a proxied
 *     one only Solicited, so that a real owner's answer wins.
 *   - An ARP request for an unknown destination comes from an own address
 *     in the destination's prefix, else from the inner packet's source (a
 *     remote address the guest reaches through this port anyway), else
 *     from any own IPv4 address, else from 0.0.0.0 (which Linux answers,
 *     but which a guest probing for that address would take as a
 *     conflict).  An NS comes from an own address in the target's prefix,
 *     else from the port's EUI-64 link-local address; both carry the
 *     port's MAC as link-layer option.
 *   - ICMP errors come from an own address of the family (preferring one
 *     whose prefix holds the sender), else from the offending packet's
 *     destination. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include "packets.h"
#include "pkt-mtu.h"

struct dp_packet;
struct pkt_ip_frame;

/* Timers, in milliseconds. */
#define BRIDGE_L2_NEIGH_STALE_MS     30000 /* Refresh with a unicast probe. */
#define BRIDGE_L2_NEIGH_EXPIRE_MS   120000 /* Unusable for delivery. */
#define BRIDGE_L2_LOCAL_EXPIRE_MS  3600000 /* Forgotten as a local address. */
#define BRIDGE_L2_SOLICIT_INTERVAL_MS 1000 /* Between solicits for one IP. */
#define BRIDGE_L2_PENDING_TIMEOUT_MS  3000 /* Unresolved pending packets. */

/* Length of the longest ARP or ND frame the adapter builds (an NA or NS
 * with its link-layer address option). */
#define BRIDGE_L2_ND_FRAME_MAX 86
/* Room for the largest ICMP error frame of bridge_l2_icmp_too_big(). */
#define BRIDGE_L2_ICMP_FRAME_MAX (ETH_HEADER_LEN + PKT_MTU_ICMP_MAX)
/* Most own addresses a port may have. */
#define BRIDGE_L2_MAX_ADDRS 16

/* Why a frame or packet was dropped or consumed.  BRIDGE_L2_REASON(ENUM,
 * name) gives the enumerator BRIDGE_L2_R_<ENUM> and the counter name
 * "wg_l2_<name>" (also an OVS coverage counter, incremented by this
 * module; the name predates the module's and stays, as operators and the
 * documentation know it). */
#define BRIDGE_L2_REASONS                                                     \
    BRIDGE_L2_REASON(OK, ok)                       /* Not a drop. */          \
    BRIDGE_L2_REASON(ETH_SHORT, eth_short)         /* < 14 bytes. */          \
    BRIDGE_L2_REASON(VLAN, vlan)                   /* 802.1Q/ad tagged. */    \
    BRIDGE_L2_REASON(LLC, llc)                     /* 802.3 length (STP). */  \
    BRIDGE_L2_REASON(LLDP, lldp)                                              \
    BRIDGE_L2_REASON(ETHERTYPE, ethertype)         /* Other ethertype. */     \
    BRIDGE_L2_REASON(SRC_MAC, bad_src_mac)         /* Multicast, 0, ours. */  \
    BRIDGE_L2_REASON(NOT_FOR_US, not_for_us)       /* Unicast to another. */  \
    BRIDGE_L2_REASON(ARP_BAD, arp_malformed)                                  \
    BRIDGE_L2_REASON(ARP_OP, arp_op)               /* Not request/reply. */   \
    BRIDGE_L2_REASON(ARP_REPLY, arp_reply)         /* Learned, consumed. */   \
    BRIDGE_L2_REASON(ARP_GRATUITOUS, arp_gratuitous)                          \
    BRIDGE_L2_REASON(ARP_PROBE, arp_probe)         /* Sender IP 0. */         \
    BRIDGE_L2_REASON(ARP_LOCAL, arp_target_local)  /* Seen on the bridge. */  \
    BRIDGE_L2_REASON(ARP_UNROUTABLE, arp_unroutable)                          \
    BRIDGE_L2_REASON(IP_BAD, ip_malformed)                                    \
    BRIDGE_L2_REASON(IP_MULTICAST, ip_multicast)   /* Or broadcast. */        \
    BRIDGE_L2_REASON(IP_TO_SELF, ip_to_self)       /* To an own address. */   \
    BRIDGE_L2_REASON(IP6_BAD, ip6_malformed)                                  \
    BRIDGE_L2_REASON(IP6_MULTICAST, ip6_multicast) /* MLD included. */        \
    BRIDGE_L2_REASON(IP6_LINK_LOCAL, ip6_link_local)                          \
    BRIDGE_L2_REASON(ND_BAD, nd_malformed)                                    \
    BRIDGE_L2_REASON(ND_DAD, nd_dad)               /* NS from ::. */          \
    BRIDGE_L2_REASON(ND_LOCAL, nd_target_local)                               \
    BRIDGE_L2_REASON(ND_UNROUTABLE, nd_unroutable)                            \
    BRIDGE_L2_REASON(ND_NA, nd_na)                 /* Learned, consumed. */   \
    BRIDGE_L2_REASON(ND_RS, nd_rs)                 /* Router solicitation. */ \
    BRIDGE_L2_REASON(ND_OTHER, nd_other)           /* RA, redirect. */        \
    BRIDGE_L2_REASON(IN_BAD, in_malformed)         /* Inner packet. */        \
    BRIDGE_L2_REASON(IN_TO_SELF, in_to_self)       /* Inner dst is ours. */   \
    BRIDGE_L2_REASON(PENDING_FULL, pending_full)                              \
    BRIDGE_L2_REASON(PENDING_TIMEOUT, pending_timeout)

enum bridge_l2_reason {
#define BRIDGE_L2_REASON(ENUM, NAME) BRIDGE_L2_R_##ENUM,
    BRIDGE_L2_REASONS
#undef BRIDGE_L2_REASON
    BRIDGE_L2_N_REASONS
};

/* Returns "wg_l2_<name>" for 'reason' (a static string). */
const char *bridge_l2_reason_name(enum bridge_l2_reason reason);

/* Bounds; zero fields take the defaults in brackets. */
struct bridge_l2_limits {
    size_t max_neighbors;       /* [4096] neighbor table entries. */
    size_t pending_per_dst;     /* [16] packets waiting for one IP. */
    size_t pending_total;       /* [256] packets waiting, all IPs. */
    size_t pending_bytes;       /* [1 MiB] bytes waiting, all IPs. */
};

/* Event counters (drops are counted per reason, see
 * bridge_l2_reason_count_for_test()). */
struct bridge_l2_stats {
    uint64_t learned;           /* New neighbor entries. */
    uint64_t evicted;           /* Entries evicted because the table was
                                 * full. */
    uint64_t arp_replies;       /* Proxy ARP replies produced. */
    uint64_t na_replies;        /* Neighbor Advertisements produced. */
    uint64_t solicits;          /* ARP requests and NS produced. */
    uint64_t queued;            /* Packets put in the pending queue. */
    uint64_t flushed;           /* Pending packets handed back. */
};

/* Creates an adapter for a port with MAC 'mac' and no own addresses.
 * 'limits' may be NULL (defaults). */
struct bridge_l2 *bridge_l2_create(struct eth_addr mac,
                                   const struct bridge_l2_limits *limits);

/* Frees 'l2', its tables and pending packets (NULL is allowed). */
void bridge_l2_destroy(struct bridge_l2 *l2);

/* Changes the port's MAC. */
void bridge_l2_set_mac(struct bridge_l2 *l2, struct eth_addr mac);

/* Replaces the own-address list with 'list', a comma- (or space-)
 * separated list like "10.1.1.254/24,fd00:1:1::fe/64" (no prefix: /32 or
 * /128; "" or NULL clears it).  On error, returns a message the caller must
 * free() and leaves the list unchanged; otherwise returns NULL. */
char *bridge_l2_set_addresses(struct bridge_l2 *l2, const char *list);

/* Tells whether 'addr' (4 or 16 bytes per 'family') is routable through a
 * peer (cryptokey routing has an entry for it). */
typedef bool bridge_l2_routable_cb(void *aux, int family, const void *addr);

/* Bridge to peer. */
enum bridge_l2_eg_action {
    BRIDGE_L2_EG_TO_PEER,       /* Encrypt the IP packet for a peer. */
    BRIDGE_L2_EG_REPLY,         /* Send the reply frame into the bridge. */
    BRIDGE_L2_EG_DROP,          /* Drop the frame ('reason'). */
};

struct bridge_l2_egress {
    enum bridge_l2_reason reason; /* Drop reason; BRIDGE_L2_R_OK otherwise. */
    bool resolved;              /* Learning made pending packets ready:
                                 * call bridge_l2_pending_pop() until NULL. */

    /* BRIDGE_L2_EG_TO_PEER. */
    size_t l3_ofs;              /* Offset of the IP header in the frame. */
    size_t l3_len;              /* Length of the IP packet (Ethernet
                                 * padding excluded). */
    int family;                 /* AF_INET or AF_INET6. */
    uint8_t dst[16];            /* Destination address, 4 or 16 bytes. */
    struct in6_addr src;        /* Source address (IPv4 as mapped). */

    /* BRIDGE_L2_EG_REPLY: the frame to send, which the caller now owns,
     * and its length (0 and NULL otherwise). */
    struct dp_packet *reply;
    size_t reply_len;
};

/* Classifies 'frame' ('len' bytes), received from the bridge at 'now', and
 * learns neighbors from it.  'routable' (with 'aux') decides proxy
 * answers.  'ip' is the frame's one parse (pkt_ip_frame_parse() at
 * ETH_HEADER_LEN, pkt-ip.h), which the adapter takes instead of parsing
 * the IP header again; NULL makes it parse the frame itself. */
enum bridge_l2_eg_action bridge_l2_from_bridge(struct bridge_l2 *l2,
                                               const void *frame, size_t len,
                                               const struct pkt_ip_frame *ip,
                                               long long int now,
                                               bridge_l2_routable_cb *routable,
                                               void *aux,
                                               struct bridge_l2_egress *out);

/* For a caller without its lock, on any thread, under OVS RCU: returns
 * true if 'frame' is an IP packet that bridge_l2_from_bridge() would send
 * to a peer, judged by a published copy of the configuration, and fills
 * 'out' as it would, with the source address the frame would teach in
 * '*src' (IPv4 as mapped); 'ip' as for bridge_l2_from_bridge().  Learns
 * nothing, counts nothing: the caller
 * takes its lock and calls bridge_l2_from_bridge() for any frame for
 * which this returns false, and for any whose source (with its MAC) the
 * neighbor table may not know yet. */
bool bridge_l2_from_bridge_unlocked(const struct bridge_l2 *l2,
                                    const void *frame, size_t len,
                                    const struct pkt_ip_frame *ip,
                                    struct bridge_l2_egress *out,
                                    struct in6_addr *src);

/* Peer to bridge. */
enum bridge_l2_in_action {
    BRIDGE_L2_IN_DELIVER,       /* Prepend 'eth' and send into the bridge. */
    BRIDGE_L2_IN_QUEUED,        /* The adapter keeps the packet until its
                                 * neighbor is known. */
    BRIDGE_L2_IN_DROP,          /* Drop it ('reason'). */
};

struct bridge_l2_ingress {
    enum bridge_l2_reason reason; /* Drop reason; BRIDGE_L2_R_OK otherwise. */
    struct eth_header eth;      /* BRIDGE_L2_IN_DELIVER: the header to add. */

    /* BRIDGE_L2_IN_DELIVER without 'solicit': until when (exclusive) a
     * packet to the same destination gets the same header and needs
     * nothing else of the adapter, as far as the adapter knows now: the
     * neighbor's stale time (a probe is then due), LLONG_MAX for a group
     * address.  LLONG_MIN otherwise.  A neighbor's MAC learned anew, its
     * eviction or a new port MAC end it sooner: a caller that keeps the
     * header keeps it for a bounded time. */
    long long int same_until;

    /* With any action: an ARP request or NS to send into the bridge as
     * well, which the caller now owns, and its length (NULL and 0 if
     * none). */
    struct dp_packet *solicit;
    size_t solicit_len;
};

/* Decides how the decrypted inner packet 'pkt' (its data starts with the
 * IPv4 or IPv6 header, already validated by the caller) reaches the
 * bridge.  Multicast and broadcast destinations get the matching group
 * MAC.  With BRIDGE_L2_IN_QUEUED the adapter takes 'pkt', offload flags
 * and all; otherwise the caller keeps it. */
enum bridge_l2_in_action bridge_l2_to_bridge(struct bridge_l2 *l2,
                                             struct dp_packet *pkt,
                                             long long int now,
                                             struct bridge_l2_ingress *out);

/* Takes the oldest resolved pending packet, now an Ethernet frame ready
 * for the bridge, or returns NULL.  The caller owns it. */
struct dp_packet *bridge_l2_pending_pop(struct bridge_l2 *l2);

/* Drops pending packets and forgets neighbors that are out of time.  Call
 * when bridge_l2_next_deadline() has passed. */
void bridge_l2_run(struct bridge_l2 *l2, long long int now);

/* When bridge_l2_run() next has work for pending packets, or LLONG_MAX. */
long long int bridge_l2_next_deadline(const struct bridge_l2 *l2);

/* Writes into 'out' the frame telling the sender of the oversized 'frame'
 * (an IP frame from the bridge, as accepted by bridge_l2_from_bridge()) to use
 * 'mtu', the IP packet built by pkt_mtu_icmp_too_big().  The error comes
 * from the port's MAC and from an own address of the same family (one
 * whose prefix holds the packet's source if any); lacking one, from the
 * packet's destination address.  Returns the frame length, or 0 when no
 * error may be sent (see pkt_mtu_icmp_too_big(); also a source that is the
 * broadcast address of an own IPv4 prefix). */
size_t bridge_l2_icmp_too_big(const struct bridge_l2 *l2, const void *frame,
                              size_t len, unsigned int mtu, void *out,
                              size_t out_size);

/* Number of own addresses, and the 'i'th one: 'family' AF_INET (4 bytes in
 * 'addr') or AF_INET6 (16 bytes), prefix length in '*plen'. */
size_t bridge_l2_n_addresses(const struct bridge_l2 *l2);
void bridge_l2_get_address(const struct bridge_l2 *l2, size_t i, int *family,
                           uint8_t addr[16], unsigned int *plen);

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

/* The port's MAC. */
struct eth_addr bridge_l2_get_mac_for_test(const struct bridge_l2 *l2);

/* Number of packets held: waiting for resolution or ready to pop. */
size_t bridge_l2_pending_count_for_test(const struct bridge_l2 *l2);

/* The MAC learned for 'addr' (4 or 16 bytes per 'family') that is still
 * usable at 'now'; false if none. */
bool bridge_l2_neigh_lookup_for_test(const struct bridge_l2 *l2, int family,
                                     const void *addr, long long int now,
                                     struct eth_addr *mac);

/* Number of neighbor entries (usable or only remembered as local). */
size_t bridge_l2_neigh_count_for_test(const struct bridge_l2 *l2);

/* Counters. */
uint64_t bridge_l2_reason_count_for_test(const struct bridge_l2 *l2,
                                         enum bridge_l2_reason r);
void bridge_l2_get_stats_for_test(const struct bridge_l2 *l2,
                                  struct bridge_l2_stats *stats);
#endif

#endif /* bridge-l2.h */
