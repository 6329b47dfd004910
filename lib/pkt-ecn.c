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
#include "pkt-ecn.h"

#include <sys/socket.h>

#include "csum.h"
#include "pkt-ip.h"
#include "unaligned.h"

/* IPv4 keeps ECN in the low two bits of its second byte (the TOS); IPv6 in
 * bits 4 and 5 of its second byte (the low bits of the traffic class). */
#define PKT_ECN_IP6_SHIFT 4

uint8_t
pkt_ecn_get(const void *pkt, size_t len)
{
    const uint8_t *b = pkt;

    switch (pkt_ip_family(pkt, len)) {
    case AF_INET:
        return b[1] & PKT_ECN_MASK;
    case AF_INET6:
        return (b[1] >> PKT_ECN_IP6_SHIFT) & PKT_ECN_MASK;
    default:
        return PKT_ECN_NOT_ECT;
    }
}

uint8_t
pkt_ecn_encap(const void *inner, size_t len)
{
    uint8_t ecn = pkt_ecn_get(inner, len);

    return ecn == PKT_ECN_CE ? PKT_ECN_ECT_0 : ecn;
}

/* Marks the IP packet of 'len' bytes at 'pkt' (IPv4 or IPv6 per 'family')
 * CE. */
static void
pkt_ecn_set_ce(uint8_t *pkt, int family)
{
    if (family == AF_INET) {
        ovs_be16 old = get_unaligned_be16((ovs_be16 *) pkt);
        ovs_be16 csum = get_unaligned_be16((ovs_be16 *)
                                           (pkt + PKT_IP4_OFS(ip_csum)));

        pkt[1] |= PKT_ECN_CE;
        put_unaligned_be16((ovs_be16 *) (pkt + PKT_IP4_OFS(ip_csum)),
                           recalc_csum16(csum, old,
                                         get_unaligned_be16((ovs_be16 *)
                                                            pkt)));
    } else {
        pkt[1] |= PKT_ECN_CE << PKT_ECN_IP6_SHIFT;
    }
}

enum pkt_ecn_decap
pkt_ecn_decap(void *inner, size_t len, uint8_t outer_tos)
{
    int family = pkt_ip_family(inner, len);
    uint8_t ecn = pkt_ecn_get(inner, len);

    if ((outer_tos & PKT_ECN_MASK) != PKT_ECN_CE || family == AF_UNSPEC) {
        return PKT_ECN_DECAP_OK;
    } else if (ecn == PKT_ECN_NOT_ECT) {
        return PKT_ECN_DECAP_DROP;
    }
    if (ecn != PKT_ECN_CE) {
        pkt_ecn_set_ce(inner, family);
    }
    return PKT_ECN_DECAP_OK;
}
