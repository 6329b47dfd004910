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
#include "udp-batch-cmsg.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/vlog.h"
#include "util.h"

VLOG_DEFINE_THIS_MODULE(udp_batch_cmsg);

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 20);

/* Appends a control message of 'level', 'type' and the 'len' bytes at
 * 'data' to 'mh', whose msg_control has room for it. */
static void
tx_put_cmsg(struct msghdr *mh, int level, int type, const void *data,
            size_t len)
{
    struct cmsghdr *cmsg = (struct cmsghdr *) ((char *) mh->msg_control
                                               + mh->msg_controllen);

    memset(cmsg, 0, CMSG_SPACE(len));
    cmsg->cmsg_level = level;
    cmsg->cmsg_type = type;
    cmsg->cmsg_len = CMSG_LEN(len);
    memcpy(CMSG_DATA(cmsg), data, len);
    mh->msg_controllen += CMSG_SPACE(len);
}

void
udp_batch_cmsg_put_tx(struct msghdr *mh, union udp_batch_tx_cmsg *room,
             const struct udp_batch_msg *msg, size_t count)
{
    mh->msg_control = room->buf;
    mh->msg_controllen = 0;
    if (count > 1) {
        uint16_t seg_size = msg->size;
        tx_put_cmsg(mh, SOL_UDP, UDP_SEGMENT, &seg_size, sizeof seg_size);
    }
    if (msg->tos) {
        int tos = msg->tos;
        bool v6 = msg->dst.sa.sa_family == AF_INET6;
        tx_put_cmsg(mh, v6 ? IPPROTO_IPV6 : IPPROTO_IP,
                    v6 ? IPV6_TCLASS : IP_TOS, &tos, sizeof tos);
    }
    if (!mh->msg_controllen) {
        mh->msg_control = NULL;
    }
}

uint8_t
udp_batch_cmsg_rx_tos(struct msghdr *mh)
{
    for (struct cmsghdr *cmsg = CMSG_FIRSTHDR(mh); cmsg;
         cmsg = CMSG_NXTHDR(mh, cmsg)) {
        if (cmsg->cmsg_level == IPPROTO_IP && cmsg->cmsg_type == IP_TOS
            && cmsg->cmsg_len >= CMSG_LEN(sizeof(uint8_t))) {
            return *(uint8_t *) CMSG_DATA(cmsg);
        } else if (cmsg->cmsg_level == IPPROTO_IPV6
                   && cmsg->cmsg_type == IPV6_TCLASS
                   && cmsg->cmsg_len >= CMSG_LEN(sizeof(int))) {
            int tclass;
            memcpy(&tclass, CMSG_DATA(cmsg), sizeof tclass);
            return tclass;
        }
    }
    return 0;
}

void
udp_batch_cmsg_want_tos(int fd, int family)
{
    int on = 1;

    if (setsockopt(fd, family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
                   family == AF_INET6 ? IPV6_RECVTCLASS : IP_RECVTOS,
                   &on, sizeof on)) {
        VLOG_WARN_RL(&rl, "%s socket: cannot read the TOS of datagrams "
                     "(%s): ECN marks are not carried in",
                     family == AF_INET6 ? "IPv6" : "IPv4",
                     ovs_strerror(errno));
    }
}

