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

#ifndef TEST_PKT_UTIL_H
#define TEST_PKT_UTIL_H 1

/* Packet builder and checkers shared by the pkt-gso and pkt-gro tests.
 * Checksums are computed and verified here with OVS's csum.h only, never
 * with pkt-csum, so the code under test is checked independently. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Description of a bare IP + TCP (or UDP, SCTP) test packet. */
struct test_pkt_spec {
    bool ipv6;
    uint8_t proto;              /* 0 means IPPROTO_TCP. */
    uint8_t tos;                /* IPv4 TOS or IPv6 traffic class. */
    uint8_t ttl;                /* 0 means 64. */
    uint16_t ip_id;
    uint16_t frag;              /* IPv4 flags + fragment offset (e.g. DF). */
    uint32_t flow_label;
    size_t ip_opt_len;          /* IPv4 options (multiple of 4) or IPv6
                                 * Destination Options header bytes
                                 * (multiple of 8). */
    uint8_t addr;               /* Varies the addresses. */
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint16_t flags;             /* TCP flags (TCP_ACK...). */
    uint16_t win, urg;
    size_t tcp_opt_len;         /* Multiple of 4, at most 40. */
    uint8_t opt_seed;           /* Varies the TCP option bytes. */
    size_t payload_len;
    uint32_t payload_seed;      /* Payload byte i = f(seed + i). */
    size_t pad;                 /* Junk bytes after the IP packet. */
};

/* Returns payload byte 'i' for 'seed'. */
uint8_t test_pkt_payload_byte(uint32_t seed, size_t i);

/* Builds the packet 'spec' describes into 'buf' ('room' bytes), with valid
 * IPv4 header and L4 checksums.  Returns its length including 'pad'. */
size_t test_pkt_build(const struct test_pkt_spec *spec, uint8_t *buf,
                      size_t room);

/* Returns the pseudo-header partial sum of the bare IP packet 'p' whose
 * upper layer ('proto') starts at 'l3_len' and is 'l4_len' bytes long. */
uint32_t test_pkt_pseudo(const uint8_t *p, uint8_t proto, size_t l4_len);

/* Returns true if the IPv4 header checksum (if IPv4) and the TCP/UDP
 * checksum of the packet at 'p' verify, per OVS's csum(). */
bool test_pkt_csums_ok(const uint8_t *p, size_t l3_len, size_t pkt_len);

/* Reads a big-endian 16 or 32 bit value at 'p'. */
uint16_t test_pkt_get16(const uint8_t *p);
uint32_t test_pkt_get32(const uint8_t *p);

/* Writes a big-endian 16 or 32 bit value at 'p'. */
void test_pkt_put16(uint8_t *p, uint16_t x);
void test_pkt_put32(uint8_t *p, uint32_t x);

#endif /* test-pkt-util.h */
