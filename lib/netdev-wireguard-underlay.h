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

#ifndef NETDEV_WIREGUARD_UNDERLAY_H
#define NETDEV_WIREGUARD_UNDERLAY_H 1

/* The datapath underlay of a wireguard port (issue 39, design.rst "The
 * datapath underlay"): a companion netdev, type "wireguard-underlay" (or
 * "wireguard-underlay-pmd", polled by PMD threads), in the underlay bridge,
 * paired with one wireguard port by its option "wireguard".  Once paired,
 * the port closes its UDP sockets: its messages leave as Ethernet frames
 * that the companion hands to the underlay bridge (its rxq_recv()), and
 * the frames the bridge sends to the companion that carry WireGuard
 * datagrams for the companion's address reach the port's receive round in
 * place of recvmmsg().  The companion is a host on the underlay wire: an
 * IPv4 and an IPv6 address, gateways, a neighbour cache (ul-neigh.h), ARP
 * and neighbour discovery answered and asked (ul-frame.h).
 *
 * Files:
 *   netdev-wireguard-underlay.c     the class, options, pairing, status
 *   netdev-wireguard-underlay-rx.c  what the bridge sends the companion:
 *                                   classified, answered, or queued for
 *                                   the port's receive round
 *   netdev-wireguard-underlay-tx.c  the port's messages as frames, the
 *                                   neighbour cache's decisions, frames
 *                                   held for an unresolved neighbour
 * each calling only those listed after it.
 *
 * These functions are the port's side (netdev-wireguard-sock.c and -rx.c
 * call them, with the port's 'sock_rwlock' read-held or its 'mutex' held,
 * which keeps the pairing in place); they take the companion's own locks,
 * which come after every lock of the port. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dp_packet;
struct netdev_wg_ul;
struct netdev_wireguard;
struct udp_batch_msg;
struct udp_batch_rx_buf;

/* Where a message must be for the companion to make it a frame in place,
 * with no copy: in a packet, NETDEV_WG_UL_SLOT_FRONT bytes (room for the
 * outer headers) after the start of its data, with at least
 * NETDEV_WG_UL_SLOT_HEADROOM bytes of headroom before that (for the
 * bridge's actions).  The port seals its messages in such slots while it
 * is paired (tx-slots.h). */
#define NETDEV_WG_UL_SLOT_FRONT 64
#define NETDEV_WG_UL_SLOT_HEADROOM 64

/* Sends the 'n' messages at 'msgs' as frames to the underlay bridge.
 * 'pkts' (may be NULL) holds, for each message, the packet it lies in, as
 * above, or NULL: the companion takes such a packet (it becomes the frame,
 * or is freed) and copies a message without one into a new packet.
 * Returns how many were dropped (counted by the companion; a message held
 * for its neighbour's answer is not a drop yet). */
size_t netdev_wg_ul_send(struct netdev_wg_ul *ul,
                         const struct udp_batch_msg *msgs,
                         struct dp_packet **pkts, size_t n);

/* Whether the companion has an address of 'family' (AF_INET, AF_INET6):
 * the port may send to an endpoint of that family. */
bool netdev_wg_ul_can_send(const struct netdev_wg_ul *ul, int family);

/* Fills at most 'n' of 'bufs' with the WireGuard datagrams waiting for the
 * port's receive queue 'qid', as recvmmsg() with UDP GRO would (runs of
 * one source and size in one buffer).  Returns how many buffers it
 * filled.  Each peer's datagrams go to one queue, as the socket mode's
 * steering sends them (netdev-wireguard-underlay-rx.c). */
size_t netdev_wg_ul_read(struct netdev_wg_ul *ul, int qid,
                         struct udp_batch_rx_buf *bufs, size_t n);

/* Wakes the poll loop when datagrams wait for queue 'qid'. */
void netdev_wg_ul_read_wait(struct netdev_wg_ul *ul, int qid);

/* The port has 'n' receive queues now (its 'mutex' held): datagrams are
 * spread over them; those waiting for a queue removed are dropped. */
void netdev_wg_ul_set_n_rxq(struct netdev_wg_ul *ul, int n);

/* Main thread, the port's 'mutex' held: the port is destroyed (the
 * companion forgets it), or its UDP port is now 'port'. */
void netdev_wg_ul_port_gone(struct netdev_wireguard *wg);
void netdev_wg_ul_set_port(struct netdev_wg_ul *ul, uint16_t port);

/* Registers the companion's netdev classes. */
void netdev_wg_ul_register(void);

#endif /* netdev-wireguard-underlay.h */
