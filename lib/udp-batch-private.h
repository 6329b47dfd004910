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

#ifndef UDP_BATCH_PRIVATE_H
#define UDP_BATCH_PRIVATE_H 1

/* Between udp-batch.c (sockets, receiving) and udp-batch-tx.c (sending);
 * nothing else includes this header. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "openvswitch/thread.h"
#include "ovs-atomic.h"
#include "udp-batch-cmsg.h"
#include "udp-batch.h"
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

struct udp_batch_sock {
    int fd;
    int family;
    uint16_t port;
    int sndbuf;
    int rcvbuf;
    bool gso_supported;
    bool gro_active;            /* Changed only by the receiving thread. */
    atomic_bool gso_active;
    atomic_bool gso_failed;
    /* The counters of struct udp_batch_stats, in its order, without a
     * lock: a receive counter has one writer, the thread polling the
     * socket's queue (relaxed load and store); a send counter may have
     * several (transmit queues flush through one socket) and is added to
     * atomically.  A reader may see one call's counts partly added. */
    atomic_uint64_t stats[UDP_BATCH_N_STATS];
};

/* "IPv4" or "IPv6". */
const char *udp_batch_family_name(int family);

/* Adds the counts 'd' of one call to the socket's statistics; the receive
 * counts only from the thread that polls the socket. */
void udp_batch_stats_merge(struct udp_batch_sock *sock,
                           const struct udp_batch_stats *d);

#endif /* udp-batch-private.h */
