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

#ifndef PKT_POOL_H
#define PKT_POOL_H 1

/* Buffers for the packets a port hands to the datapath.
 *
 * In a DPDK build, once DPDK is initialized (other_config:dpdk-init), a
 * packet comes from one of two DPDK mempools of this module: one for
 * frames of up to PKT_POOL_SMALL_ROOM bytes, one for super-packets of up
 * to PKT_POOL_LARGE_ROOM.  Both are made at the first call after DPDK
 * started and kept for the life of the process.  The datapath frees such a
 * packet with dp_packet_delete(), which gives its mbuf back to its pool:
 * nothing is allocated per packet, and netdev-dpdk hands the packet to a
 * vhost-user or NIC port as it is, instead of first copying it into an mbuf
 * of its own (an external buffer of rte_malloc() for a super-packet).
 *
 * Otherwise (no DPDK, DPDK not started, its pools could not be made, the
 * pool is empty, or the packet does not fit) the packet is allocated with
 * malloc() as dp_packet_new() does, and the datapath frees it with free().
 *
 * So the packets a port makes may be of two sources.  A batch handed to
 * OVS must hold packets of one source (pkt_pool_same_source()): OVS 3.1's
 * netdev-dpdk looks only at a batch's first packet to decide whether to
 * copy the batch into mbufs, and dpif-netdev's output batching compares
 * only first packets too.
 *
 * Thread-safe: DPDK mempools are multi-producer, multi-consumer. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet;
struct ds;

/* Most headroom a pooled packet has (a DPDK mbuf's RTE_PKTMBUF_HEADROOM). */
#define PKT_POOL_HEADROOM 128

/* Data bytes a pooled packet holds after its headroom. */
#define PKT_POOL_SMALL_ROOM 2048
#define PKT_POOL_LARGE_ROOM (UINT16_MAX - PKT_POOL_HEADROOM)

/* Mbufs of each pool, halved until DPDK has the memory (down to
 * PKT_POOL_MIN_MBUFS, below which the pool is not made). */
#define PKT_POOL_SMALL_MBUFS 8192
#define PKT_POOL_LARGE_MBUFS 512
#define PKT_POOL_MIN_MBUFS 64

/* An empty packet with at least 'headroom' bytes of headroom and 'room'
 * bytes of tailroom.  Never NULL. */
struct dp_packet *pkt_pool_new(size_t room, size_t headroom);

/* A packet holding a copy of the 'len' bytes at 'data', with at least
 * 'headroom' bytes of headroom.  Never NULL. */
struct dp_packet *pkt_pool_clone(const void *data, size_t len,
                                 size_t headroom);

/* True if 'pkt' came from a pool of this module. */
bool pkt_pool_is_pooled(const struct dp_packet *pkt);

/* True if 'a' and 'b' may share a batch handed to OVS. */
bool pkt_pool_same_source(const struct dp_packet *a,
                          const struct dp_packet *b);

/* Adds one line saying whether the pools are in use, and why not, to
 * 'out'. */
void pkt_pool_describe(struct ds *out);

#endif /* pkt-pool.h */
