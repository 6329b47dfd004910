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
#include "wg-addr.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"

#define WG_ADDR_LABEL_MAX 63    /* Characters in a host name's label. */
#define WG_ADDR_NAME_MAX 253    /* Characters in a host name. */

/* Parses all of 's' as a decimal number no larger than 'max' (at most
 * UINT_MAX), as wg(8) reads ports, scope indexes and prefix lengths: digits
 * only, leading zeros allowed.  OVS's str_to_uint() does the conversion; it
 * would also take leading white space and a sign, so the first character
 * must be a digit. */
static bool
parse_decimal(const char *s, unsigned int max, unsigned int *np)
{
    return isdigit((unsigned char) *s) && str_to_uint(s, 10, np)
           && *np <= max;
}

/* An IPv6 scope: an interface index or name. */
static bool
parse_scope(const char *scope, uint32_t *idp)
{
    unsigned int n;

    if (parse_decimal(scope, UINT32_MAX, &n)) {
        *idp = n;
        return true;
    }
    *idp = strlen(scope) < IF_NAMESIZE ? if_nametoindex(scope) : 0;
    return *idp != 0;
}

static bool
parse_endpoint6(char *host, uint16_t port, struct sockaddr_storage *ss,
                socklen_t *lenp)
{
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) ss;
    char *scope = strchr(host, '%');

    if (scope) {
        *scope++ = '\0';
        if (!parse_scope(scope, &sin6->sin6_scope_id)) {
            return false;
        }
    }
    if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1) {
        return false;
    }
    sin6->sin6_family = AF_INET6;
    sin6->sin6_port = htons(port);
    *lenp = sizeof *sin6;
    return true;
}

static bool
parse_endpoint4(const char *host, uint16_t port, struct sockaddr_storage *ss,
                socklen_t *lenp)
{
    struct sockaddr_in *sin = (struct sockaddr_in *) ss;

    if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
        return false;
    }
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    *lenp = sizeof *sin;
    return true;
}

bool
wg_addr_parse_endpoint(const char *s, struct sockaddr_storage *ss,
                       socklen_t *lenp)
{
    char *copy = xstrdup(s);
    char *host = copy;
    unsigned int port;
    bool bracketed = *host == '[';
    bool ok = false;
    char *colon;

    memset(ss, 0, sizeof *ss);
    if (bracketed) {
        char *close = strchr(++host, ']');

        if (!close || close[1] != ':') {
            goto out;
        }
        *close = '\0';
        colon = close + 1;
    } else {
        colon = strrchr(host, ':');
        if (!colon) {
            goto out;
        }
        *colon = '\0';
    }
    if (parse_decimal(colon + 1, UINT16_MAX, &port)) {
        ok = (bracketed ? parse_endpoint6(host, port, ss, lenp)
              : parse_endpoint4(host, port, ss, lenp));
    }
out:
    free(copy);
    return ok;
}

/* True if 'label' (its first 'len' characters) is an RFC 1123 label. */
static bool
valid_host_label(const char *label, size_t len)
{
    if (!len || len > WG_ADDR_LABEL_MAX
        || label[0] == '-' || label[len - 1] == '-') {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char) label[i]) && label[i] != '-') {
            return false;
        }
    }
    return true;
}

/* True if 'name' is a host name: RFC 1123 labels joined by '.', the last
 * one not all digits (so that a malformed IPv4 address is no name). */
static bool
valid_host_name(const char *name)
{
    const char *label = name;
    size_t len;

    if (strlen(name) > WG_ADDR_NAME_MAX) {
        return false;
    }
    for (;;) {
        len = strcspn(label, ".");
        if (!valid_host_label(label, len)) {
            return false;
        }
        if (!label[len]) {
            return strspn(label, "0123456789") != len;
        }
        label += len + 1;
    }
}

bool
wg_addr_parse_host_endpoint(const char *s, char **hostp, uint16_t *portp)
{
    const char *colon = strrchr(s, ':');
    unsigned int port;

    *hostp = NULL;
    if (!colon || !parse_decimal(colon + 1, UINT16_MAX, &port) || !port) {
        return false;
    }
    *hostp = xmemdup0(s, colon - s);
    if (!valid_host_name(*hostp)) {
        free(*hostp);
        *hostp = NULL;
        return false;
    }
    *portp = port;
    return true;
}

/* Not OVS's ip_parse_cidr()/ipv6_parse_cidr(): besides what wg(8) takes
 * (inet_pton() and a length of digits), they take a dotted netmask
 * ("10.0.0.0/255.0.0.0"), white space and signs (" 10.0.0.0/ +8",
 * "/-0"), IPv4 octets with leading zeros or out of range ("010.0.0.300/8")
 * and a bare address whatever 'bare_ok' says. */
bool
wg_addr_parse_prefix(const char *s, bool bare_ok, struct wg_addr_prefix *p)
{
    char *copy = xstrdup(s);
    char *slash = strchr(copy, '/');
    unsigned int len;
    bool ok = false;

    memset(p, 0, sizeof *p);
    if (slash) {
        *slash = '\0';
    } else if (!bare_ok) {
        goto out;
    }
    p->family = strchr(copy, ':') ? AF_INET6 : AF_INET;
    len = p->family == AF_INET ? 32 : 128;
    if (inet_pton(p->family, copy, p->addr) != 1
        || (slash && !parse_decimal(slash + 1, len, &len))) {
        goto out;
    }
    p->len = len;
    ok = true;
out:
    free(copy);
    return ok;
}

void
wg_addr_format_endpoint(struct ds *out, const struct sockaddr_storage *ss)
{
    char addr[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *sin = (const struct sockaddr_in *) ss;

        inet_ntop(AF_INET, &sin->sin_addr, addr, sizeof addr);
        ds_put_format(out, "%s:%u", addr, ntohs(sin->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) ss;

        inet_ntop(AF_INET6, &sin6->sin6_addr, addr, sizeof addr);
        ds_put_format(out, "[%s", addr);
        if (sin6->sin6_scope_id) {
            ds_put_format(out, "%%%"PRIu32, sin6->sin6_scope_id);
        }
        ds_put_format(out, "]:%u", ntohs(sin6->sin6_port));
    }
}
