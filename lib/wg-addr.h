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

#ifndef WG_ADDR_H
#define WG_ADDR_H 1

/* Text forms of endpoints and prefixes, shared by the OVSDB options
 * (wg-config), the UAPI protocol (wg-uapi) and `wg show`-style output
 * (wg-show), so that all three accept and print the same syntax:
 *
 *   endpoint   a.b.c.d:port, [ipv6]:port or [ipv6%scope]:port (scope: an
 *              interface name or index)
 *   host name  name:port, where name is a DNS host name (RFC 1123: labels
 *              of 1 to 63 letters, digits and inner '-', separated by '.',
 *              at most 253 characters, the last label not all digits);
 *              only the OVSDB options take it (the UAPI refuses it, as wg(8)
 *              resolves names itself)
 *   prefix     addr/len, or a bare address when the caller allows it (then
 *              /32 or /128) */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct ds;

/* An IPv4 or IPv6 prefix ('addr' in network order, 4 or 16 bytes used). */
struct wg_addr_prefix {
    int family;                 /* AF_INET or AF_INET6. */
    uint8_t addr[16];
    unsigned int len;
};

/* Parses endpoint 's' into 'ss' and '*lenp'.  Any port 0..65535 parses; the
 * caller decides whether 0 is acceptable.  Returns true on success. */
bool wg_addr_parse_endpoint(const char *s, struct sockaddr_storage *ss,
                            socklen_t *lenp);

/* Parses host-name endpoint 's' ("name:port", see above) into a copy of
 * the name in '*hostp' (caller frees) and the port in '*portp' (1..65535).
 * Returns true on success; on failure '*hostp' is NULL. */
bool wg_addr_parse_host_endpoint(const char *s, char **hostp,
                                 uint16_t *portp);

/* Parses prefix 's' into 'p'.  A bare address (no "/len") is accepted, as a
 * host prefix, only if 'bare_ok'.  Returns true on success. */
bool wg_addr_parse_prefix(const char *s, bool bare_ok,
                          struct wg_addr_prefix *p);

/* Appends endpoint 'ss' (AF_INET or AF_INET6) to 'out' in the form
 * wg_addr_parse_endpoint() reads. */
void wg_addr_format_endpoint(struct ds *out,
                             const struct sockaddr_storage *ss);

#endif /* wg-addr.h */
