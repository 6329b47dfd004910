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

#include "crc32c.h"
#include "csum.h"
#include "packets.h"
#include "pkt-csum.h"
#include "pkt-util.h"
#include "unaligned.h"

/* Fields are read and written through unaligned accessors at offsets taken
 * from OVS's header structs, because the packets may sit at any alignment. */
#define IP4_OFS(FIELD) offsetof(struct ip_header, FIELD)
#define IP6_PLEN_OFS 4
#define IP6_NXT_OFS 6
#define IP6_ADDRS_OFS 8
#define IP6_ADDRS_LEN 32
#define TCP_OFS(FIELD) offsetof(struct tcp_header, FIELD)
#define UDP_CSUM_OFS offsetof(struct udp_header, udp_csum)
#define SCTP_CSUM_OFS offsetof(struct sctp_header, sctp_csum)

/* pkt_gso_job_sums() zeroes these pairs of fields together. */
BUILD_ASSERT_DECL(IP4_OFS(ip_id) == IP4_OFS(ip_tot_len) + 2);
BUILD_ASSERT_DECL(TCP_OFS(tcp_urg) == TCP_OFS(tcp_csum) + 2);

/* Stores checksum 'csum' (in network byte order already) at 'p'. */
static inline void
pkt_gso_put_csum(uint8_t *p, ovs_be16 csum)
{
    put_unaligned_be16((ovs_be16 *) p, csum);
}

static int
pkt_gso_parse_ipv4(const uint8_t *p, size_t len, struct pkt_gso_info *info)
{
    size_t ihl, tot_len;

    if (len < IP_HEADER_LEN || IP_VER(p[0]) != 4) {
        return EINVAL;
    }
    ihl = IP_IHL(p[0]) * 4;
    tot_len = pkt_get16(p + IP4_OFS(ip_tot_len));
    if (ihl < IP_HEADER_LEN || tot_len < ihl || tot_len > len
        || pkt_get16(p + IP4_OFS(ip_frag_off))
           & (IP_MORE_FRAGMENTS | IP_FRAG_OFF_MASK)) {
        return EINVAL;
    }
    info->ipv6 = false;
    info->l4_proto = p[IP4_OFS(ip_proto)];
    info->l3_len = ihl;
    info->pkt_len = tot_len;
    return 0;
}

static int
pkt_gso_parse_ipv6(const uint8_t *p, size_t len, struct pkt_gso_info *info)
{
    size_t tot_len, ofs = IPV6_HEADER_LEN;
    uint8_t nxt;

    if (len < IPV6_HEADER_LEN || IP_VER(p[0]) != 6) {
        return EINVAL;
    }
    tot_len = IPV6_HEADER_LEN + pkt_get16(p + IP6_PLEN_OFS);
    if (tot_len > len) {
        return EINVAL;
    }
    nxt = p[IP6_NXT_OFS];
    while (nxt == IPPROTO_HOPOPTS || nxt == IPPROTO_DSTOPTS) {
        if (ofs + 8 > tot_len) {
            return EINVAL;
        }
        nxt = p[ofs];
        ofs += (p[ofs + 1] + 1) * 8;
    }
    if (ofs > tot_len || nxt == IPPROTO_ROUTING || nxt == IPPROTO_FRAGMENT) {
        return EINVAL;
    }
    info->ipv6 = true;
    info->l4_proto = nxt;
    info->l3_len = ofs;
    info->pkt_len = tot_len;
    return 0;
}

int
pkt_gso_parse(const void *pkt_, size_t len, struct pkt_gso_info *info)
{
    const uint8_t *pkt = pkt_;
    size_t room;
    int error;

    if (!len) {
        return EINVAL;
    }
    error = (IP_VER(pkt[0]) == 6
             ? pkt_gso_parse_ipv6(pkt, len, info)
             : pkt_gso_parse_ipv4(pkt, len, info));
    if (error) {
        return error;
    }

    room = info->pkt_len - info->l3_len;
    switch (info->l4_proto) {
    case IPPROTO_TCP:
        info->l4_len = (room >= TCP_HEADER_LEN
                        ? (pkt_get16(pkt + info->l3_len
                                         + TCP_OFS(tcp_ctl)) >> 12) * 4
                        : 0);
        if (info->l4_len < TCP_HEADER_LEN) {
            return EINVAL;
        }
        break;
    case IPPROTO_UDP:
        info->l4_len = UDP_HEADER_LEN;
        break;
    case IPPROTO_SCTP:
        info->l4_len = SCTP_HEADER_LEN;
        break;
    default:
        info->l4_len = 0;
        break;
    }
    if (info->l4_len > room) {
        return EINVAL;
    }
    info->payload_len = room - info->l4_len;
    return 0;
}

size_t
pkt_gso_n_segs(const struct pkt_gso_info *info, size_t mss)
{
    return (info->payload_len && mss
            ? DIV_ROUND_UP(info->payload_len, mss)
            : 1);
}

size_t
pkt_gso_mss_for_mtu(const struct pkt_gso_info *info, size_t mtu)
{
    size_t hdr_len = info->l3_len + info->l4_len;

    return mtu > hdr_len ? mtu - hdr_len : 0;
}

/* Returns the partial sum of the pseudo header of the packet at 'p'
 * described by 'info', without the upper-layer length. */
static uint32_t
pkt_gso_pseudo_base(const uint8_t *p, const struct pkt_gso_info *info)
{
    uint32_t sum = (info->ipv6
                    ? pkt_csum_partial(p + IP6_ADDRS_OFS, IP6_ADDRS_LEN, 0)
                    : pkt_csum_partial(p + IP4_OFS(ip_src), 8, 0));

    return csum_add16(sum, htons(info->l4_proto));
}

/* Adds upper-layer length 'l4_total' to pseudo-header sum 'base'. */
static inline uint32_t
pkt_gso_pseudo_len(uint32_t base, size_t l4_total)
{
    return csum_add32(base, htonl(l4_total));
}

/* What one pkt_gso_segment() call shares among its segments. */
struct pkt_gso_job {
    const uint8_t *pkt;         /* The super-packet. */
    struct pkt_gso_info info;
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
        pkt_put16(out + IP6_PLEN_OFS,
                      job->hdr_len - IPV6_HEADER_LEN + payload);
    } else {
        ovs_be16 tot_len = htons(job->hdr_len + payload);
        ovs_be16 id = htons((uint16_t) (job->ip_id + idx));
        uint32_t sum = csum_add16(csum_add16(job->ip_base, tot_len), id);

        put_unaligned_be16((ovs_be16 *) (out + IP4_OFS(ip_tot_len)), tot_len);
        put_unaligned_be16((ovs_be16 *) (out + IP4_OFS(ip_id)), id);
        pkt_gso_put_csum(out + IP4_OFS(ip_csum), csum_finish(sum));
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
    ctl = htons((job->info.l4_len / 4) << 12 | flags);
    put_unaligned_be32((ovs_be32 *) (tcp + TCP_OFS(tcp_seq)), seq);
    put_unaligned_be16((ovs_be16 *) (tcp + TCP_OFS(tcp_ctl)), ctl);
    pkt_put16(tcp + TCP_OFS(tcp_urg), urg);
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
    sum = pkt_gso_pseudo_len(sum, job->info.l4_len + payload);
    sum = pkt_csum_copy(out + job->hdr_len, job->pkt + job->hdr_len + ofs,
                        payload, sum);
    pkt_gso_put_csum(tcp + TCP_OFS(tcp_csum), csum_finish(sum));
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
        memset(hdr + IP4_OFS(ip_tot_len), 0, 4);        /* And ip_id. */
        memset(hdr + IP4_OFS(ip_csum), 0, 2);
        job->ip_base = pkt_csum_partial(hdr, job->info.l3_len, 0);
    }
    memcpy(hdr, tcp, job->info.l4_len);
    memset(hdr + TCP_OFS(tcp_seq), 0, 4);
    memset(hdr + TCP_OFS(tcp_ctl), 0, 2);
    memset(hdr + TCP_OFS(tcp_csum), 0, 4);              /* And tcp_urg. */
    job->tcp_base = pkt_csum_partial(hdr, job->info.l4_len,
                                     pkt_gso_pseudo_base(job->pkt,
                                                         &job->info));
}

/* Initializes 'job' for the TCP packet 'pkt' of 'len' bytes. */
static int
pkt_gso_job_init(struct pkt_gso_job *job, const uint8_t *pkt, size_t len)
{
    const uint8_t *tcp;
    int error;

    error = pkt_gso_parse(pkt, len, &job->info);
    if (error || job->info.l4_proto != IPPROTO_TCP) {
        return EINVAL;
    }
    tcp = pkt + job->info.l3_len;
    job->pkt = pkt;
    job->hdr_len = job->info.l3_len + job->info.l4_len;
    job->ip_id = job->info.ipv6 ? 0 : pkt_get16(pkt + IP4_OFS(ip_id));
    job->flags = pkt_get16(tcp + TCP_OFS(tcp_ctl)) & 0x0fff;
    job->seq = pkt_get32(tcp + TCP_OFS(tcp_seq));
    job->urg = pkt_get16(tcp + TCP_OFS(tcp_urg));
    pkt_gso_job_sums(job);
    return 0;
}

int
pkt_gso_segment(const void *pkt, size_t len,
                const struct pkt_gso_params *params,
                struct pkt_gso_slot *slots, size_t n_slots, size_t *n_segs)
{
    struct pkt_gso_job job;
    size_t n, ofs = 0;

    *n_segs = 0;
    if (!params->mss || pkt_gso_job_init(&job, pkt, len)) {
        return EINVAL;
    }
    n = pkt_gso_n_segs(&job.info, params->mss);
    if (n > n_slots) {
        return ENOSPC;
    }
    for (size_t i = 0; i < n; i++) {
        size_t payload = MIN(params->mss, job.info.payload_len - ofs);
        size_t seg_len = job.hdr_len + payload;
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

/* Returns the offset of the checksum field within the L4 header of
 * protocol 'proto', or -1 if there is none we fill. */
static int
pkt_gso_csum_ofs(uint8_t proto)
{
    switch (proto) {
    case IPPROTO_TCP:
        return TCP_OFS(tcp_csum);
    case IPPROTO_UDP:
        return UDP_CSUM_OFS;
    case IPPROTO_SCTP:
        return SCTP_CSUM_OFS;
    default:
        return -1;
    }
}

/* Stores the finished checksum of 'sum' into the L4 header at 'l4'. */
static void
pkt_gso_finish_l4(uint8_t *l4, const struct pkt_gso_info *info, uint32_t sum)
{
    ovs_be16 csum = csum_finish(sum);

    if (info->l4_proto == IPPROTO_UDP && !csum) {
        csum = htons(0xffff);
    }
    pkt_gso_put_csum(l4 + pkt_gso_csum_ofs(info->l4_proto), csum);
}

/* Fills the CRC32c of the SCTP packet at 'l4', 'l4_total' bytes long. */
static void
pkt_gso_fill_sctp(uint8_t *l4, size_t l4_total)
{
    ovs_be32 crc;

    memset(l4 + SCTP_CSUM_OFS, 0, 4);
    crc = crc32c(l4, l4_total);
    memcpy(l4 + SCTP_CSUM_OFS, &crc, sizeof crc);
}

int
pkt_gso_csum_fill(void *pkt_, size_t len)
{
    struct pkt_gso_info info;
    uint8_t *pkt = pkt_;
    size_t l4_total;
    uint8_t *l4;
    uint32_t sum;

    if (pkt_gso_parse(pkt, len, &info)
        || pkt_gso_csum_ofs(info.l4_proto) < 0) {
        return EINVAL;
    }
    l4 = pkt + info.l3_len;
    l4_total = info.pkt_len - info.l3_len;
    if (info.l4_proto == IPPROTO_SCTP) {
        pkt_gso_fill_sctp(l4, l4_total);
        return 0;
    }
    pkt_put16(l4 + pkt_gso_csum_ofs(info.l4_proto), 0);
    sum = pkt_gso_pseudo_len(pkt_gso_pseudo_base(pkt, &info), l4_total);
    sum = pkt_csum_partial(l4, l4_total, sum);
    pkt_gso_finish_l4(l4, &info, sum);
    return 0;
}

int
pkt_gso_csum_copy(void *dst_, const void *pkt_, size_t len)
{
    const uint8_t *pkt = pkt_;
    struct pkt_gso_info info;
    size_t hdr_len, l4_total;
    uint8_t *dst = dst_;
    uint32_t sum;

    if (pkt_gso_parse(pkt, len, &info)
        || (info.l4_proto != IPPROTO_TCP && info.l4_proto != IPPROTO_UDP)) {
        memcpy(dst, pkt, len);
        return pkt_gso_csum_fill(dst, len);
    }

    hdr_len = info.l3_len + info.l4_len;
    l4_total = info.pkt_len - info.l3_len;
    memcpy(dst, pkt, hdr_len);
    pkt_put16(dst + info.l3_len + pkt_gso_csum_ofs(info.l4_proto), 0);
    sum = pkt_gso_pseudo_len(pkt_gso_pseudo_base(pkt, &info), l4_total);
    sum = pkt_csum_partial(dst + info.l3_len, info.l4_len, sum);
    sum = pkt_csum_copy(dst + hdr_len, pkt + hdr_len, info.payload_len, sum);
    memcpy(dst + info.pkt_len, pkt + info.pkt_len, len - info.pkt_len);
    pkt_gso_finish_l4(dst + info.l3_len, &info, sum);
    return 0;
}
