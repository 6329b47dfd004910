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

/* Sending (udp-batch.h): the send batch, messages to one destination
 * grouped into one UDP GSO sendmsg() where the socket has it, sendmmsg()
 * otherwise, and the fallbacks when the kernel refuses GSO at run time. */

#include <config.h>
#include "udp-batch.h"
#include "udp-batch-private.h"

#include <errno.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/uio.h>

#include "coverage.h"
#include "openvswitch/vlog.h"
#include "socket-util.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(udp_batch_tx);

COVERAGE_DEFINE(udp_batch_gso_fallback);
COVERAGE_DEFINE(udp_batch_tx_busy);
COVERAGE_DEFINE(udp_batch_tx_error);

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

#ifdef WG_TEST_HOOKS
int (*udp_batch_sendmmsg_hook)(int fd, struct mmsghdr *msgs,
                               unsigned int n, unsigned int flags);
#define UDP_BATCH_SENDMMSG (udp_batch_sendmmsg_hook ? udp_batch_sendmmsg_hook \
                            : sendmmsg)
#else
#define UDP_BATCH_SENDMMSG sendmmsg
#endif

static struct vlog_rate_limit gso_rl = VLOG_RATE_LIMIT_INIT(1, 5);
static struct vlog_rate_limit err_rl = VLOG_RATE_LIMIT_INIT(5, 20);

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
    return udp_batch_tx_add_tagged(tx, data, size, dst, tos,
                                   UDP_BATCH_NO_TAG);
}

bool
udp_batch_tx_add_tagged(struct udp_batch_tx *tx, const void *data,
                        size_t size, const struct sockaddr *dst, uint8_t tos,
                        size_t tag)
{
    if (tx->n >= tx->max) {
        return false;
    }
    ovs_assert(dst->sa_family == AF_INET || dst->sa_family == AF_INET6);

    struct udp_batch_msg *msg = &tx->msgs[tx->n];
    msg->data = data;
    msg->size = size;
    msg->tos = tos;
    msg->tag = tag;
    memset(&msg->dst, 0, sizeof msg->dst);
    memcpy(&msg->dst, dst, sa_length(dst));
    tx->iov[tx->n].iov_base = CONST_CAST(void *, data);
    tx->iov[tx->n].iov_len = size;
    tx->n++;
    return true;
}

void
udp_batch_tx_clear(struct udp_batch_tx *tx)
{
    tx->n = 0;
}

size_t
udp_batch_tx_count(const struct udp_batch_tx *tx)
{
    return tx->n;
}

const struct udp_batch_msg *
udp_batch_tx_msgs(const struct udp_batch_tx *tx)
{
    return tx->msgs;
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
 * UDP_SEGMENT control message if there are several and their TOS. */
static void
tx_fill_mmsg(struct udp_batch_tx *tx, size_t k, size_t first, size_t count)
{
    struct msghdr *mh = &tx->mmsg[k].msg_hdr;
    struct udp_batch_msg *msg = &tx->msgs[first];

    memset(mh, 0, sizeof *mh);
    mh->msg_name = &msg->dst;
    mh->msg_namelen = sa_length(&msg->dst.sa);
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
        .msg_namelen = sa_length(&msg->dst.sa),
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
                     udp_batch_family_name(sock->family), sock->port,
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
        retval = UDP_BATCH_SENDMMSG(sock->fd, &tx->mmsg[k], n_mmsg - k, 0);
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
                     udp_batch_family_name(sock->family), sock->port,
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
    udp_batch_stats_merge(sock, &d);
    if (errorp) {
        *errorp = first_error;
    }
    return d.tx_datagrams;
}
