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
#include "bridge-l2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csum.h"
#include "dp-packet.h"
#include "fuzz-util.h"
#include "packets.h"
#include "pkt-ip.h"
#include "pkt-mtu.h"
#include "util.h"

/* libFuzzer target for the L2 adapter, also driven by "wgtest l2-fuzz".
 *
 * Input: 5 control bytes, then an Ethernet frame.  Bytes 0-1 advance the
 * clock (x8 ms), byte 2 holds flags (bit 0: route everything; bit 1:
 * change the own addresses to the set chosen by byte 3), byte 3 picks the
 * MTU (68 + 6 * b) and byte 4 the ICMP and fragment buffer sizes.  Each
 * input goes through every entry point, on exactly-sized heap copies so
 * that the sanitizers catch any access outside them, and every output is
 * checked.
 * The adapter state persists across inputs (small limits, so that
 * eviction, queue bounds and timeouts happen). */

void fuzz_bridge_l2_reset(void);

static const struct eth_addr fuzz_mac = ETH_ADDR_C(02, 00, 00, 00, 00, 01);
static const char *const fuzz_addrs[] = {
    "10.1.1.254/24,fd00:1:1::fe/64", "", "10.1.1.1/30", "fd00::1/127",
};

static struct bridge_l2 *fuzz_l2;
static long long int fuzz_now;

static bool
fuzz_routable(void *aux, int family, const void *addr)
{
    const uint8_t *a = addr;

    /* 10.1.2.0/24 and fd00:1:2::/48, or everything. */
    return (*(bool *) aux
            || (family == AF_INET && a[0] == 10 && a[1] == 1 && a[2] == 2)
            || (family == AF_INET6 && a[0] == 0xfd && a[5] == 2));
}

/* Returns a heap copy of exactly 'n' bytes (at least one allocated). */
static uint8_t *
fuzz_copy(const uint8_t *p, size_t n)
{
    uint8_t *copy = xmalloc(n ? n : 1);

    memcpy(copy, p, n);
    return copy;
}

static void
fuzz_check_reply(const uint8_t *r, size_t n)
{
    const struct eth_header *eth = (const void *) r;

    FUZZ_CHECK(n == 42 || n == 86);
    FUZZ_CHECK(eth_addr_equals(eth->eth_src, fuzz_mac));
    if (n == 86) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) (eth + 1);

        FUZZ_CHECK(eth->eth_type == htons(ETH_TYPE_IPV6));
        FUZZ_CHECK(!packet_csum_upperlayer6(ip6, ip6 + 1, 58, 32));
    } else {
        FUZZ_CHECK(eth->eth_type == htons(ETH_TYPE_ARP));
    }
}

static void
fuzz_from_bridge(const uint8_t *frame, size_t len, bool all)
{
    struct bridge_l2_egress out, fast;
    enum bridge_l2_eg_action action;
    struct pkt_ip_frame ip;
    struct in6_addr src;
    struct dp_packet *pkt;
    bool to_peer;

    /* The unlocked judgment agrees with the locked one. */
    pkt_ip_frame_parse(&ip, frame, len, ETH_HEADER_LEN);
    to_peer = bridge_l2_from_bridge_unlocked(fuzz_l2, frame, len, &ip, &fast,
                                             &src);
    action = bridge_l2_from_bridge(fuzz_l2, frame, len, NULL, fuzz_now,
                                   fuzz_routable, &all, &out);
    FUZZ_CHECK(to_peer == (action == BRIDGE_L2_EG_TO_PEER));
    FUZZ_CHECK(!to_peer || (fast.l3_len == out.l3_len
                            && fast.family == out.family
                            && !memcmp(fast.dst, out.dst, sizeof out.dst)));
    switch (action) {
    case BRIDGE_L2_EG_TO_PEER:
        FUZZ_CHECK(out.reason == BRIDGE_L2_R_OK);
        FUZZ_CHECK(out.l3_ofs == ETH_HEADER_LEN);
        FUZZ_CHECK(out.l3_ofs + out.l3_len <= len);
        FUZZ_CHECK(out.family == AF_INET ? out.l3_len >= IP_HEADER_LEN
                   : out.family == AF_INET6 && out.l3_len >= 40);
        FUZZ_CHECK(!memcmp(out.dst, frame + ETH_HEADER_LEN
                           + (out.family == AF_INET ? 16 : 24),
                           out.family == AF_INET ? 4 : 16));
        break;
    case BRIDGE_L2_EG_REPLY:
        FUZZ_CHECK(out.reason == BRIDGE_L2_R_OK);
        FUZZ_CHECK(out.reply_len == dp_packet_size(out.reply));
        fuzz_check_reply(dp_packet_data(out.reply), out.reply_len);
        dp_packet_delete(out.reply);
        break;
    case BRIDGE_L2_EG_DROP:
        FUZZ_CHECK(out.reason > BRIDGE_L2_R_OK
                   && out.reason < BRIDGE_L2_N_REASONS);
        FUZZ_CHECK(!out.reply_len && !out.reply);
        break;
    default:
        FUZZ_CHECK(false);
    }
    while ((pkt = bridge_l2_pending_pop(fuzz_l2)) != NULL) {
        const uint8_t *frame_ = dp_packet_data(pkt);

        FUZZ_CHECK(dp_packet_size(pkt) >= ETH_HEADER_LEN + IP_HEADER_LEN);
        FUZZ_CHECK(!memcmp(frame_ + 6, &fuzz_mac, 6));
        dp_packet_delete(pkt);
    }
}

static void
fuzz_icmp(const uint8_t *frame, size_t len, unsigned int mtu,
          size_t out_size)
{
    uint8_t *out = xmalloc(out_size ? out_size : 1);
    size_t n = bridge_l2_icmp_too_big(fuzz_l2, frame, len, mtu, out, out_size);

    FUZZ_CHECK(n <= out_size);
    if (n && out[12] == 0x08) {
        const struct ip_header *ip = (const void *) (out + ETH_HEADER_LEN);

        FUZZ_CHECK(n >= ETH_HEADER_LEN + 28 + IP_HEADER_LEN);
        FUZZ_CHECK(ntohs(ip->ip_tot_len) == n - ETH_HEADER_LEN);
        FUZZ_CHECK(!csum(ip, IP_HEADER_LEN));
        FUZZ_CHECK(!csum(ip + 1, n - ETH_HEADER_LEN - IP_HEADER_LEN));
    } else if (n) {
        const struct ovs_16aligned_ip6_hdr *ip6 = (const void *) (out + 14);

        FUZZ_CHECK(n >= ETH_HEADER_LEN + 48 + 40 && n <= 14 + 1280);
        FUZZ_CHECK(!packet_csum_upperlayer6(ip6, ip6 + 1, 58,
                                            n - ETH_HEADER_LEN - 40));
    }
    free(out);
}

static void
fuzz_frag(const uint8_t *ip, size_t len, unsigned int mtu, size_t out_size)
{
    uint8_t *out = xmalloc(out_size);
    struct pkt_mtu_frag f;
    size_t n, total = 0, count = 0;

    pkt_mtu_check(ip, len, mtu);
    if (!pkt_mtu_frag_start(&f, ip, len, mtu)) {
        free(out);
        return;
    }
    while ((n = pkt_mtu_frag_next(&f, out, out_size)) > 0) {
        size_t hlen = (out[0] & 15) * 4;

        FUZZ_CHECK(n <= MIN(mtu, out_size));
        FUZZ_CHECK(hlen >= IP_HEADER_LEN && hlen <= n);
        FUZZ_CHECK(!csum(out, hlen));
        total += n - hlen;
        FUZZ_CHECK(++count <= 8192);
    }
    FUZZ_CHECK(total == f.tot_len - f.hlen);
    free(out);
}

static void
fuzz_to_bridge(const uint8_t *ip, size_t len)
{
    struct dp_packet *pkt = dp_packet_clone_data(ip, len);
    struct bridge_l2_ingress out;

    switch (bridge_l2_to_bridge(fuzz_l2, pkt, fuzz_now, &out)) {
    case BRIDGE_L2_IN_DELIVER:
        FUZZ_CHECK(eth_addr_equals(out.eth.eth_src, fuzz_mac));
        FUZZ_CHECK(out.reason == BRIDGE_L2_R_OK);
        dp_packet_delete(pkt);
        break;
    case BRIDGE_L2_IN_QUEUED:
        FUZZ_CHECK(out.reason == BRIDGE_L2_R_OK);
        break;
    case BRIDGE_L2_IN_DROP:
        FUZZ_CHECK(out.reason > BRIDGE_L2_R_OK
                   && out.reason < BRIDGE_L2_N_REASONS);
        dp_packet_delete(pkt);
        break;
    default:
        FUZZ_CHECK(false);
    }
    if (out.solicit) {
        FUZZ_CHECK(out.solicit_len == dp_packet_size(out.solicit));
        fuzz_check_reply(dp_packet_data(out.solicit), out.solicit_len);
        dp_packet_delete(out.solicit);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned int mtu;
    uint8_t *frame;
    size_t len;

    if (size < 5) {
        return 0;
    }
    if (!fuzz_l2) {
        struct bridge_l2_limits lim = { 64, 4, 32, 16384 };

        fuzz_l2 = bridge_l2_create(fuzz_mac, &lim);
        free(bridge_l2_set_addresses(fuzz_l2, fuzz_addrs[0]));
    }
    fuzz_now += (data[0] | data[1] << 8) * 8;
    if (data[2] & 2) {
        FUZZ_CHECK(!bridge_l2_set_addresses(fuzz_l2, fuzz_addrs[data[3] % 4]));
    }
    mtu = 68 + 6 * data[3];
    len = size - 5;
    frame = fuzz_copy(data + 5, len);

    fuzz_from_bridge(frame, len, data[2] & 1);
    fuzz_icmp(frame, len, mtu, data[4] * 6 % (BRIDGE_L2_ICMP_FRAME_MAX + 1));
    if (len >= ETH_HEADER_LEN) {
        uint8_t *l3 = fuzz_copy(frame + ETH_HEADER_LEN,
                                len - ETH_HEADER_LEN);

        /* Fragment buffers of 68 to 'mtu' bytes. */
        fuzz_frag(l3, len - ETH_HEADER_LEN, mtu,
                  68 + (mtu - 68) * data[4] / 255);
        fuzz_to_bridge(l3, len - ETH_HEADER_LEN);
        free(l3);
    }
    bridge_l2_run(fuzz_l2, fuzz_now);
    FUZZ_CHECK(bridge_l2_next_deadline(fuzz_l2) > fuzz_now);
    FUZZ_CHECK(bridge_l2_pending_count_for_test(fuzz_l2) <= 32);
    FUZZ_CHECK(bridge_l2_neigh_count_for_test(fuzz_l2) <= 64);
    free(frame);
    return 0;
}

/* Frees the persistent state (for the unit test's leak checking). */
void
fuzz_bridge_l2_reset(void)
{
    bridge_l2_destroy(fuzz_l2);
    fuzz_l2 = NULL;
    fuzz_now = 0;
}
