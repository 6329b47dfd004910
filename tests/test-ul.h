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

#ifndef TEST_UL_H
#define TEST_UL_H 1

/* Helpers shared by the underlay's unit tests (test-ul-*.c). */

#include <arpa/inet.h>
#include <string.h>
#include "packets.h"
#include "wgtest.h"

/* Parses 's', an IPv4 address (returned IPv4-mapped) or an IPv6 one; fails
 * the test if it is neither.  NULL or "" gives all zeros. */
static inline struct in6_addr
ult_addr(const char *s)
{
    struct in6_addr a;
    ovs_be32 ip4;

    if (!s || !*s) {
        return in6addr_any;
    } else if (strchr(s, ':')) {
        WGTEST_CHECK(inet_pton(AF_INET6, s, &a) == 1);
        return a;
    }
    WGTEST_CHECK(inet_pton(AF_INET, s, &ip4) == 1);
    return in6_addr_mapped_ipv4(ip4);
}

#endif /* test-ul.h */
