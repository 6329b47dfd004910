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

#include <config.h>
#include "udp-batch.h"

#include <errno.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "coverage.h"
#include "openvswitch/vlog.h"
#include "ovs-atomic.h"
#include "ovs-thread.h"
#include "udp-batch-cmsg.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(udp_batch);

COVERAGE_DEFINE(udp_batch_gso_fallback);
COVERAGE_DEFINE(udp_batch_tx_busy);
COVERAGE_DEFINE(udp_batch_tx_error);
COVERAGE_DEFINE(udp_batch_rx_truncated);
COVERAGE_DEFINE(udp_batch_rx_error);

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
    struct ovs_mutex mutex;
    struct udp_batch_stats stats OVS_GUARDED;
};

/* Room for the control messages of one read: UDP_GRO, with slack. */
union udp_batch_rx_cmsg {
    struct cmsghdr align;
    char buf[CMSG_SPACE(sizeof(int)) + 64];
};

/* Which queued messages one mmsghdr carries. */
struct udp_batch_span {
    size_t first;
    size_t count;
};

struct udp_batch_tx {
    size_t n, max;
    struct udp_batch_msg *msgs;     /* [max] */
    struct iovec *iov;              /* [max], iov[i] describes msgs[i]. */
    struct mmsghdr *mmsg;           /* [max] */
    struct udp_batch_span *spans;   /* [max], spans[k] for mmsg[k]. */
    union udp_batch_tx_cmsg *cmsgs; /* [max] */
};

int (*udp_batch_sendmmsg_hook)(int fd, struct mmsghdr *msgs,
                               unsigned int n, int flags);

static struct vlog_rate_limit gso_rl = VLOG_RATE_LIMIT_INIT(1, 5);
static struct vlog_rate_limit err_rl = VLOG_RATE_LIMIT_INIT(5, 20);

static const char *
family_name(int family)
{
    return family == AF_INET ? "IPv4" : "IPv6";
}

static socklen_t
addr_len(int family)
{
    return (family == AF_INET
            ? sizeof(struct sockaddr_in)
            : sizeof(struct sockaddr_in6));
}

static void
stats_merge(struct udp_batch_sock *sock, const struct udp_batch_stats *d)
{
    struct udp_batch_stats *s = &sock->stats;

    ovs_mutex_lock(&sock->mutex);
    s->tx_calls += d->tx_calls;
    s->tx_datagrams += d->tx_datagrams;
    s->tx_gso_sends += d->tx_gso_sends;
    s->tx_gso_segments += d->tx_gso_segments;
    s->tx_gso_fallbacks += d->tx_gso_fallbacks;
    s->tx_busy += d->tx_busy;
    s->tx_errors += d->tx_errors;
    s->rx_calls += d->rx_calls;
    s->rx_datagrams += d->rx_datagrams;
    s->rx_gro_reads += d->rx_gro_reads;
    s->rx_gro_segments += d->rx_gro_segments;
    s->rx_errors += d->rx_errors;
    ovs_mutex_unlock(&sock->mutex);
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
    if (!bind(fd, &addr.sa, addr_len(family))) {
        return 0;
    }

    int error = errno;
    if (error == EADDRINUSE) {
        *errp = xasprintf("UDP port %"PRIu16" is already in use (%s)",
                          port, family_name(family));
    } else {
        *errp = xasprintf("cannot bind %s UDP port %"PRIu16" (%s)",
                          family_name(family), port, ovs_strerror(error));
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
create_socket(int family, int *fdp, char **errp)
{
    int fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    IPPROTO_UDP);
    int error;

    if (fd < 0) {
        error = errno;
        *errp = xasprintf("cannot create %s UDP socket (%s)",
                          family_name(family), ovs_strerror(error));
        return error;
    }

    int zero = 0;
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &zero, sizeof zero)
        || (family == AF_INET6
            && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one))) {
        error = errno;
        *errp = xasprintf("cannot set up %s UDP socket (%s)",
                          family_name(family), ovs_strerror(error));
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
    ovs_mutex_init(&sock->mutex);
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
    error = create_socket(opts->family, &fd, &msg);
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
             family_name(sock->family), sock->port,
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
        ovs_mutex_destroy(&sock->mutex);
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

    ovs_mutex_lock(&sock->mutex);
    *stats = sock->stats;
    ovs_mutex_unlock(&sock->mutex);
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
                 family_name(sock->family), sock->port, ovs_strerror(error));
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

/* Sending. */

struct udp_batch_tx *
udp_batch_tx_create(size_t max)
{
    struct udp_batch_tx *tx = xzalloc(sizeof *tx);

    ovs_assert(max > 0);
    tx->max = max;
    tx->msgs = xcalloc(max, sizeof *tx->msgs);
    tx->iov = xcalloc(max, sizeof *tx->iov);
    tx->mmsg = xcalloc(max, sizeof *tx->mmsg);
    tx->spans = xcalloc(max, sizeof *tx->spans);
    tx->cmsgs = xcalloc(max, sizeof *tx->cmsgs);
    return tx;
}

void
udp_batch_tx_destroy(struct udp_batch_tx *tx)
{
    if (tx) {
        free(tx->msgs);
        free(tx->iov);
        free(tx->mmsg);
        free(tx->spans);
        free(tx->cmsgs);
        free(tx);
    }
}

bool
udp_batch_tx_add(struct udp_batch_tx *tx, const void *data, size_t size,
                 const struct sockaddr *dst)
{
    return udp_batch_tx_add_tos(tx, data, size, dst, 0);
}

bool
udp_batch_tx_add_tos(struct udp_batch_tx *tx, const void *data, size_t size,
                     const struct sockaddr *dst, uint8_t tos)
{
    if (tx->n >= tx->max) {
        return false;
    }
    ovs_assert(dst->sa_family == AF_INET || dst->sa_family == AF_INET6);

    struct udp_batch_msg *msg = &tx->msgs[tx->n];
    msg->data = data;
    msg->size = size;
    msg->tos = tos;
    memset(&msg->dst, 0, sizeof msg->dst);
    memcpy(&msg->dst, dst, addr_len(dst->sa_family));
    tx->iov[tx->n].iov_base = CONST_CAST(void *, data);
    tx->iov[tx->n].iov_len = size;
    tx->n++;
    return true;
}

size_t
udp_batch_tx_count(const struct udp_batch_tx *tx)
{
    return tx->n;
}

size_t
udp_batch_gso_run(const struct udp_batch_msg *msgs, size_t n)
{
    size_t seg_size = msgs[0].size;
    size_t total = seg_size;
    size_t i;

    if (!seg_size) {
        return 1;
    }
    for (i = 1; i < n && i < UDP_BATCH_MAX_SEGMENTS; i++) {
        const struct udp_batch_msg *m = &msgs[i];

        if (!m->size || m->size > seg_size
            || total + m->size > UDP_BATCH_GSO_MAX_BYTES
            || m->tos != msgs[0].tos
            || !udp_batch_addr_equal(&m->dst, &msgs[0].dst)) {
            break;
        }
        total += m->size;
        if (m->size < seg_size) {
            /* A shorter datagram can only be the last segment. */
            i++;
            break;
        }
    }
    return i;
}

/* Makes tx->mmsg[k] carry 'count' messages starting at msgs[first], with a
 * UDP_SEGMENT control message if there are several. */
static void
tx_fill_mmsg(struct udp_batch_tx *tx, size_t k, size_t first, size_t count)
{
    struct msghdr *mh = &tx->mmsg[k].msg_hdr;
    struct udp_batch_msg *msg = &tx->msgs[first];

    memset(mh, 0, sizeof *mh);
    mh->msg_name = &msg->dst;
    mh->msg_namelen = addr_len(msg->dst.sa.sa_family);
    mh->msg_iov = &tx->iov[first];
    mh->msg_iovlen = count;
    udp_batch_cmsg_put_tx(mh, &tx->cmsgs[k], msg, count);
    tx->spans[k].first = first;
    tx->spans[k].count = count;
}

/* Fills tx->mmsg[] for the messages from msgs[first] to the end, grouping
 * them into GSO runs if 'gso'.  Returns the number of mmsghdrs. */
static size_t
tx_build(struct udp_batch_tx *tx, size_t first, bool gso)
{
    size_t k = 0;

    for (size_t i = first; i < tx->n; k++) {
        size_t count = gso ? udp_batch_gso_run(&tx->msgs[i], tx->n - i) : 1;

        tx_fill_mmsg(tx, k, i, count);
        i += count;
    }
    return k;
}

static void
tx_account_sent(const struct udp_batch_span *span,
                struct udp_batch_stats *d)
{
    d->tx_datagrams += span->count;
    if (span->count > 1) {
        d->tx_gso_sends++;
        d->tx_gso_segments += span->count;
    }
}

/* Sends 'msg' alone, without GSO.  Returns 0 or an errno value. */
static int
tx_send_plain(struct udp_batch_sock *sock, struct udp_batch_msg *msg,
              struct udp_batch_stats *d)
{
    struct iovec iov = {
        .iov_base = CONST_CAST(void *, msg->data),
        .iov_len = msg->size,
    };
    struct msghdr mh = {
        .msg_name = &msg->dst,
        .msg_namelen = addr_len(msg->dst.sa.sa_family),
        .msg_iov = &iov,
        .msg_iovlen = 1,
    };
    union udp_batch_tx_cmsg room;
    ssize_t retval;

    udp_batch_cmsg_put_tx(&mh, &room, msg, 1);
    do {
        d->tx_calls++;
        retval = sendmsg(sock->fd, &mh, 0);
    } while (retval < 0 && errno == EINTR);
    return retval < 0 ? errno : 0;
}

/* Turns GSO off for 'sock' after 'error'; logs and counts once. */
static void
tx_disable_gso(struct udp_batch_sock *sock, int error,
               struct udp_batch_stats *d)
{
    bool was_failed;

    atomic_store_relaxed(&sock->gso_active, false);
    was_failed = atomic_exchange(&sock->gso_failed, true);
    if (!was_failed) {
        d->tx_gso_fallbacks++;
        COVERAGE_INC(udp_batch_gso_fallback);
        VLOG_WARN_RL(&gso_rl, "%s UDP port %"PRIu16": UDP GSO send failed "
                     "(%s), sending without GSO from now on",
                     family_name(sock->family), sock->port,
                     ovs_strerror(error));
    }
}

/* Decides what a GSO send that failed with 'error' means.  EIO means the
 * route cannot do UDP GSO (no checksum offload).  EINVAL may mean the
 * same (segment larger than the route's MTU, checksums turned off) or a
 * bad destination: a plain send of the first datagram tells them apart.
 * Returns true if GSO is at fault: then GSO is off for 'sock' and
 * '*n_sent' (0 or 1) datagrams of 'span' already left. */
static bool
tx_gso_at_fault(struct udp_batch_sock *sock, struct udp_batch_tx *tx,
                const struct udp_batch_span *span, int error,
                size_t *n_sent, struct udp_batch_stats *d)
{
    *n_sent = 0;
    if (error == EINVAL) {
        int plain_error = tx_send_plain(sock, &tx->msgs[span->first], d);

        if (plain_error == EINVAL) {
            return false;
        }
        if (!plain_error) {
            d->tx_datagrams++;
            *n_sent = 1;
        }
    } else if (error != EIO) {
        return false;
    }
    tx_disable_gso(sock, error, d);
    return true;
}

/* Sends tx->mmsg[0 .. n_mmsg - 1].  Returns the index of the first message
 * still to send (tx->n when done): after a GSO failure the caller rebuilds
 * from there without GSO.  Updates '*first_error'. */
static size_t
tx_send_mmsg(struct udp_batch_sock *sock, struct udp_batch_tx *tx,
             size_t n_mmsg, int *first_error, struct udp_batch_stats *d)
{
    size_t k = 0;

    while (k < n_mmsg) {
        const struct udp_batch_span *span = &tx->spans[k];
        int retval;

        d->tx_calls++;
        retval = (udp_batch_sendmmsg_hook ? udp_batch_sendmmsg_hook
                  : sendmmsg)(sock->fd, &tx->mmsg[k], n_mmsg - k, 0);
        if (retval > 0) {
            for (int j = 0; j < retval; j++) {
                tx_account_sent(&tx->spans[k + j], d);
            }
            k += retval;
            continue;
        }

        /* sendmmsg() returns 0 only for an empty batch: treat it as a full
         * socket buffer rather than loop. */
        int error = retval < 0 ? errno : ENOBUFS;
        size_t n_sent;
        if (error == EINTR) {
            continue;
        } else if (span->count > 1
                   && tx_gso_at_fault(sock, tx, span, error, &n_sent, d)) {
            return span->first + n_sent;
        }

        if (!*first_error) {
            *first_error = error;
        }
        if (error == EAGAIN || error == EWOULDBLOCK || error == ENOBUFS) {
            size_t rest = tx->n - span->first;

            d->tx_busy += rest;
            COVERAGE_ADD(udp_batch_tx_busy, rest);
            return tx->n;
        }
        d->tx_errors += span->count;
        COVERAGE_ADD(udp_batch_tx_error, span->count);
        VLOG_WARN_RL(&err_rl, "%s UDP port %"PRIu16": send failed (%s)",
                     family_name(sock->family), sock->port,
                     ovs_strerror(error));
        k++;
    }
    return tx->n;
}

size_t
udp_batch_tx_flush(struct udp_batch_tx *tx, struct udp_batch_sock *sock,
                   int *errorp)
{
    struct udp_batch_stats d;
    int first_error = 0;
    size_t next = 0;

    memset(&d, 0, sizeof d);
    for (size_t i = 0; i < tx->n; i++) {
        ovs_assert(tx->msgs[i].dst.sa.sa_family == sock->family);
    }
    while (next < tx->n) {
        bool gso;

        atomic_read_relaxed(&sock->gso_active, &gso);
        next = tx_send_mmsg(sock, tx, tx_build(tx, next, gso),
                            &first_error, &d);
    }
    tx->n = 0;
    stats_merge(sock, &d);
    if (errorp) {
        *errorp = first_error;
    }
    return d.tx_datagrams;
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
    stats_merge(sock, &d);
    return error;
}
