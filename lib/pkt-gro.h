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

#ifndef PKT_GRO_H
#define PKT_GRO_H 1

/* TCP receive coalescing within one batch of bare IP packets (no Ethernet
 * header), over plain buffers.
 *
 * A run is a sequence of TCP segments of one flow (addresses and ports) in
 * which every segment:
 *   - is IPv4 without options and not a fragment, or IPv6 with TCP right
 *     after the fixed header;
 *   - has TCP flags exactly ACK or ACK|PSH and a non-empty payload;
 *   - after the first, has the same IPv4 TOS, TTL and flags/fragment field
 *     (DF) or the same IPv6 version/class/flow label word and hop limit, the
 *     same TCP acknowledgment number, window and options bytes, and a
 *     sequence number that continues the previous segment;
 *   - has the payload size of the first (gso_size), except the last, which
 *     may be smaller;
 * and the coalesced packet stays within 65535 bytes of IPv4 total length or
 * IPv6 payload length.  A segment with PSH ends its run, as does a smaller
 * segment; any other packet of the flow ends the flow's open run, so
 * nothing of a flow is reordered.
 *
 * A run of two or more segments is coalesced into its first packet (the
 * head): the payloads of the others are appended to it, its IP length field
 * set (and the IPv4 header checksum recomputed), PSH set if the last
 * segment had it, and its TCP checksum field set to the folded pseudo-header
 * sum over the coalesced TCP length, not complemented: what a
 * CHECKSUM_PARTIAL packet (VIRTIO_NET_HDR_F_NEEDS_CSUM) carries, so the
 * receiver completes it by summing from the TCP header to the end.  The
 * segments' own checksums are not verified (authenticated decryption
 * already proved the bytes).
 *
 * Every other packet is left untouched, as are the packets of flows beyond
 * the first 64 of a batch (the flow table lives on the stack).  Bytes past
 * a packet's IP length (e.g. WireGuard padding) are ignored and dropped
 * from a head.
 *
 * A packet's payload may already be where coalescing would put it: a
 * receiver that decrypts its packets one after another can predict, from
 * the first bytes of each (pkt_gro_pred_*() below), that it continues the
 * run of an earlier one and have the cipher write the rest of it straight
 * behind that run's bytes in the head's buffer ('placed').  Merging it
 * then copies nothing.  A placed packet that is not merged after all (its
 * headers, once authenticated, or the batch say otherwise) gets its bytes
 * moved back behind its headers, as does every placed packet that
 * pkt_gro_unplace() is given, so that each packet that is not MERGED is
 * whole at 'data' afterwards. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What became of one packet. */
enum pkt_gro_verdict {
    PKT_GRO_PASS,               /* Untouched. */
    PKT_GRO_COALESCED,          /* Head of a coalesced run (n_segs >= 2). */
    PKT_GRO_MERGED,             /* Payload appended to packet 'head'; the
                                 * caller drops this one. */
};

/* One packet of a batch. */
struct pkt_gro_pkt {
    /* In (data and len updated for a coalesced head). */
    uint8_t *data;              /* Bare IP packet. */
    size_t len;                 /* Bytes at 'data'. */
    size_t room;                /* Bytes available at 'data', >= len. */
    uint8_t *placed;            /* If nonnull, where the packet's bytes
                                 * from offset 'placed_ofs' on are (in a
                                 * head's buffer, behind its run), rather
                                 * than at 'data'; NULL on return. */
    size_t placed_ofs;          /* Its headers' length. */

    /* Out. */
    enum pkt_gro_verdict verdict;
    bool ipv6;                  /* COALESCED: IPv6, else IPv4. */
    uint16_t l3_len;            /* COALESCED: offset of the TCP header. */
    uint16_t l4_len;            /* COALESCED: TCP header bytes. */
    uint16_t gso_size;          /* COALESCED: payload bytes per segment (all
                                 * but the last segment carry this many). */
    uint16_t n_segs;            /* COALESCED: segments in the run. */
    size_t head;                /* MERGED: index of the head packet. */
};

/* Called when head 'pkt' needs at least 'room' bytes of room: makes
 * pkt->room >= 'room', keeping the first pkt->len bytes (pkt->data may
 * change), and returns true, or returns false to end the run there.  It
 * should grow generously (say to 64 KB plus a margin): it is called again
 * whenever the room runs out. */
typedef bool pkt_gro_grow_func(void *aux, struct pkt_gro_pkt *pkt,
                               size_t room);

/* Coalesces the 'n' packets at 'pkts' as described at the top of this file
 * and fills in their output fields.  Without 'grow' (NULL) a head only takes
 * what fits in its room.  Returns the number of packets that are not
 * PKT_GRO_MERGED.  Leaving out the merged ones, the packets keep their
 * order. */
size_t pkt_gro_batch(struct pkt_gro_pkt *pkts, size_t n,
                     pkt_gro_grow_func *grow, void *aux);

/* Moves the placed bytes of 'pkt', if any, back behind its headers. */
void pkt_gro_unplace(struct pkt_gro_pkt *pkt);

/* Predicting runs while packets are decrypted, one after another, from
 * their first bytes (which are not yet authenticated: a prediction only
 * says where bytes go, pkt_gro_batch() decides on authenticated ones).
 * A prediction is the run that a packet (its head) opens and the next
 * packets should continue: same addresses, ports and header bytes
 * length, ACK or ACK|PSH, the sequence number that continues it and a
 * payload of at most the head's. */
struct pkt_gro_pred {
    const uint8_t *head;        /* The head's headers. */
    size_t hdr_len;             /* Their bytes (IP and TCP). */
    size_t gso_size;            /* The head's payload bytes. */
    size_t total;               /* IP bytes of the run so far. */
    uint32_t next_seq;          /* Sequence number that continues it. */
    bool ipv6;
};

/* Starts in 'pred' the run that the bare IP packet of 'len' bytes at 'p'
 * (authenticated) would open, and returns true, or returns false if it
 * cannot open one. */
bool pkt_gro_pred_start(struct pkt_gro_pred *pred, const uint8_t *p,
                        size_t len);

/* Whether 'hdr', the first 'n' bytes of a packet, continue the run of
 * 'pred': then its payload bytes go to '*payload' and whether it ends the
 * run (PSH, or a smaller payload) to '*ends'. */
bool pkt_gro_pred_match(const struct pkt_gro_pred *pred, const uint8_t *hdr,
                        size_t n, size_t *payload, bool *ends);

/* Adds to 'pred' a packet that continued it with 'payload' bytes. */
void pkt_gro_pred_advance(struct pkt_gro_pred *pred, size_t payload);

#endif /* pkt-gro.h */
