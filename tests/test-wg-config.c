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
#include "wg-config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "openvswitch/dynamic-string.h"
#include "smap.h"
#include "socket-util.h"
#include "util.h"
#include "wg-addr.h"
#include "wgtest.h"

/* Edge inputs of the numbers and switches in the OVSDB options and in the
 * endpoint and prefix syntax (wg-addr, shared with the UAPI): digits only,
 * leading zeros allowed, no sign, no white space, no overflow, nothing
 * empty, as wg(8) reads them; "true"/"false" exactly.  -1 in 'want': the
 * input must be refused. */

#define WGC_PUB "HIgo9xNzJMWLKASShiTqIybxZ0U3wGLiUeJ1PKf8ykw="

struct wgc_case {
    const char *s;
    long long int want;
};

static const struct wgc_case number_cases[] = {
    { "0", 0 }, { "7", 7 }, { "65535", 65535 }, { "00051820", 51820 },
    { "0000", 0 }, { "65536", -1 }, { "4294967296", -1 },
    { "18446744073709551617", -1 }, { "99999999999999999999999", -1 },
    { "", -1 }, { " 1", -1 }, { "1 ", -1 }, { "\t1", -1 }, { "+1", -1 },
    { "-0", -1 }, { "-1", -1 }, { "0x10", -1 }, { "1e3", -1 }, { "1.0", -1 },
    { "\xd9\xa1", -1 },
};

/* Parses the options "'key'='value'" (with a peer's public key for peer
 * options); returns the number read or -1 if the parse or the peer failed. */
static long long int
parse_one(const char *key, const char *value)
{
    struct wg_config cfg;
    struct smap args = SMAP_INITIALIZER(&args);
    long long int got = -1;
    char *err = NULL;

    wg_config_init(&cfg);
    smap_add(&args, key, value);
    smap_add(&args, "peer.p.public_key", WGC_PUB);
    if (!wg_config_parse(&args, &cfg, &err)) {
        const struct wg_config_peer *p = wg_config_find_peer(&cfg, "p");

        got = (!strcmp(key, "listen_port") ? cfg.listen_port
               : !strcmp(key, "udp_gso") ? cfg.udp_gso
               : p ? (long long int) p->persistent_keepalive : -1);
    }
    WGTEST_CHECK((got < 0)
                 == (err != NULL || !smap_is_empty(&cfg.peer_errors)));
    free(err);
    smap_destroy(&args);
    wg_config_destroy(&cfg);
    return got;
}

static void
test_numbers(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(number_cases); i++) {
        const struct wgc_case *c = &number_cases[i];

        if (parse_one("listen_port", c->s) != c->want
            || parse_one("peer.p.persistent_keepalive", c->s) != c->want) {
            printf("number \"%s\" misparsed\n", c->s);
            WGTEST_CHECK(false);
        }
    }
}

static const struct wgc_case bool_cases[] = {
    { "true", 1 }, { "false", 0 }, { "TRUE", -1 }, { "False", -1 },
    { "flase", -1 }, { "1", -1 }, { "0", -1 }, { "yes", -1 }, { "", -1 },
    { " true", -1 }, { "true ", -1 },
};

static void
test_switches(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(bool_cases); i++) {
        if (parse_one("udp_gso", bool_cases[i].s) != bool_cases[i].want) {
            printf("switch \"%s\" misparsed\n", bool_cases[i].s);
            WGTEST_CHECK(false);
        }
    }
}

/* Returns the port of endpoint 's', or -1 if it is refused. */
static long long int
endpoint_port(const char *s)
{
    struct sockaddr_storage ss;
    socklen_t len;

    return wg_addr_parse_endpoint(s, &ss, &len) ? ss_get_port(&ss) : -1;
}

static void
test_endpoints(void)
{
    static const struct wgc_case scope_cases[] = {
        { "[fe80::1%1]:1", 1 }, { "[fe80::1%0001]:1", 1 },
        { "[fe80::1%4294967295]:1", 1 }, { "[fe80::1%4294967296]:1", -1 },
        { "[fe80::1%+1]:1", -1 }, { "[fe80::1% 1]:1", -1 },
        { "[fe80::1%-1]:1", -1 }, { "[fe80::1%]:1", -1 },
    };
    struct ds s = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < ARRAY_SIZE(number_cases); i++) {
        const struct wgc_case *c = &number_cases[i];

        ds_clear(&s);
        ds_put_format(&s, "192.0.2.1:%s", c->s);
        WGTEST_CHECK(endpoint_port(ds_cstr(&s)) == c->want);
        ds_clear(&s);
        ds_put_format(&s, "[2001:db8::1]:%s", c->s);
        WGTEST_CHECK(endpoint_port(ds_cstr(&s)) == c->want);
    }
    for (size_t i = 0; i < ARRAY_SIZE(scope_cases); i++) {
        const struct wgc_case *c = &scope_cases[i];

        if (endpoint_port(c->s) != c->want) {
            printf("endpoint \"%s\" misparsed\n", c->s);
            WGTEST_CHECK(false);
        }
    }
    ds_destroy(&s);
}

/* Returns the port of host-name endpoint 's', or -1 if it is refused; the
 * name must come back as the text before the last ':'. */
static long long int
host_endpoint_port(const char *s)
{
    uint16_t port;
    char *host;

    if (!wg_addr_parse_host_endpoint(s, &host, &port)) {
        WGTEST_CHECK(host == NULL);
        return -1;
    }
    WGTEST_CHECK(!strncmp(host, s, strlen(host)) && s[strlen(host)] == ':');
    free(host);
    return port;
}

/* Host names: RFC 1123 labels, no all-digit last label (a malformed IPv4
 * address is no name), a port of 1..65535; and through the options, a
 * name kept as text for the port to resolve, a bad one a peer error. */
static void
test_host_endpoints(void)
{
    static const struct wgc_case cases[] = {
        { "peer-b.example:51820", 51820 }, { "localhost:1", 1 },
        { "a:65535", 65535 }, { "3com.example:7", 7 }, { "x1.y2:9", 9 },
        { "a.b:0", -1 }, { "a.b:65536", -1 }, { "a.b:", -1 }, { "a.b", -1 },
        { ":51820", -1 }, { "a..b:1", -1 }, { ".a:1", -1 }, { "a.:1", -1 },
        { "-a:1", -1 }, { "a-:1", -1 }, { "a_b:1", -1 }, { "a b:1", -1 },
        { "10.0.0.300:1", -1 }, { "192.0.2.1:1", -1 }, { "1:1", -1 },
        { "[a.b]:1", -1 }, { "a:b:1", -1 }, { "a.b: 1", -1 },
        { "\xc3\xa9.example:1", -1 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1",
          1 },
        { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1",
          -1 },
    };
    struct ds s = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        if (host_endpoint_port(cases[i].s) != cases[i].want) {
            printf("host endpoint \"%s\" misparsed\n", cases[i].s);
            WGTEST_CHECK(false);
        }
    }
    for (int i = 0; i < 64; i++) {
        ds_put_cstr(&s, "abc.");            /* 256 characters. */
    }
    ds_chomp(&s, '.');
    ds_put_cstr(&s, ":1");
    WGTEST_CHECK(host_endpoint_port(ds_cstr(&s)) == -1);
    ds_destroy(&s);
}

/* The endpoint of peer "p" parsed from the options: its host name (or
 * "" for an address, "-" if the peer was refused). */
static char *
options_endpoint_host(const char *endpoint)
{
    struct wg_config cfg;
    struct smap args = SMAP_INITIALIZER(&args);
    const struct wg_config_peer *p;
    char *err = NULL, *host;

    wg_config_init(&cfg);
    smap_add(&args, "peer.p.public_key", WGC_PUB);
    smap_add(&args, "peer.p.endpoint", endpoint);
    WGTEST_CHECK(!wg_config_parse(&args, &cfg, &err));
    p = wg_config_find_peer(&cfg, "p");
    host = xstrdup(!p ? "-" : p->endpoint_host ? p->endpoint_host : "");
    WGTEST_CHECK(!p == !smap_is_empty(&cfg.peer_errors));
    WGTEST_CHECK(!p || (p->endpoint_host ? p->endpoint_port == 51820
                        && !p->endpoint_len
                        : p->endpoint_len != 0));
    free(err);
    smap_destroy(&args);
    wg_config_destroy(&cfg);
    return host;
}

static void
test_options_host_endpoints(void)
{
    static const char *cases[][2] = {
        { "peer-b.example:51820", "peer-b.example" },
        { "192.0.2.1:51820", "" }, { "[2001:db8::1]:51820", "" },
        { "peer_b:51820", "-" }, { "peer-b.example:0", "-" },
        { "192.0.2.1:0", "-" }, { "300.0.0.1:51820", "-" },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *host = options_endpoint_host(cases[i][0]);

        if (strcmp(host, cases[i][1])) {
            printf("option endpoint \"%s\": \"%s\"\n", cases[i][0], host);
            WGTEST_CHECK(false);
        }
        free(host);
    }
}

/* Returns the prefix length of 's' (bare addresses allowed), -1 if it is
 * refused. */
static long long int
prefix_len(const char *s)
{
    struct wg_addr_prefix p;

    return wg_addr_parse_prefix(s, true, &p) ? (long long int) p.len : -1;
}

static void
test_prefixes(void)
{
    static const struct wgc_case cases[] = {
        { "10.0.0.0/8", 8 }, { "10.0.0.0/008", 8 }, { "10.0.0.0/0", 0 },
        { "10.0.0.0/32", 32 }, { "10.0.0.0/33", -1 }, { "10.0.0.0", 32 },
        { "10.0.0.0/", -1 }, { "10.0.0.0/+8", -1 }, { "10.0.0.0/ 8", -1 },
        { "10.0.0.0/-0", -1 }, { "10.0.0.0/8 ", -1 }, { " 10.0.0.0/8", -1 },
        { "10.0.0.0/255.0.0.0", -1 }, { "010.0.0.0/8", -1 },
        { "10.0.0.300/8", -1 }, { "10.0.0.0/4294967304", -1 },
        { "fd00::/64", 64 }, { "fd00::/0128", 128 }, { "fd00::/129", -1 },
        { "fd00::", 128 }, { "fd00::/+64", -1 }, { "fd00::/ffff::", -1 },
        { "", -1 }, { "/8", -1 },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        if (prefix_len(cases[i].s) != cases[i].want) {
            printf("prefix \"%s\" misparsed\n", cases[i].s);
            WGTEST_CHECK(false);
        }
    }
}

static void
test_wg_config_numbers(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    test_numbers();
    test_switches();
    test_endpoints();
    test_host_endpoints();
    test_options_host_endpoints();
    test_prefixes();
}
WGTEST_REGISTER("wg-config-numbers", test_wg_config_numbers);
