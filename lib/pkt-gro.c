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
#include "pkt-gro.h"

#include <netinet/in.h>
#include <string.h>

#include "csum.h"
#include "packets.h"
#include "pkt-csum.h"
#include "pkt-ip.h"
#include "pkt-util.h"
#include "unaligned.h"
#include "util.h"

#define PKT_GRO_NO_RUN SIZE_MAX
/* Flows tracked per batch; packets of further flows pass untouched. */
#define PKT_GRO_MAX_FLOWS 64
#define PKT_GRO_MAX_IP4_LEN 65535
#define PKT_GRO_MAX_IP6_LEN (IPV6_HEADER_LEN + 65535)

/* Flow identity: addresses and ports. */
struct pkt_gro_key {
    uint8_t addrs[32];          /* Source then destination address. */
    uint8_t ports[4];           /* Source then destination port. */
    bool ipv6;
};

/* A flow seen in the batch and its open run, if any. */
struct pkt_gro_flow {
    struct pkt_gro_key key;
    uint32_t hash;
    size_t head;                /* Index of the run's head or
                                 * PKT_GRO_NO_RUN. */
    uint32_t next_seq;          /* Sequence number that continues it. */
    size_t total;               /* IP bytes of the head so far. */
};

/* A parsed TCP packet. */
struct pkt_gro_seg {
    struct pkt_ip_info info;
    struct pkt_gro_key key;
    const uint8_t *tcp;
    uint16_t flags;
    uint32_t seq;
    bool candidate;             /* May be part of a run. */
};

struct pkt_gro_ctx {
    struct pkt_gro_pkt *pkts;
    pkt_gro_grow_func *grow;
    void *aux;
    struct pkt_gro_flow *flows;
    size_t n_flows;
};

/* Fills 'key' for the TCP packet at 'p'. */
static void
pkt_gro_make_key(const uint8_t *p, const struct pkt_gro_seg *seg,
                 struct pkt_gro_key *key)
{
    memset(key, 0, sizeof *key);
    key->ipv6 = seg->info.ipv6;
    memcpy(key->addrs, p + pkt_ip_addrs_ofs(key->ipv6),
           2 * pkt_ip_addr_len(key->ipv6));
    memcpy(key->ports, seg->tcp, 4);
}

/* Parses 'pkt' into 'seg'.  Returns false if it is not a TCP packet we can
 * attribute to a flow. */
static bool
pkt_gro_parse(const struct pkt_gro_pkt *pkt, struct pkt_gro_seg *seg)
{
    size_t plain_l3;

    if (pkt_ip_parse(pkt->data, pkt->len, &seg->info)
        || seg->info.l4_proto != IPPROTO_TCP) {
        return false;
    }
    seg->tcp = pkt->data + seg->info.l3_len;
    seg->flags = pkt_ip_tcp_flags(seg->tcp);
    seg->seq = pkt_get32(seg->tcp + PKT_TCP_OFS(tcp_seq));
    pkt_gro_make_key(pkt->data, seg, &seg->key);

    plain_l3 = seg->info.ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    seg->candidate = (seg->info.l3_len == plain_l3
                      && seg->info.payload_len > 0
                      && (seg->flags == TCP_ACK
                          || seg->flags == (TCP_ACK | TCP_PSH)));
    return true;
}

/* Returns a cheap hash of 'key', only used to skip most full compares. */
static uint32_t
pkt_gro_key_hash(const struct pkt_gro_key *key)
{
    const uint8_t *p = (const uint8_t *) key;
    uint32_t hash = key->ipv6;

    for (size_t i = 0; i + 4 <= offsetof(struct pkt_gro_key, ipv6); i += 4) {
        uint32_t w;

        memcpy(&w, p + i, sizeof w);
        hash = (hash ^ w) * 0x9e3779b1;
    }
    return hash;
}

/* Returns the flow of 'seg', adding it if new, or NULL if it is new and
 * PKT_GRO_MAX_FLOWS flows are tracked already. */
static struct pkt_gro_flow *
pkt_gro_flow_lookup(struct pkt_gro_ctx *ctx, const struct pkt_gro_seg *seg)
{
    uint32_t hash = pkt_gro_key_hash(&seg->key);
    struct pkt_gro_flow *flow;

    for (size_t i = 0; i < ctx->n_flows; i++) {
        flow = &ctx->flows[i];
        if (flow->hash == hash
            && !memcmp(&flow->key, &seg->key, sizeof flow->key)) {
            return flow;
        }
    }
    if (ctx->n_flows >= PKT_GRO_MAX_FLOWS) {
        return NULL;
    }
    flow = &ctx->flows[ctx->n_flows++];
    flow->key = seg->key;
    flow->hash = hash;
    flow->head = PKT_GRO_NO_RUN;
    return flow;
}

/* Returns true if the 'n' bytes at offset 'ofs' of 'a' and 'b' are
 * equal. */
static bool
pkt_gro_same(const uint8_t *a, const uint8_t *b, size_t ofs, size_t n)
{
    return !memcmp(a + ofs, b + ofs, n);
}

/* Returns true if the IP and TCP header fields that must match within a run
 * are equal in 'head' and in 'seg' (of packet 'p'). */
static bool
pkt_gro_same_headers(const struct pkt_gro_pkt *head, const uint8_t *p,
                     const struct pkt_gro_seg *seg)
{
    const uint8_t *h = head->data;
    const uint8_t *htcp = h + head->l3_len;

    if (seg->info.ipv6) {
        if (!pkt_gro_same(h, p, 0, 4)       /* Version, class, flow label. */
            || !pkt_gro_same(h, p, PKT_IP6_OFS(ip6_hlim), 1)) {
            return false;
        }
    } else if (!pkt_gro_same(h, p, PKT_IP4_OFS(ip_tos), 1)
               || !pkt_gro_same(h, p, PKT_IP4_OFS(ip_ttl), 1)
               || !pkt_gro_same(h, p, PKT_IP4_OFS(ip_frag_off), 2)) {
        return false;
    }
    return (seg->info.l4_len == head->l4_len
            && pkt_gro_same(htcp, seg->tcp, PKT_TCP_OFS(tcp_ack), 4)
            && pkt_gro_same(htcp, seg->tcp, PKT_TCP_OFS(tcp_winsz), 2)
            && pkt_gro_same(htcp, seg->tcp, TCP_HEADER_LEN,
                            head->l4_len - TCP_HEADER_LEN));
}

/* Makes sure 'head' has 'room' bytes of room. */
static bool
pkt_gro_ensure_room(struct pkt_gro_ctx *ctx, struct pkt_gro_pkt *head,
                    size_t room)
{
    return (head->room >= room
            || (ctx->grow && ctx->grow(ctx->aux, head, room)
                && head->room >= room));
}

/* Puts the payload of 'pkt', parsed as 'seg', at 'dst': nothing to do if
 * it was placed there. */
static void
pkt_gro_move_payload(uint8_t *dst, struct pkt_gro_pkt *pkt,
                     const struct pkt_gro_seg *seg)
{
    size_t hdr_len = seg->info.l3_len + seg->info.l4_len;
    const uint8_t *src = pkt->data + hdr_len;

    if (pkt->placed && pkt->placed_ofs == hdr_len) {
        src = pkt->placed;
    } else {
        pkt_gro_unplace(pkt);
    }
    if (src != dst) {
        memmove(dst, src, seg->info.payload_len);
    }
    pkt->placed = NULL;
}

/* Appends packet 'i', parsed as 'seg', to the open run of 'flow' if it
 * continues it.  Returns true if it did. */
static bool
pkt_gro_try_merge(struct pkt_gro_ctx *ctx, struct pkt_gro_flow *flow,
                  size_t i, const struct pkt_gro_seg *seg)
{
    struct pkt_gro_pkt *head = &ctx->pkts[flow->head];
    struct pkt_gro_pkt *pkt = &ctx->pkts[i];
    size_t payload = seg->info.payload_len;
    size_t total = flow->total + payload;
    size_t max = seg->info.ipv6 ? PKT_GRO_MAX_IP6_LEN : PKT_GRO_MAX_IP4_LEN;

    if (!seg->candidate || seg->seq != flow->next_seq
        || payload > head->gso_size || total > max
        || !pkt_gro_same_headers(head, pkt->data, seg)
        || !pkt_gro_ensure_room(ctx, head, total)) {
        return false;
    }

    pkt_gro_move_payload(head->data + flow->total, pkt, seg);
    head->len = flow->total = total;
    head->n_segs++;
    flow->next_seq += payload;
    pkt->verdict = PKT_GRO_MERGED;
    pkt->head = flow->head;

    if (seg->flags & TCP_PSH) {
        uint8_t *ctl = head->data + head->l3_len + PKT_TCP_OFS(tcp_ctl);

        pkt_put16(ctl, pkt_get16(ctl) | TCP_PSH);
        flow->head = PKT_GRO_NO_RUN;
    } else if (payload < head->gso_size) {
        flow->head = PKT_GRO_NO_RUN;
    }
    return true;
}

/* Makes packet 'i', parsed as 'seg', the head of a new run of 'flow'. */
static void
pkt_gro_open_run(struct pkt_gro_ctx *ctx, struct pkt_gro_flow *flow,
                 size_t i, const struct pkt_gro_seg *seg)
{
    struct pkt_gro_pkt *pkt = &ctx->pkts[i];

    pkt->ipv6 = seg->info.ipv6;
    pkt->l3_len = seg->info.l3_len;
    pkt->l4_len = seg->info.l4_len;
    pkt->gso_size = seg->info.payload_len;
    pkt->n_segs = 1;

    flow->head = i;
    flow->next_seq = seg->seq + seg->info.payload_len;
    flow->total = seg->info.pkt_len;
}

/* Processes packet 'i' of the batch. */
static void
pkt_gro_one__(struct pkt_gro_ctx *ctx, size_t i)
{
    struct pkt_gro_flow *flow;
    struct pkt_gro_seg seg;

    if (!pkt_gro_parse(&ctx->pkts[i], &seg)) {
        return;
    }
    flow = pkt_gro_flow_lookup(ctx, &seg);
    if (!flow) {
        return;
    }
    if (flow->head != PKT_GRO_NO_RUN
        && pkt_gro_try_merge(ctx, flow, i, &seg)) {
        return;
    }
    flow->head = PKT_GRO_NO_RUN;
    if (seg.candidate && !(seg.flags & TCP_PSH)) {
        pkt_gro_open_run(ctx, flow, i, &seg);
    }
}

/* Processes packet 'i' of the batch: whole at its 'data' afterwards unless
 * merged. */
static void
pkt_gro_one(struct pkt_gro_ctx *ctx, size_t i)
{
    pkt_gro_one__(ctx, i);
    if (ctx->pkts[i].verdict != PKT_GRO_MERGED) {
        pkt_gro_unplace(&ctx->pkts[i]);
    }
}

/* Sets the IP length, IPv4 header checksum and TCP pseudo-header sum of
 * coalesced head 'pkt'. */
static void
pkt_gro_finish(struct pkt_gro_pkt *pkt)
{
    uint8_t *p = pkt->data;
    size_t tcp_len = pkt->len - pkt->l3_len;
    uint32_t sum;

    if (pkt->ipv6) {
        pkt_put16(p + PKT_IP6_OFS(ip6_plen), pkt->len - IPV6_HEADER_LEN);
    } else {
        pkt_put16(p + PKT_IP4_OFS(ip_tot_len), pkt->len);
        pkt_put16(p + PKT_IP4_OFS(ip_csum), 0);
        pkt_put_be16(p + PKT_IP4_OFS(ip_csum), csum(p, pkt->l3_len));
    }
    sum = pkt_ip_pseudo_add_len(pkt_ip_pseudo_base(p, pkt->ipv6,
                                                   IPPROTO_TCP), tcp_len);
    pkt_put_be16(p + pkt->l3_len + PKT_TCP_OFS(tcp_csum), pkt_csum_fold(sum));
    pkt->verdict = PKT_GRO_COALESCED;
}

size_t
pkt_gro_batch(struct pkt_gro_pkt *pkts, size_t n,
              pkt_gro_grow_func *grow, void *aux)
{
    struct pkt_gro_flow flows[PKT_GRO_MAX_FLOWS];
    struct pkt_gro_ctx ctx = {
        .pkts = pkts,
        .grow = grow,
        .aux = aux,
        .flows = flows,
    };
    size_t n_out = 0;

    for (size_t i = 0; i < n; i++) {
        pkts[i].verdict = PKT_GRO_PASS;
        pkts[i].n_segs = 0;
        pkts[i].head = 0;
    }
    for (size_t i = 0; i < n; i++) {
        pkt_gro_one(&ctx, i);
    }
    for (size_t i = 0; i < n; i++) {
        if (pkts[i].n_segs >= 2) {
            pkt_gro_finish(&pkts[i]);
        }
        n_out += pkts[i].verdict != PKT_GRO_MERGED;
    }
    return n_out;
}

void
pkt_gro_unplace(struct pkt_gro_pkt *pkt)
{
    if (pkt->placed) {
        memmove(pkt->data + pkt->placed_ofs, pkt->placed,
                pkt->len - pkt->placed_ofs);
        pkt->placed = NULL;
    }
}

/* Predicting runs. */

bool
pkt_gro_pred_start(struct pkt_gro_pred *pred, const uint8_t *p, size_t len)
{
    struct pkt_gro_pkt pkt = { .data = CONST_CAST(uint8_t *, p), .len = len };
    struct pkt_gro_seg seg;

    if (!pkt_gro_parse(&pkt, &seg) || !seg.candidate
        || seg.flags != TCP_ACK) {
        return false;
    }
    pred->head = p;
    pred->hdr_len = seg.info.l3_len + seg.info.l4_len;
    pred->gso_size = seg.info.payload_len;
    pred->total = seg.info.pkt_len;
    pred->next_seq = seg.seq + seg.info.payload_len;
    pred->ipv6 = seg.info.ipv6;
    return true;
}

/* The IP length of the headers 'hdr' of a packet of 'pred''s IP version. */
static size_t
pkt_gro_pred_ip_len(const struct pkt_gro_pred *pred, const uint8_t *hdr)
{
    return (pred->ipv6
            ? IPV6_HEADER_LEN + pkt_get16(hdr + PKT_IP6_OFS(ip6_plen))
            : pkt_get16(hdr + PKT_IP4_OFS(ip_tot_len)));
}

/* Whether the IP headers of 'pred''s head and 'hdr' give the same flow and
 * fields that must match, as far as the TCP header. */
static bool
pkt_gro_pred_same_ip(const struct pkt_gro_pred *pred, const uint8_t *hdr)
{
    const uint8_t *h = pred->head;

    if (pred->ipv6) {
        return (pkt_gro_same(h, hdr, 0, 4)
                && pkt_gro_same(h, hdr, PKT_IP6_OFS(ip6_nxt), 2)
                && pkt_gro_same(h, hdr, pkt_ip_addrs_ofs(true), 32));
    }
    return (pkt_gro_same(h, hdr, 0, 2)
            && pkt_gro_same(h, hdr, PKT_IP4_OFS(ip_frag_off), 4)
            && pkt_gro_same(h, hdr, pkt_ip_addrs_ofs(false), 8));
}

bool
pkt_gro_pred_match(const struct pkt_gro_pred *pred, const uint8_t *hdr,
                   size_t n, size_t *payload, bool *ends)
{
    size_t l3 = pred->ipv6 ? IPV6_HEADER_LEN : IP_HEADER_LEN;
    const uint8_t *tcp = hdr + l3;
    size_t max = pred->ipv6 ? PKT_GRO_MAX_IP6_LEN : PKT_GRO_MAX_IP4_LEN;
    uint16_t flags;

    if (n != pred->hdr_len || !pkt_gro_pred_same_ip(pred, hdr)
        || !pkt_gro_same(pred->head + l3, tcp, 0, 4)
        || !pkt_gro_same(pred->head + l3, tcp, PKT_TCP_OFS(tcp_ctl), 1)
        || pkt_get32(tcp + PKT_TCP_OFS(tcp_seq)) != pred->next_seq) {
        return false;
    }
    flags = pkt_ip_tcp_flags(tcp);
    *payload = pkt_gro_pred_ip_len(pred, hdr) - n;
    *ends = (flags & TCP_PSH) || *payload < pred->gso_size;
    return ((flags == TCP_ACK || flags == (TCP_ACK | TCP_PSH))
            && pkt_gro_pred_ip_len(pred, hdr) > n
            && *payload <= pred->gso_size && pred->total + *payload <= max);
}

void
pkt_gro_pred_advance(struct pkt_gro_pred *pred, size_t payload)
{
    pred->total += payload;
    pred->next_seq += payload;
}
