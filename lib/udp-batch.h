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

#ifndef UDP_BATCH_H
#define UDP_BATCH_H 1

/* Batched UDP socket I/O on plain buffers.
 *
 * One 'struct udp_batch_sock' is a non-blocking UDP socket of one address
 * family bound to one port.  Sending goes through a 'struct udp_batch_tx'
 * queue: the caller queues (buffer, length, destination) triples and
 * flushes.  Runs of consecutive messages to the same destination with the
 * same size (the last of a run may be shorter) leave in one sendmsg() with
 * a UDP_SEGMENT control message (UDP GSO), several such messages per
 * sendmmsg() call; without GSO every datagram is its own message of one
 * sendmmsg().  The buffers are gathered with iovecs, never copied.
 *
 * Receiving uses recvmmsg() into caller buffers.  With UDP_GRO on, one read
 * may hold several datagrams of 'gro_size' bytes each (the last may be
 * shorter); udp_batch_seg_init()/udp_batch_seg_next() cut them apart.
 *
 * Thread safety: a socket may be used for sending from several threads at
 * once, each with its own 'struct udp_batch_tx'; receiving is meant for one
 * thread at a time.  Counters are kept per socket, without a lock: its
 * receive counters have that one writer, its send counters are atomic. */

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Most datagrams the kernel accepts in one UDP_SEGMENT send. */
#define UDP_BATCH_MAX_SEGMENTS 64

/* Most payload bytes put in one UDP_SEGMENT send.  The kernel's bound is
 * 65535 minus the IP and UDP headers; this leaves room for the largest
 * IPv4 header (60 bytes, also more than IPv6's 40) and the UDP header. */
#define UDP_BATCH_GSO_MAX_BYTES (65535 - 60 - 8)

/* Receive buffer size that can hold any read when UDP_GRO is on. */
#define UDP_BATCH_RX_BUF_SIZE 65535

/* Most buffers filled by one udp_batch_recv() call. */
#define UDP_BATCH_RX_MAX 64

/* Socket buffer size asked for in each direction. */
#define UDP_BATCH_SOCKBUF_BYTES (7 * 1024 * 1024)

/* An IPv4 or IPv6 socket address. */
union udp_batch_addr {
    struct sockaddr sa;
    struct sockaddr_in sin;
    struct sockaddr_in6 sin6;
};

/* Parameters of udp_batch_open(). */
struct udp_batch_options {
    int family;                 /* AF_INET or AF_INET6 (IPv6 only). */
    uint16_t port;              /* Host byte order; 0 picks a free port. */
    bool gso;                   /* Send with UDP_SEGMENT if the kernel can. */
    bool gro;                   /* Receive with UDP_GRO if the kernel can. */
    bool reuseport;             /* SO_REUSEPORT: one of a group of sockets
                                 * on the same port (same user) that the
                                 * kernel spreads datagrams over. */
};

/* Counters of one socket, since it was opened. */
struct udp_batch_stats {
    uint64_t tx_calls;          /* sendmmsg() calls and single sends. */
    uint64_t tx_datagrams;      /* Datagrams sent (each segment counts). */
    uint64_t tx_gso_sends;      /* Messages sent with UDP_SEGMENT. */
    uint64_t tx_gso_segments;   /* Datagrams in those messages (sum). */
    uint64_t tx_gso_fallbacks;  /* GSO turned off after a send error. */
    uint64_t tx_busy;           /* Datagrams dropped: EAGAIN or ENOBUFS. */
    uint64_t tx_errors;         /* Datagrams dropped: other send errors. */
    uint64_t rx_calls;          /* recvmmsg() calls, empty ones included. */
    uint64_t rx_datagrams;      /* Datagrams received, after GRO split. */
    uint64_t rx_gro_reads;      /* Reads that held more than one datagram. */
    uint64_t rx_gro_segments;   /* Datagrams in those reads (sum). */
    uint64_t rx_errors;         /* Truncated reads and receive errors. */
};
#define UDP_BATCH_N_STATS (sizeof(struct udp_batch_stats) / sizeof(uint64_t))
/* The first receive counter of struct udp_batch_stats, as an index. */
#define UDP_BATCH_FIRST_RX_STAT \
    (offsetof(struct udp_batch_stats, rx_calls) / sizeof(uint64_t))

/* State of a socket, for display. */
struct udp_batch_info {
    int family;                 /* AF_INET or AF_INET6. */
    uint16_t port;              /* Bound port, host byte order. */
    bool gso_supported;         /* The kernel knows UDP_SEGMENT. */
    bool gso_active;            /* GSO is used now. */
    bool gso_failed;            /* GSO was turned off after an error. */
    bool gro_active;            /* UDP_GRO is on. */
    int sndbuf;                 /* SO_SNDBUF as the kernel reports it. */
    int rcvbuf;                 /* SO_RCVBUF as the kernel reports it. */
};

struct udp_batch_sock;

/* Opens a non-blocking UDP socket as 'opts' says, bound to the wildcard
 * address (IPV6_V6ONLY on for IPv6, SO_REUSEADDR off) with socket buffers
 * of UDP_BATCH_SOCKBUF_BYTES when the system allows.  On success stores
 * the socket in '*sockp' and returns 0.  On failure returns a positive
 * errno value (EADDRINUSE if the port is taken), stores NULL in '*sockp'
 * and, if 'errp' is nonnull, a one-sentence message in '*errp' that the
 * caller must free(). */
int udp_batch_open(const struct udp_batch_options *opts,
                   struct udp_batch_sock **sockp, char **errp);

/* Closes 'sock' and frees it.  Null is allowed. */
void udp_batch_close(struct udp_batch_sock *sock);

/* Returns the file descriptor of 'sock', for poll_fd_wait(). */
int udp_batch_fd(const struct udp_batch_sock *sock);

/* Returns the port 'sock' is bound to, in host byte order. */
uint16_t udp_batch_port(const struct udp_batch_sock *sock);

/* Fills '*info' with the state of 'sock'. */
void udp_batch_get_info(const struct udp_batch_sock *sock,
                        struct udp_batch_info *info);

/* Copies the counters of 'sock' into '*stats'. */
void udp_batch_get_stats(const struct udp_batch_sock *sock,
                         struct udp_batch_stats *stats);

/* Turns GSO on or off for 'sock'.  Turning it on has no effect if the
 * kernel lacks UDP_SEGMENT or GSO already failed on this socket. */
void udp_batch_set_gso(struct udp_batch_sock *sock, bool enable);

/* Turns UDP_GRO on or off for 'sock'.  Returns 0 or a positive errno value
 * (ENOPROTOOPT on kernels without UDP GRO); GRO is then off. */
int udp_batch_set_gro(struct udp_batch_sock *sock, bool enable);

/* Sending. */

/* One queued datagram. */
struct udp_batch_msg {
    const void *data;
    size_t size;
    union udp_batch_addr dst;
    uint8_t tos;                /* IPv4 TOS / IPv6 traffic class (ECN). */
    size_t tag;                 /* The caller's, or UDP_BATCH_NO_TAG. */
};

/* The tag of a datagram queued without one. */
#define UDP_BATCH_NO_TAG SIZE_MAX

struct udp_batch_tx;

/* Creates a send queue for up to 'max' datagrams ('max' > 0). */
struct udp_batch_tx *udp_batch_tx_create(size_t max);

/* Frees 'tx'.  Null is allowed. */
void udp_batch_tx_destroy(struct udp_batch_tx *tx);

/* Drops every datagram queued in 'tx' without sending it. */
void udp_batch_tx_clear(struct udp_batch_tx *tx);

/* Queues 'size' bytes at 'data' for 'dst' (AF_INET or AF_INET6, the family
 * of the socket it will be flushed to).  The bytes are not copied: they
 * must stay in place until the next flush.  Returns false, queuing
 * nothing, if 'tx' is full. */
bool udp_batch_tx_add(struct udp_batch_tx *tx, const void *data, size_t size,
                      const struct sockaddr *dst);

/* The same, sent with IPv4 TOS or IPv6 traffic class 'tos' (0: the
 * socket's default); messages of one GSO send share their 'tos'. */
bool udp_batch_tx_add_tos(struct udp_batch_tx *tx, const void *data,
                          size_t size, const struct sockaddr *dst,
                          uint8_t tos);

/* The same, with 'tag', a number that the socket ignores and that a
 * transport other than the socket reads back (udp_batch_tx_msgs()): the
 * port's, the slot that holds the datagram. */
bool udp_batch_tx_add_tagged(struct udp_batch_tx *tx, const void *data,
                             size_t size, const struct sockaddr *dst,
                             uint8_t tos, size_t tag);

/* Returns the number of datagrams queued in 'tx'. */
size_t udp_batch_tx_count(const struct udp_batch_tx *tx);

/* Returns the datagrams queued in 'tx', udp_batch_tx_count() of them, for
 * a transport other than the socket (the datapath underlay). */
const struct udp_batch_msg *udp_batch_tx_msgs(const struct udp_batch_tx *tx);

/* Sends every datagram queued in 'tx' on 'sock' and empties 'tx'.  Returns
 * the number of datagrams sent; the rest were dropped.  If 'errorp' is
 * nonnull, stores there 0 if all were sent, otherwise the errno value of
 * the first failure (EAGAIN or ENOBUFS when the socket buffer was full:
 * everything after that point is dropped; other errors drop only the
 * datagrams concerned).  A send that fails with EIO, or with EINVAL that a
 * plain send does not reproduce, turns GSO off for 'sock' for good, and
 * the datagrams go out without it. */
size_t udp_batch_tx_flush(struct udp_batch_tx *tx, struct udp_batch_sock *sock,
                          int *errorp);

/* Returns how many of the 'n' (> 0) messages at 'msgs' one UDP_SEGMENT send
 * may carry: the first and every following message with the same
 * destination and size, plus at most one shorter non-empty message that
 * ends the run, within UDP_BATCH_MAX_SEGMENTS and UDP_BATCH_GSO_MAX_BYTES.
 * Returns 1 when no run can start at 'msgs'.  Exposed for tests. */
size_t udp_batch_gso_run(const struct udp_batch_msg *msgs, size_t n);

/* Returns true if 'a' and 'b' are the same family, address and port (and
 * IPv6 scope). */
bool udp_batch_addr_equal(const union udp_batch_addr *a,
                          const union udp_batch_addr *b);

#ifdef WG_TEST_HOOKS
/* Test builds only (wg-test-hooks.h): when nonnull, called in place of
 * sendmmsg(), with its arguments, so that a test can make the kernel
 * "fail".  The shipped library calls sendmmsg() directly (OVS's, of
 * socket-util.h, which falls back to sendmsg() on kernels without it). */
extern int (*udp_batch_sendmmsg_hook)(int fd, struct mmsghdr *msgs,
                                      unsigned int n, unsigned int flags);
#endif

/* Receiving. */

/* One receive buffer. */
struct udp_batch_rx_buf {
    void *data;                 /* In: where to put the bytes. */
    size_t size;                /* In: room at 'data'. */
    void *aux;                  /* Caller's; travels with the buffer. */
    size_t len;                 /* Out: bytes received. */
    size_t gro_size;            /* Out: UDP_GRO segment size, or 0. */
    union udp_batch_addr src;   /* Out: sender. */
    uint8_t tos;                /* Out: its IPv4 TOS / IPv6 traffic class
                                 * (0 if the kernel did not say). */
};

/* Reads up to 'n' (at most UDP_BATCH_RX_MAX are used) reads from 'sock'
 * into 'bufs' with one recvmmsg() call, without blocking.  On success
 * returns 0 and stores in '*n_recv' how many of 'bufs' (the first ones)
 * hold data; each may hold several datagrams when its 'gro_size' is
 * nonzero.  Truncated reads are dropped and counted: their buffers move
 * behind the ones returned (buffers are swapped whole, 'aux' included).
 * Returns EAGAIN if nothing was read, another errno value on error, with
 * '*n_recv' set to 0.  With GRO on, buffers must hold
 * UDP_BATCH_RX_BUF_SIZE bytes or coalesced reads are lost. */
int udp_batch_recv(struct udp_batch_sock *sock, struct udp_batch_rx_buf *bufs,
                   size_t n, size_t *n_recv);

/* Iterator over the datagrams of one read. */
struct udp_batch_seg {
    const uint8_t *next;        /* Start of the next datagram. */
    size_t left;                /* Bytes from 'next' to the end. */
    size_t seg_size;            /* Datagram size, 0 for "all at once". */
    bool done;                  /* No datagram left. */
};

/* Starts iterating over the 'len' bytes at 'data' as datagrams of
 * 'seg_size' bytes (the last may be shorter).  'seg_size' 0 means the read
 * is one datagram.  A read always holds at least one datagram: 'len' 0
 * gives one empty datagram. */
void udp_batch_seg_init(struct udp_batch_seg *seg, const void *data,
                        size_t len, size_t seg_size);

/* Stores the next datagram of 'seg' in '*datap' and '*lenp' and returns
 * true, or returns false when there is none left. */
bool udp_batch_seg_next(struct udp_batch_seg *seg, const void **datap,
                        size_t *lenp);

/* Returns how many datagrams udp_batch_seg_next() yields for a read of
 * 'len' bytes with segment size 'seg_size'. */
size_t udp_batch_seg_count(size_t len, size_t seg_size);

#endif /* udp-batch.h */
