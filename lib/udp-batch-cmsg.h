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

#ifndef UDP_BATCH_CMSG_H
#define UDP_BATCH_CMSG_H 1

/* The control messages of udp-batch's sends and reads: the UDP_SEGMENT
 * size of a GSO send, and the IPv4 TOS / IPv6 traffic class (which carries
 * ECN) of a datagram, sent with IP_TOS/IPV6_TCLASS and read through
 * IP_RECVTOS/IPV6_RECVTCLASS. */

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include "udp-batch.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* Room for the control messages of a send: UDP_SEGMENT and the TOS. */
union udp_batch_tx_cmsg {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(uint16_t)) + CMSG_SPACE(sizeof(int))];
};

/* Points 'mh' at 'room' holding the control messages for 'count'
 * messages like 'msg': the segment size if there are several, the TOS if
 * it is not 0 (no control message at all: msg_control NULL). */
void udp_batch_cmsg_put_tx(struct msghdr *mh, union udp_batch_tx_cmsg *room,
                           const struct udp_batch_msg *msg, size_t count);

/* The IPv4 TOS or IPv6 traffic class the read 'mh' arrived with, or 0. */
uint8_t udp_batch_cmsg_rx_tos(struct msghdr *mh);

/* Asks the kernel for the TOS or traffic class of each datagram that
 * socket 'fd' of 'family' reads (logged if refused: datagrams then read
 * as TOS 0, and ECN marks are not carried in). */
void udp_batch_cmsg_want_tos(int fd, int family);

#endif /* udp-batch-cmsg.h */
