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

/* Sockets and receiving (udp-batch.h); sending is udp-batch-tx.c. */

#include <config.h>
#include "udp-batch.h"
#include "udp-batch-private.h"

#include <errno.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coverage.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "socket-util.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(udp_batch);

COVERAGE_DEFINE(udp_batch_rx_truncated);
COVERAGE_DEFINE(udp_batch_rx_error);

/* Room for the control messages of one read: UDP_GRO, with slack. */
union udp_batch_rx_cmsg {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int)) + 64];
};

const char *
udp_batch_family_name(int family)
{
    return family == AF_INET ? "IPv4" : "IPv6";
}

/* The counters of 'stats' as an array, in the order of sock->stats. */
static const uint64_t *
udp_batch_stats_array(const struct udp_batch_stats *stats)
{
    BUILD_ASSERT_DECL(sizeof *stats == UDP_BATCH_N_STATS * sizeof(uint64_t));
    return (const uint64_t *) stats;
}

void
udp_batch_stats_merge(struct udp_batch_sock *sock,
                      const struct udp_batch_stats *d)
{
    const uint64_t *add = udp_batch_stats_array(d);

    for (size_t i = 0; i < UDP_BATCH_N_STATS; i++) {
        uint64_t old;

        if (!add[i]) {
            continue;
        } else if (i < UDP_BATCH_FIRST_RX_STAT) {
            atomic_add_relaxed(&sock->stats[i], add[i], &old);
        } else {
            /* One writer: no read-modify-write needed. */
            atomic_read_relaxed(&sock->stats[i], &old);
            atomic_store_relaxed(&sock->stats[i], old + add[i]);
        }
    }
}

/* Opening. */

/* Sets socket buffer option 'opt' to 'size', trying first 'force_opt',
 * which ignores the system maximum but needs CAP_NET_ADMIN.  Returns the
 * size the kernel reports afterwards. */
static int
set_buffer(int fd, int force_opt, int opt, int size)
{
    socklen_t len = sizeof size;
    int actual = 0;

    if (setsockopt(fd, SOL_SOCKET, force_opt, &size, sizeof size)) {
        /* Not privileged: the system maximum applies, silently. */
        setsockopt(fd, SOL_SOCKET, opt, &size, sizeof size);
    }
    if (getsockopt(fd, SOL_SOCKET, opt, &actual, &len)) {
        actual = 0;
    }
    return actual;
}

static bool
kernel_has_gso(int fd)
{
    socklen_t len = sizeof(int);
    int value;

    return !getsockopt(fd, SOL_UDP, UDP_SEGMENT, &value, &len);
}

/* Binds 'fd' to the wildcard address of 'family' and 'port'.  Returns 0 or
 * an errno value and, on failure, a message in '*errp'. */
static int
bind_port(int fd, int family, uint16_t port, char **errp)
{
    union udp_batch_addr addr;

    memset(&addr, 0, sizeof addr);
    if (family == AF_INET) {
        addr.sin.sin_family = AF_INET;
        addr.sin.sin_addr.s_addr = htonl(INADDR_ANY);
        addr.sin.sin_port = htons(port);
    } else {
        addr.sin6.sin6_family = AF_INET6;
        addr.sin6.sin6_addr = in6addr_any;
        addr.sin6.sin6_port = htons(port);
    }
    if (!bind(fd, &addr.sa, sa_length(&addr.sa))) {
        return 0;
    }

    int error = errno;
    if (error == EADDRINUSE) {
        *errp = xasprintf("UDP port %"PRIu16" is already in use (%s)",
                          port, udp_batch_family_name(family));
    } else {
        *errp = xasprintf("cannot bind %s UDP port %"PRIu16" (%s)",
                          udp_batch_family_name(family), port,
                          ovs_strerror(error));
    }
    return error;
}

/* Returns the port 'fd' is bound to, or 0 on error. */
static uint16_t
bound_port(int fd)
{
    union udp_batch_addr addr;
    socklen_t len = sizeof addr;

    if (getsockname(fd, &addr.sa, &len)) {
        return 0;
    }
    return ntohs(addr.sa.sa_family == AF_INET
                 ? addr.sin.sin_port : addr.sin6.sin6_port);
}

/* Creates the socket and sets the options that must precede bind(). */
static int
create_socket(int family, bool reuseport, int *fdp, char **errp)
{
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    IPPROTO_UDP);
    int error;

    if (fd < 0) {
        error = errno;
        *errp = xasprintf("cannot create %s UDP socket (%s)",
                          udp_batch_family_name(family), ovs_strerror(error));
        return error;
    }

    int zero = 0;
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &zero, sizeof zero)
        || (reuseport
            && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one))
        || (family == AF_INET6
            && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one))) {
        error = errno;
        *errp = xasprintf("cannot set up %s UDP socket (%s)",
                          udp_batch_family_name(family), ovs_strerror(error));
        close(fd);
        return error;
    }
    *fdp = fd;
    return 0;
}

static struct udp_batch_sock *
sock_create(int fd, const struct udp_batch_options *opts)
{
    struct udp_batch_sock *sock = xzalloc(sizeof *sock);

    sock->fd = fd;
    sock->family = opts->family;
    sock->port = bound_port(fd);
    sock->sndbuf = set_buffer(fd, SO_SNDBUFFORCE, SO_SNDBUF,
                              UDP_BATCH_SOCKBUF_BYTES);
    sock->rcvbuf = set_buffer(fd, SO_RCVBUFFORCE, SO_RCVBUF,
                              UDP_BATCH_SOCKBUF_BYTES);
    sock->gso_supported = kernel_has_gso(fd);
    atomic_init(&sock->gso_active, opts->gso && sock->gso_supported);
    atomic_init(&sock->gso_failed, false);
    for (size_t i = 0; i < UDP_BATCH_N_STATS; i++) {
        atomic_init(&sock->stats[i], 0);
    }
    if (opts->gro) {
        udp_batch_set_gro(sock, true);
    }
    udp_batch_cmsg_want_tos(fd, opts->family);
    return sock;
}

int
udp_batch_open(const struct udp_batch_options *opts,
               struct udp_batch_sock **sockp, char **errp)
{
    char *msg = NULL;
    int fd = -1;
    int error;

    ovs_assert(opts->family == AF_INET || opts->family == AF_INET6);
    *sockp = NULL;
    error = create_socket(opts->family, opts->reuseport, &fd, &msg);
    if (!error) {
        error = bind_port(fd, opts->family, opts->port, &msg);
        if (error) {
            close(fd);
        }
    }
    if (error) {
        if (errp) {
            *errp = msg;
        } else {
            free(msg);
        }
        return error;
    }

    struct udp_batch_sock *sock = sock_create(fd, opts);
    VLOG_DBG("%s UDP port %"PRIu16": GSO %s, GRO %s, sndbuf %d, rcvbuf %d",
             udp_batch_family_name(sock->family), sock->port,
             opts->gso && sock->gso_supported ? "on" : "off",
             sock->gro_active ? "on" : "off", sock->sndbuf, sock->rcvbuf);
    *sockp = sock;
    return 0;
}

void
udp_batch_close(struct udp_batch_sock *sock)
{
    if (sock) {
        close(sock->fd);
        free(sock);
    }
}

int
udp_batch_fd(const struct udp_batch_sock *sock)
{
    return sock->fd;
}

uint16_t
udp_batch_port(const struct udp_batch_sock *sock)
{
    return sock->port;
}

void
udp_batch_get_info(const struct udp_batch_sock *sock_,
                   struct udp_batch_info *info)
{
    struct udp_batch_sock *sock = CONST_CAST(struct udp_batch_sock *, sock_);

    memset(info, 0, sizeof *info);
    info->family = sock->family;
    info->port = sock->port;
    info->gso_supported = sock->gso_supported;
    atomic_read_relaxed(&sock->gso_active, &info->gso_active);
    atomic_read_relaxed(&sock->gso_failed, &info->gso_failed);
    info->gro_active = sock->gro_active;
    info->sndbuf = sock->sndbuf;
    info->rcvbuf = sock->rcvbuf;
}

void
udp_batch_get_stats(const struct udp_batch_sock *sock_,
                    struct udp_batch_stats *stats)
{
    struct udp_batch_sock *sock = CONST_CAST(struct udp_batch_sock *, sock_);
    uint64_t *out = CONST_CAST(uint64_t *, udp_batch_stats_array(stats));

    for (size_t i = 0; i < UDP_BATCH_N_STATS; i++) {
        atomic_read_relaxed(&sock->stats[i], &out[i]);
    }
}

void
udp_batch_set_gso(struct udp_batch_sock *sock, bool enable)
{
    bool failed;

    atomic_read_relaxed(&sock->gso_failed, &failed);
    atomic_store_relaxed(&sock->gso_active,
                         enable && sock->gso_supported && !failed);
}

int
udp_batch_set_gro(struct udp_batch_sock *sock, bool enable)
{
    int value = enable;

    if (setsockopt(sock->fd, SOL_UDP, UDP_GRO, &value, sizeof value)) {
        int error = errno;

        sock->gro_active = false;
        VLOG_DBG("%s UDP port %"PRIu16": UDP_GRO unavailable (%s)",
                 udp_batch_family_name(sock->family), sock->port,
                 ovs_strerror(error));
        return error;
    }
    sock->gro_active = enable;
    return 0;
}

/* Addresses. */

bool
udp_batch_addr_equal(const union udp_batch_addr *a,
                     const union udp_batch_addr *b)
{
    if (a->sa.sa_family != b->sa.sa_family) {
        return false;
    } else if (a->sa.sa_family == AF_INET) {
        return (a->sin.sin_port == b->sin.sin_port
                && a->sin.sin_addr.s_addr == b->sin.sin_addr.s_addr);
    } else {
        return (a->sin6.sin6_port == b->sin6.sin6_port
                && a->sin6.sin6_scope_id == b->sin6.sin6_scope_id
                && !memcmp(&a->sin6.sin6_addr, &b->sin6.sin6_addr,
                           sizeof a->sin6.sin6_addr));
    }
}

/* Receiving. */

void
udp_batch_seg_init(struct udp_batch_seg *seg, const void *data, size_t len,
                   size_t seg_size)
{
    seg->next = data;
    seg->left = len;
    seg->seg_size = seg_size;
    seg->done = false;
}

bool
udp_batch_seg_next(struct udp_batch_seg *seg, const void **datap,
                   size_t *lenp)
{
    size_t len;

    if (seg->done) {
        return false;
    }
    len = seg->left;
    if (seg->seg_size && len > seg->seg_size) {
        len = seg->seg_size;
    }
    *datap = seg->next;
    *lenp = len;
    seg->next += len;
    seg->left -= len;
    seg->done = !seg->left;
    return true;
}

size_t
udp_batch_seg_count(size_t len, size_t seg_size)
{
    if (!len || !seg_size) {
        return 1;
    }
    return DIV_ROUND_UP(len, seg_size);
}

/* Returns the UDP_GRO segment size in the control data of 'mh', or 0. */
static size_t
rx_gro_size(struct msghdr *mh)
{
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(mh); cmsg;
         cmsg = CMSG_NXTHDR(mh, cmsg)) {
        if (cmsg->cmsg_level == SOL_UDP && cmsg->cmsg_type == UDP_GRO
            && cmsg->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int size;

            memcpy(&size, CMSG_DATA(cmsg), sizeof size);
            return size > 0 ? size : 0;
        }
    }
    return 0;
}

static void
rx_swap(struct udp_batch_rx_buf *a, struct udp_batch_rx_buf *b)
{
    struct udp_batch_rx_buf tmp = *a;

    *a = *b;
    *b = tmp;
}

/* Reads the results of recvmmsg() for 'n' buffers into 'bufs', moves the
 * truncated ones behind the others and returns how many are good. */
static size_t
rx_collect(struct udp_batch_rx_buf *bufs, struct mmsghdr *mmsg, size_t n,
           struct udp_batch_stats *d)
{
    size_t good = 0;

    for (size_t i = 0; i < n; i++) {
        struct udp_batch_rx_buf *buf = &bufs[i];
        struct msghdr *mh = &mmsg[i].msg_hdr;

        if (mh->msg_flags & MSG_TRUNC) {
            d->rx_errors++;
            COVERAGE_INC(udp_batch_rx_truncated);
            continue;
        }
        buf->len = mmsg[i].msg_len;
        buf->gro_size = rx_gro_size(mh);
        buf->tos = udp_batch_cmsg_rx_tos(mh);

        size_t n_dgrams = udp_batch_seg_count(buf->len, buf->gro_size);
        d->rx_datagrams += n_dgrams;
        if (n_dgrams > 1) {
            d->rx_gro_reads++;
            d->rx_gro_segments += n_dgrams;
        }
        if (good != i) {
            rx_swap(&bufs[good], buf);
        }
        good++;
    }
    return good;
}

static void
rx_prepare(struct udp_batch_rx_buf *bufs, size_t n, struct mmsghdr *mmsg,
           struct iovec *iov, union udp_batch_rx_cmsg *cmsgs)
{
    for (size_t i = 0; i < n; i++) {
        struct msghdr *mh = &mmsg[i].msg_hdr;

        iov[i].iov_base = bufs[i].data;
        iov[i].iov_len = bufs[i].size;
        memset(&mmsg[i], 0, sizeof mmsg[i]);
        mh->msg_name = &bufs[i].src;
        mh->msg_namelen = sizeof bufs[i].src;
        mh->msg_iov = &iov[i];
        mh->msg_iovlen = 1;
        mh->msg_control = cmsgs[i].buf;
        mh->msg_controllen = sizeof cmsgs[i].buf;
    }
}

int
udp_batch_recv(struct udp_batch_sock *sock, struct udp_batch_rx_buf *bufs,
               size_t n, size_t *n_recv)
{
    struct mmsghdr mmsg[UDP_BATCH_RX_MAX];
    struct iovec iov[UDP_BATCH_RX_MAX];
    union udp_batch_rx_cmsg cmsgs[UDP_BATCH_RX_MAX];
    struct udp_batch_stats d;
    int retval;

    memset(&d, 0, sizeof d);
    *n_recv = 0;
    n = MIN(n, UDP_BATCH_RX_MAX);
    rx_prepare(bufs, n, mmsg, iov, cmsgs);
    do {
        d.rx_calls++;
        retval = recvmmsg(sock->fd, mmsg, n, MSG_DONTWAIT, NULL);
    } while (retval < 0 && errno == EINTR);

    int error = retval < 0 ? errno : 0;
    if (error) {
        if (error != EAGAIN && error != EWOULDBLOCK) {
            d.rx_errors++;
            COVERAGE_INC(udp_batch_rx_error);
        }
    } else {
        *n_recv = rx_collect(bufs, mmsg, retval, &d);
        error = *n_recv ? 0 : EAGAIN;
    }
    udp_batch_stats_merge(sock, &d);
    return error;
}
