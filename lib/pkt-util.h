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

#ifndef PKT_UTIL_H
#define PKT_UTIL_H 1

/* Host-order access to big-endian header fields at any alignment, shared by
 * the pkt-* offload helpers. */

#include <stdint.h>
#include "byte-order.h"
#include "unaligned.h"

/* Reads the 16-bit big-endian field at 'p'. */
static inline uint16_t
pkt_get16(const uint8_t *p)
{
    return ntohs(get_unaligned_be16((const ovs_be16 *) p));
}

/* Writes 'x' as a 16-bit big-endian field at 'p'. */
static inline void
pkt_put16(uint8_t *p, uint16_t x)
{
    put_unaligned_be16((ovs_be16 *) p, htons(x));
}

/* Writes 'x', already in network byte order, at 'p'. */
static inline void
pkt_put_be16(uint8_t *p, ovs_be16 x)
{
    put_unaligned_be16((ovs_be16 *) p, x);
}

/* Reads the 32-bit big-endian field at 'p'. */
static inline uint32_t
pkt_get32(const uint8_t *p)
{
    return ntohl(get_unaligned_be32((const ovs_be32 *) p));
}

/* Writes 'x' as a 32-bit big-endian field at 'p'. */
static inline void
pkt_put32(uint8_t *p, uint32_t x)
{
    put_unaligned_be32((ovs_be32 *) p, htonl(x));
}

#endif /* pkt-util.h */
