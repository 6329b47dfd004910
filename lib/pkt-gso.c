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
#include "pkt-gso.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "csum.h"
#include "packets.h"
#include "pkt-csum.h"
#include "pkt-ip.h"
#include "pkt-util.h"
#include "unaligned.h"

/* pkt_gso_job_sums() zeroes these pairs of fields together. */
BUILD_ASSERT_DECL(PKT_IP4_OFS(ip_id) == PKT_IP4_OFS(ip_tot_len) + 2);
BUILD_ASSERT_DECL(PKT_TCP_OFS(tcp_urg) == PKT_TCP_OFS(tcp_csum) + 2);

size_t
pkt_gso_n_segs(const struct pkt_ip_info *info, size_t mss)
{
    return (info->payload_len && mss
            ? DIV_ROUND_UP(info->payload_len, mss)
            : 1);
}

size_t
pkt_gso_seg_len(const struct pkt_ip_info *info, size_t mss, size_t i)
{
    size_t ofs = i * mss;
    size_t payload = (ofs < info->payload_len
                      ? MIN(mss, info->payload_len - ofs) : 0);

    return info->l3_len + info->l4_len + payload;
}

size_t
pkt_gso_mss_for_mtu(const struct pkt_ip_info *info, size_t mtu)
{
    size_t hdr_len = info->l3_len + info->l4_len;

    return mtu > hdr_len ? mtu - hdr_len : 0;
}

/* What one pkt_gso_segment() call shares among its segments. */
struct pkt_gso_job {
    const uint8_t *pkt;         /* The super-packet. */
    struct pkt_ip_info info;
    size_t hdr_len;             /* IP + TCP header bytes. */
    uint32_t ip_base;           /* IPv4 header sum without the fields that
                                 * change per segment. */
    uint32_t tcp_base;          /* Pseudo-header sum without the length,
                                 * plus the TCP header sum without the
                                 * fields that change per segment. */
    uint16_t ip_id;             /* IPv4 identification of the first. */
    uint16_t flags;             /* TCP flags of the super-packet. */
    uint32_t seq;               /* TCP sequence number of the first. */
    uint16_t urg;               /* TCP urgent pointer of the super-packet. */
};

/* Sets the IP header fields of the segment at 'out' that carries 'payload'
 * bytes and is the 'idx'th of 'job'. */
static void
pkt_gso_fix_ip(const struct pkt_gso_job *job, uint8_t *out, size_t idx,
               size_t payload)
{
    if (job->info.ipv6) {
        pkt_put16(out + PKT_IP6_OFS(ip6_plen),
                      job->hdr_len - IPV6_HEADER_LEN + payload);
    } else {
        ovs_be16 tot_len = htons(job->hdr_len + payload);
        ovs_be16 id = htons((uint16_t) (job->ip_id + idx));
        uint32_t sum = csum_add16(csum_add16(job->ip_base, tot_len), id);

        pkt_put_be16(out + PKT_IP4_OFS(ip_tot_len), tot_len);
        pkt_put_be16(out + PKT_IP4_OFS(ip_id), id);
        pkt_put_be16(out + PKT_IP4_OFS(ip_csum), csum_finish(sum));
    }
}

/* Sets the TCP header fields, except the checksum, of the segment at 'tcp'
 * whose payload starts 'ofs' bytes into the super-packet's payload.
 * Returns the partial sum of the fields it set. */
static uint32_t
pkt_gso_fix_tcp(const struct pkt_gso_job *job, uint8_t *tcp, size_t ofs,
                bool first, bool last)
{
    uint16_t flags = job->flags;
    uint16_t urg = job->urg;
    ovs_be32 seq;
    ovs_be16 ctl;

    if (!last) {
        flags &= ~(TCP_FIN | TCP_PSH);
    }
    if (!first) {
        flags &= ~TCP_CWR;
    }
    if (flags & TCP_URG) {
        if (urg > ofs) {
            urg -= ofs;
        } else {
            flags &= ~TCP_URG;
            urg = 0;
        }
    }
    seq = htonl(job->seq + ofs);
    ctl = TCP_CTL(flags, job->info.l4_len / 4);
    put_unaligned_be32((ovs_be32 *) (tcp + PKT_TCP_OFS(tcp_seq)), seq);
    pkt_put_be16(tcp + PKT_TCP_OFS(tcp_ctl), ctl);
    pkt_put16(tcp + PKT_TCP_OFS(tcp_urg), urg);
    return csum_add16(csum_add16(csum_add32(0, seq), ctl), htons(urg));
}

/* Writes segment 'idx' of 'job' (payload bytes 'ofs' to 'ofs' + 'payload'
 * of the super-packet) at 'out'. */
static void
pkt_gso_write_seg(const struct pkt_gso_job *job, uint8_t *out, size_t idx,
                  size_t ofs, size_t payload, bool last)
{
    uint8_t *tcp = out + job->info.l3_len;
    uint32_t sum;

    memcpy(out, job->pkt, job->hdr_len);
    pkt_gso_fix_ip(job, out, idx, payload);
    sum = pkt_gso_fix_tcp(job, tcp, ofs, idx == 0, last) + job->tcp_base;
    sum = pkt_ip_pseudo_add_len(sum, job->info.l4_len + payload);
    sum = pkt_csum_copy(out + job->hdr_len, job->pkt + job->hdr_len + ofs,
                        payload, sum);
    pkt_put_be16(tcp + PKT_TCP_OFS(tcp_csum), csum_finish(sum));
}

/* Computes the header sums of 'job' that every segment starts from: the
 * headers with the fields that change per segment zeroed. */
static void
pkt_gso_job_sums(struct pkt_gso_job *job)
{
    const uint8_t *tcp = job->pkt + job->info.l3_len;
    uint8_t hdr[60];            /* Largest IPv4 or TCP header. */

    if (!job->info.ipv6) {
        memcpy(hdr, job->pkt, job->info.l3_len);
        memset(hdr + PKT_IP4_OFS(ip_tot_len), 0, 4);        /* And ip_id. */
        memset(hdr + PKT_IP4_OFS(ip_csum), 0, 2);
        job->ip_base = pkt_csum_partial(hdr, job->info.l3_len, 0);
    }
    memcpy(hdr, tcp, job->info.l4_len);
    memset(hdr + PKT_TCP_OFS(tcp_seq), 0, 4);
    memset(hdr + PKT_TCP_OFS(tcp_ctl), 0, 2);
    memset(hdr + PKT_TCP_OFS(tcp_csum), 0, 4);              /* And tcp_urg. */
    job->tcp_base = pkt_csum_partial(hdr, job->info.l4_len,
                                     pkt_ip_pseudo_base(job->pkt,
                                                        job->info.ipv6,
                                                        IPPROTO_TCP));
}

/* Initializes 'job' for the packet 'pkt' parsed into 'info'. */
static int
pkt_gso_job_init(struct pkt_gso_job *job, const uint8_t *pkt,
                 const struct pkt_ip_info *info)
{
    const uint8_t *tcp;

    if (info->l4_proto != IPPROTO_TCP) {
        return EINVAL;
    }
    job->info = *info;
    tcp = pkt + job->info.l3_len;
    job->pkt = pkt;
    job->hdr_len = job->info.l3_len + job->info.l4_len;
    job->ip_id = job->info.ipv6 ? 0 : pkt_get16(pkt + PKT_IP4_OFS(ip_id));
    job->flags = pkt_ip_tcp_flags(tcp);
    job->seq = pkt_get32(tcp + PKT_TCP_OFS(tcp_seq));
    job->urg = pkt_get16(tcp + PKT_TCP_OFS(tcp_urg));
    pkt_gso_job_sums(job);
    return 0;
}

int
pkt_gso_segment(const void *pkt, size_t len,
                const struct pkt_gso_params *params,
                struct pkt_gso_slot *slots, size_t n_slots, size_t *n_segs)
{
    struct pkt_ip_info info;

    *n_segs = 0;
    return (pkt_ip_parse(pkt, len, &info)
            ? EINVAL
            : pkt_gso_segment_parsed(pkt, &info, params, slots, n_slots,
                                     n_segs));
}

int
pkt_gso_segment_parsed(const void *pkt, const struct pkt_ip_info *info,
                       const struct pkt_gso_params *params,
                       struct pkt_gso_slot *slots, size_t n_slots,
                       size_t *n_segs)
{
    struct pkt_gso_job job;
    size_t n, ofs = 0;

    *n_segs = 0;
    if (!params->mss || pkt_gso_job_init(&job, pkt, info)) {
        return EINVAL;
    }
    n = pkt_gso_n_segs(&job.info, params->mss);
    if (n > n_slots) {
        return ENOSPC;
    }
    for (size_t i = 0; i < n; i++) {
        size_t seg_len = pkt_gso_seg_len(&job.info, params->mss, i);
        size_t payload = seg_len - job.hdr_len;
        struct pkt_gso_slot *slot = &slots[i];

        if (slot->room < params->headroom
            || slot->room - params->headroom < seg_len + params->tailroom) {
            return ENOSPC;
        }
        pkt_gso_write_seg(&job, slot->base + params->headroom, i, ofs,
                          payload, i == n - 1);
        slot->len = seg_len;
        ofs += payload;
    }
    *n_segs = n;
    return 0;
}
