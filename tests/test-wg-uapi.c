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
#include "wg-uapi.h"

#include <errno.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"
#include "wgtest.h"

/* Tests of the UAPI protocol over strings.  Requests and expected replies
 * are written with placeholders for keys, expanded by expand():
 *
 *   $PRIV $PUB     the device's key pair (hex)
 *   $P1 .. $P4     public keys of peers 1 to 4
 *   $Q1            the private key of peer 1 (to collide with it)
 *   $PRIV2         another private key
 *   $PSK           a preshared key
 *   $STATS         the statistics lines of a peer without traffic */

#define N_KEYS 7
enum { K_DEV, K_P1, K_P2, K_P3, K_P4, K_PRIV2, K_PSK };

static uint8_t privs[N_KEYS][WG_KEY_LEN];
static uint8_t pubs[N_KEYS][WG_KEY_LEN];

/* State behind the test's hooks. */
struct hook_state {
    uint16_t listen_port;
    int n_key_changed;
    int n_peer_changed;
    int n_peer_removing;
    int n_replaced;
};

static struct hook_state hs;

static uint16_t
test_get_listen_port(void *aux OVS_UNUSED)
{
    return hs.listen_port;
}

static int
test_set_listen_port(void *aux OVS_UNUSED, uint16_t port)
{
    if (port == 1) {
        return EADDRINUSE;
    }
    hs.listen_port = port;
    return 0;
}

static void
test_key_changed(void *aux OVS_UNUSED)
{
    hs.n_key_changed++;
}

static void
test_peer_changed(void *aux OVS_UNUSED, struct wg_peer *peer OVS_UNUSED)
{
    hs.n_peer_changed++;
}

static void
test_peer_removing(void *aux OVS_UNUSED, struct wg_peer *peer OVS_UNUSED)
{
    hs.n_peer_removing++;
}

static void
test_peers_replaced(void *aux OVS_UNUSED)
{
    hs.n_replaced++;
}

static const struct wg_uapi_hooks test_hooks = {
    .get_listen_port = test_get_listen_port,
    .set_listen_port = test_set_listen_port,
    .private_key_changed = test_key_changed,
    .peer_changed = test_peer_changed,
    .peer_removing = test_peer_removing,
    .peers_replaced = test_peers_replaced,
};

static void
drop_send(void *aux OVS_UNUSED, const struct sockaddr *dst OVS_UNUSED,
          socklen_t dst_len OVS_UNUSED, const void *msg OVS_UNUSED,
          size_t len OVS_UNUSED)
{
}

static long long int
fixed_now(void *aux OVS_UNUSED)
{
    return 1000000;
}

static void
fixed_wall_clock(void *aux OVS_UNUSED, struct timespec *ts)
{
    ts->tv_sec = 1700000000;
    ts->tv_nsec = 0;
}

static void
init_keys(void)
{
    wg_crypto_init();
    for (int i = 0; i < N_KEYS; i++) {
        memset(privs[i], 0x11 * (i + 1), WG_KEY_LEN);
        privs[i][0] &= 248;
        privs[i][31] = (privs[i][31] & 127) | 64;
        WGTEST_CHECK(wg_crypto_public_key(pubs[i], privs[i]));
    }
}

static struct wg_device *
new_device(void)
{
    static const struct wg_device_hooks dev_hooks = {
        .send = drop_send,
        .now_ms = fixed_now,
        .wall_clock = fixed_wall_clock,
    };

    memset(&hs, 0, sizeof hs);
    return wg_device_create(&dev_hooks, NULL);
}

static void
put_hex(struct ds *s, const uint8_t key[WG_KEY_LEN])
{
    char hex[WG_KEY_HEX_LEN];

    wg_crypto_key_to_hex(hex, key);
    ds_put_cstr(s, hex);
}

/* Returns 'tmpl' with its placeholders replaced (see above). */
static char *
expand(const char *tmpl)
{
    static const struct {
        const char *token;
        int key;
        bool priv;
    } tokens[] = {
        { "$PRIV2", K_PRIV2, true }, { "$PRIV", K_DEV, true },
        { "$PUB", K_DEV, false }, { "$P1", K_P1, false },
        { "$P2", K_P2, false }, { "$P3", K_P3, false },
        { "$P4", K_P4, false }, { "$Q1", K_P1, true },
        { "$PSK", K_PSK, true },
    };
    struct ds s = DS_EMPTY_INITIALIZER;

    while (*tmpl) {
        size_t i;

        if (!strncmp(tmpl, "$STATS", 6)) {
            ds_put_cstr(&s, "last_handshake_time_sec=0\n"
                        "last_handshake_time_nsec=0\n"
                        "tx_bytes=0\nrx_bytes=0\n");
            tmpl += 6;
            continue;
        }
        for (i = 0; i < ARRAY_SIZE(tokens); i++) {
            size_t n = strlen(tokens[i].token);

            if (!strncmp(tmpl, tokens[i].token, n)) {
                int k = tokens[i].key;

                put_hex(&s, tokens[i].priv ? privs[k] : pubs[k]);
                tmpl += n;
                break;
            }
        }
        if (i == ARRAY_SIZE(tokens)) {
            ds_put_char(&s, *tmpl++);
        }
    }
    return ds_steal_cstr(&s);
}

/* Sends the request 'tmpl' (expanded) and returns the errno it got; the
 * reply goes to '*replyp' if nonnull. */
static int
request(struct wg_device *dev, const char *tmpl, char **replyp)
{
    struct ds reply = DS_EMPTY_INITIALIZER;
    char *req = expand(tmpl);
    int error;

    error = wg_uapi_handle(dev, &test_hooks, NULL, req, strlen(req), &reply);
    free(req);
    if (replyp) {
        *replyp = ds_steal_cstr(&reply);
    } else {
        wg_uapi_ds_wipe(&reply);
    }
    return error;
}

/* Returns the get reply of 'dev' without its final "errno=0\n\n". */
static char *
get_text(struct wg_device *dev)
{
    char *reply;
    size_t len;

    WGTEST_CHECK(request(dev, "get=1\n\n", &reply) == 0);
    len = strlen(reply);
    WGTEST_CHECK(len >= 9 && !strcmp(reply + len - 9, "errno=0\n\n"));
    reply[len - 9] = '\0';
    return reply;
}

static void
check_text(const char *what, const char *got, const char *want_tmpl)
{
    char *want = expand(want_tmpl);

    if (strcmp(got, want)) {
        fprintf(stderr, "%s: got:\n%s\nwanted:\n%s\n", what, got, want);
        wgtest_fail(__FILE__, __LINE__, what);
    }
    free(want);
}

#define BASE_SETUP                                                      \
    "set=1\nprivate_key=$PRIV\nlisten_port=51820\n"                     \
    "public_key=$P1\nendpoint=192.0.2.1:51820\nallowed_ip=10.0.0.0/24\n\n"

#define BASE_DEV "private_key=$PRIV\nlisten_port=51820\n"
#define BASE_P1                                                         \
    "public_key=$P1\nprotocol_version=1\nendpoint=192.0.2.1:51820\n"    \
    "$STATS" "persistent_keepalive_interval=0\nallowed_ip=10.0.0.0/24\n"
#define BASE_GET BASE_DEV BASE_P1

struct set_case {
    const char *name;
    bool fresh;             /* Start without BASE_SETUP. */
    const char *request;
    int error;
    const char *expect;     /* get text afterwards. */
};

static const struct set_case set_cases[] = {
    { "every key", true,
      "set=1\nprivate_key=$PRIV\nlisten_port=51821\nfwmark=0\n"
      "replace_peers=true\n"
      "public_key=$P1\npreshared_key=$PSK\nendpoint=192.0.2.1:51820\n"
      "persistent_keepalive_interval=0\nreplace_allowed_ips=true\n"
      "allowed_ip=10.0.0.0/24\nallowed_ip=fd00::1/64\nprotocol_version=1\n"
      "public_key=$P2\nendpoint=[2001:db8::1]:443\n"
      "persistent_keepalive_interval=25\nallowed_ip=10.0.1.5/32\n"
      "public_key=$P3\nupdate_only=true\nallowed_ip=10.0.3.0/24\n"
      "public_key=$P4\nremove=true\n\n", 0,
      "private_key=$PRIV\nlisten_port=51821\n"
      "public_key=$P1\npreshared_key=$PSK\nprotocol_version=1\n"
      "endpoint=192.0.2.1:51820\n"
      "$STATS" "persistent_keepalive_interval=0\n"
      "allowed_ip=10.0.0.0/24\nallowed_ip=fd00::/64\n"
      "public_key=$P2\nprotocol_version=1\nendpoint=[2001:db8::1]:443\n"
      "last_handshake_time_sec=0\nlast_handshake_time_nsec=0\n"
      "tx_bytes=148\nrx_bytes=0\n"    /* Keepalive: a handshake started. */
      "persistent_keepalive_interval=25\n"
      "allowed_ip=10.0.1.5/32\n" },
    { "empty set", false, "set=1\n\n", 0, BASE_GET },
    { "no final blank line", false, "set=1\nlisten_port=7", 0,
      "private_key=$PRIV\nlisten_port=7\n" BASE_P1 },
    { "bad hex", false, "set=1\nprivate_key=$PRIV2\npublic_key=$P2\n"
      "preshared_key=zz\n\n", EINVAL, BASE_GET },
    { "bad hex char", false, "set=1\npublic_key=g$P2\n\n", EINVAL,
      BASE_GET },
    { "short key", false, "set=1\npublic_key=abcd\n\n", EINVAL, BASE_GET },
    { "endpoint without port", false,
      "set=1\npublic_key=$P1\nendpoint=192.0.2.9\n\n", EINVAL, BASE_GET },
    { "endpoint port too big", false,
      "set=1\npublic_key=$P1\nendpoint=192.0.2.9:65536\n\n", EINVAL,
      BASE_GET },
    { "endpoint v6 without brackets", false,
      "set=1\npublic_key=$P1\nendpoint=2001:db8::1:5\n\n", EINVAL,
      BASE_GET },
    { "endpoint unclosed bracket", false,
      "set=1\npublic_key=$P1\nendpoint=[2001:db8::1:5\n\n", EINVAL,
      BASE_GET },
    { "endpoint hostname", false,
      "set=1\npublic_key=$P1\nendpoint=example.com:5\n\n", EINVAL,
      BASE_GET },
    { "endpoint bad scope", false,
      "set=1\npublic_key=$P1\nendpoint=[fe80::1%nosuchif0]:5\n\n", EINVAL,
      BASE_GET },
    { "endpoint signed port", false,
      "set=1\npublic_key=$P1\nendpoint=192.0.2.9:+5\n\n", EINVAL,
      BASE_GET },
    { "unknown key", false, "set=1\nlisten_port=99\nfoo=bar\n\n", EPROTO,
      BASE_GET },
    { "unknown peer key", false,
      "set=1\npublic_key=$P2\nrx_bytes=5\n\n", EPROTO, BASE_GET },
    { "line without =", false, "set=1\nlisten_port=99\nhello\n\n", EPROTO,
      BASE_GET },
    { "device key in peer section", false,
      "set=1\npublic_key=$P2\nlisten_port=99\n\n", EPROTO, BASE_GET },
    { "peer key before public_key", false,
      "set=1\nallowed_ip=10.9.0.0/16\n\n", EPROTO, BASE_GET },
    { "update_only on a missing peer", false,
      "set=1\npublic_key=$P2\nupdate_only=true\nallowed_ip=10.2.0.0/16\n\n",
      0, BASE_GET },
    { "update_only on an existing peer", false,
      "set=1\npublic_key=$P1\nupdate_only=true\n"
      "endpoint=198.51.100.7:1\n\n", 0,
      BASE_DEV "public_key=$P1\nprotocol_version=1\n"
      "endpoint=198.51.100.7:1\n$STATS"
      "persistent_keepalive_interval=0\nallowed_ip=10.0.0.0/24\n" },
    { "remove", false, "set=1\npublic_key=$P1\nremove=true\n\n", 0,
      BASE_DEV },
    { "remove a missing peer", false,
      "set=1\npublic_key=$P2\nremove=true\n\n", 0, BASE_GET },
    { "remove=false", false, "set=1\npublic_key=$P1\nremove=false\n\n",
      EINVAL, BASE_GET },
    { "replace_peers", false,
      "set=1\nreplace_peers=true\npublic_key=$P2\n\n", 0,
      BASE_DEV "public_key=$P2\nprotocol_version=1\n$STATS"
      "persistent_keepalive_interval=0\n" },
    { "replace_peers=1", false, "set=1\nreplace_peers=1\n\n", EINVAL,
      BASE_GET },
    { "replace_allowed_ips", false,
      "set=1\npublic_key=$P1\nreplace_allowed_ips=true\n"
      "allowed_ip=10.7.0.0/16\n\n", 0,
      BASE_DEV "public_key=$P1\nprotocol_version=1\n"
      "endpoint=192.0.2.1:51820\n$STATS"
      "persistent_keepalive_interval=0\nallowed_ip=10.7.0.0/16\n" },
    { "allowed_ip adds", false,
      "set=1\npublic_key=$P1\nallowed_ip=10.7.0.0/16\n\n", 0,
      BASE_GET "allowed_ip=10.7.0.0/16\n" },
    { "allowed_ip moves between peers", false,
      "set=1\npublic_key=$P2\nallowed_ip=10.0.0.0/24\n\n", 0,
      BASE_DEV "public_key=$P1\nprotocol_version=1\n"
      "endpoint=192.0.2.1:51820\n$STATS"
      "persistent_keepalive_interval=0\n"
      "public_key=$P2\nprotocol_version=1\n$STATS"
      "persistent_keepalive_interval=0\nallowed_ip=10.0.0.0/24\n" },
    { "allowed_ip /33", false,
      "set=1\npublic_key=$P1\nallowed_ip=10.0.0.0/33\n\n", EINVAL,
      BASE_GET },
    { "allowed_ip /129", false,
      "set=1\npublic_key=$P1\nallowed_ip=fd00::/129\n\n", EINVAL,
      BASE_GET },
    { "allowed_ip without length", false,
      "set=1\npublic_key=$P1\nallowed_ip=10.0.0.0\n\n", EINVAL, BASE_GET },
    { "allowed_ip bad address", false,
      "set=1\npublic_key=$P1\nallowed_ip=10.0.0.256/8\n\n", EINVAL,
      BASE_GET },
    { "protocol_version=2", false,
      "set=1\npublic_key=$P1\nprotocol_version=2\n\n", EPROTONOSUPPORT,
      BASE_GET },
    { "protocol_version=x", false,
      "set=1\npublic_key=$P1\nprotocol_version=x\n\n", EINVAL, BASE_GET },
    { "fwmark=1", false, "set=1\nfwmark=1\n\n", EOPNOTSUPP, BASE_GET },
    { "keepalive too big", false,
      "set=1\npublic_key=$P1\npersistent_keepalive_interval=65536\n\n",
      EINVAL, BASE_GET },
    { "listen port in use", false,
      "set=1\nprivate_key=$PRIV2\nlisten_port=1\npublic_key=$P2\n\n",
      EADDRINUSE, "private_key=$PRIV2\nlisten_port=51820\n" BASE_P1 },
    { "zero private key removes it", false,
      "set=1\nprivate_key="
      "0000000000000000000000000000000000000000000000000000000000000000"
      "\n\n", 0, "listen_port=51820\n" BASE_P1 },
    { "private key of a peer removes it", false,
      "set=1\nprivate_key=$Q1\n\n", 0,
      "private_key=$Q1\nlisten_port=51820\n" },
    { "own public key is ignored", false,
      "set=1\npublic_key=$PUB\nallowed_ip=10.5.0.0/16\n\n", 0, BASE_GET },
    { "endpoint with scope", false,
      "set=1\npublic_key=$P1\nendpoint=[fe80::1%1]:5\n\n", 0,
      BASE_DEV "public_key=$P1\nprotocol_version=1\n"
      "endpoint=[fe80::1%1]:5\n$STATS"
      "persistent_keepalive_interval=0\nallowed_ip=10.0.0.0/24\n" },
};

static void
check_hooks(void)
{
    struct wg_device *dev = new_device();

    WGTEST_CHECK(request(dev, BASE_SETUP, NULL) == 0);
    WGTEST_CHECK(hs.n_key_changed == 1 && hs.n_peer_changed == 1);
    WGTEST_CHECK(request(dev, "set=1\nprivate_key=$PRIV\n\n", NULL) == 0);
    WGTEST_CHECK(hs.n_key_changed == 1);        /* Unchanged key. */
    WGTEST_CHECK(request(dev, "set=1\npublic_key=$P2\npublic_key=$P3\n"
                         "public_key=$P4\nupdate_only=true\n\n", NULL) == 0);
    WGTEST_CHECK(hs.n_peer_changed == 3 && hs.n_peer_removing == 0);
    WGTEST_CHECK(request(dev, "set=1\npublic_key=$P2\nremove=true\n\n",
                         NULL) == 0);
    WGTEST_CHECK(hs.n_peer_removing == 1);
    WGTEST_CHECK(request(dev, "set=1\nreplace_peers=true\n\n", NULL) == 0);
    WGTEST_CHECK(hs.n_peer_removing == 3 && hs.n_replaced == 1);
    WGTEST_CHECK(wg_device_peer_count(dev) == 0);
    WGTEST_CHECK(request(dev, "set=1\npublic_key=$P1\n\n", NULL) == 0);
    WGTEST_CHECK(request(dev, "set=1\nprivate_key=$Q1\n\n", NULL) == 0);
    WGTEST_CHECK(hs.n_peer_removing == 4 && hs.n_key_changed == 2);
    wg_device_destroy(dev);
}

static void
run_set_cases(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(set_cases); i++) {
        const struct set_case *c = &set_cases[i];
        struct wg_device *dev = new_device();
        char *text;
        int error;

        if (!c->fresh) {
            WGTEST_CHECK(request(dev, BASE_SETUP, NULL) == 0);
        }
        error = request(dev, c->request, NULL);
        if (error != c->error) {
            fprintf(stderr, "%s: errno %d, wanted %d\n", c->name, error,
                    c->error);
            wgtest_fail(__FILE__, __LINE__, c->name);
        }
        text = get_text(dev);
        check_text(c->name, text, c->expect);
        free(text);
        wg_device_destroy(dev);
    }
}

/* Replies on the wire: the errno sign wg(8) expects for each request. */
static void
check_replies(void)
{
    static const struct {
        const char *req;
        const char *reply;
    } cases[] = {
        { "set=1\nfoo=1\n\n", "errno=-71\n\n" },
        { "set=1\nlisten_port=x\n\n", "errno=-22\n\n" },
        { "set=1\n\n", "errno=0\n\n" },
        { "get=1\nx\n\n", "errno=22\n\n" },
        { "get=2\n\n", "errno=-71\n\n" },
        { "\n", "errno=-71\n\n" },
        { "", "errno=-71\n\n" },
        { "get=1", "errno=0\n\n" },
    };
    struct wg_device *dev = new_device();

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        char *reply;

        request(dev, cases[i].req, &reply);
        check_text(cases[i].req, reply, cases[i].reply);
        free(reply);
    }
    wg_device_destroy(dev);
}

/* A null byte inside a line is refused. */
static void
check_null_byte(void)
{
    static const char req[] = "set=1\nlisten_port=5\0\n\n";
    struct wg_device *dev = new_device();
    struct ds reply = DS_EMPTY_INITIALIZER;

    WGTEST_CHECK(wg_uapi_handle(dev, &test_hooks, NULL, req, sizeof req - 1,
                                &reply) == EINVAL);
    WGTEST_CHECK(hs.listen_port == 0);
    wg_uapi_ds_wipe(&reply);
    wg_device_destroy(dev);
}

/* The exact get reply of a device with two peers, and where its private
 * key appears. */
static void
check_print(void)
{
    struct wg_device *dev = new_device();
    char priv_b64[WG_KEY_B64_LEN];
    char *reply, *priv_line, *p;

    WGTEST_CHECK(request(dev, "set=1\nprivate_key=$PRIV\nlisten_port=51820\n"
                         "public_key=$P1\nendpoint=192.0.2.1:51820\n"
                         "allowed_ip=10.0.0.0/24\nallowed_ip=fd00:1::/64\n"
                         "public_key=$P2\nendpoint=[2001:db8::2]:51821\n"
                         "allowed_ip=10.0.1.0/24\n"
                         "allowed_ip=192.168.7.1/32\n\n", NULL) == 0);
    WGTEST_CHECK(request(dev, "get=1\n\n", &reply) == 0);
    check_text("print", reply,
               "private_key=$PRIV\nlisten_port=51820\n"
               "public_key=$P1\nprotocol_version=1\n"
               "endpoint=192.0.2.1:51820\n$STATS"
               "persistent_keepalive_interval=0\n"
               "allowed_ip=10.0.0.0/24\nallowed_ip=fd00:1::/64\n"
               "public_key=$P2\nprotocol_version=1\n"
               "endpoint=[2001:db8::2]:51821\n$STATS"
               "persistent_keepalive_interval=0\n"
               "allowed_ip=10.0.1.0/24\nallowed_ip=192.168.7.1/32\n"
               "errno=0\n\n");

    /* The private key: once, on the first line, never in base64. */
    priv_line = expand("private_key=$PRIV\n");
    WGTEST_CHECK(!strncmp(reply, priv_line, strlen(priv_line)));
    p = strstr(reply, priv_line + strlen("private_key="));
    WGTEST_CHECK(p && !strstr(p + 1, priv_line + strlen("private_key=")));
    wg_crypto_key_to_base64(priv_b64, privs[K_DEV]);
    WGTEST_CHECK(!strstr(reply, priv_b64));
    free(priv_line);
    free(reply);
    wg_device_destroy(dev);
}

static void
test_uapi_proto(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    init_keys();
    run_set_cases();
    check_hooks();
    check_replies();
    check_null_byte();
    check_print();
    printf("%"PRIuSIZE" set cases passed\n", ARRAY_SIZE(set_cases));
}
WGTEST_REGISTER("uapi-proto", test_uapi_proto);

/* Requests served a step at a time (struct wg_uapi_job): with a deadline
 * already past, each wg_uapi_job_run() does one step. */

#define SLICE_PEERS 50

/* Public key 'i' of the slice tests (not a low-order point). */
static void
slice_key(uint8_t key[WG_KEY_LEN], int i)
{
    for (int k = 0; k < WG_KEY_LEN; k++) {
        key[k] = i * 7 + k;
    }
}

/* "set=1" with SLICE_PEERS peers (slice_key() 1, 2, ...), 'head' first and
 * 'tail' last. */
static char *
slice_request(const char *head, const char *tail)
{
    struct ds s = DS_EMPTY_INITIALIZER;

    ds_put_format(&s, "set=1\n%s", head);
    for (int i = 1; i <= SLICE_PEERS; i++) {
        uint8_t key[WG_KEY_LEN];

        slice_key(key, i);
        ds_put_cstr(&s, "public_key=");
        put_hex(&s, key);
        ds_put_format(&s, "\nallowed_ip=10.0.%d.0/24\n", i);
    }
    ds_put_format(&s, "%s\n", tail);
    return ds_steal_cstr(&s);
}

/* Runs 'req' on 'dev' one step per call; returns the errno it replied,
 * with the number of calls in '*calls' and the peer counts seen between
 * calls, smallest and largest, in '*min' and '*max'. */
static int
run_sliced(struct wg_device *dev, const char *req, int *calls,
           size_t *min, size_t *max, struct ds *reply)
{
    struct wg_uapi_job *job = wg_uapi_job_create(req, strlen(req), reply);
    int error;

    *calls = 0;
    *min = SIZE_MAX;
    *max = 0;
    while (!wg_uapi_job_run(job, dev, &test_hooks, NULL, 0, reply)) {
        size_t n = wg_device_peer_count(dev);

        *calls += 1;
        *min = MIN(*min, n);
        *max = MAX(*max, n);
    }
    error = wg_uapi_job_error(job);
    wg_uapi_job_destroy(job);
    return error;
}

static size_t
count_str(const char *s, const char *needle)
{
    size_t n = 0;

    for (; (s = strstr(s, needle)); s++) {
        n++;
    }
    return n;
}

static void
test_uapi_slices(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_device *dev = new_device();
    struct ds reply = DS_EMPTY_INITIALIZER;
    char *bad = slice_request("", "listen_port=x\n");
    char *good = slice_request("replace_peers=true\n", "");
    size_t min, max;
    int calls;

    /* A bad last line: checked in slices, nothing applied. */
    WGTEST_CHECK(run_sliced(dev, bad, &calls, &min, &max, &reply) == EPROTO);
    WGTEST_CHECK(calls > 0 && max == 0);

    /* Peers added a section at a time. */
    ds_clear(&reply);
    WGTEST_CHECK(run_sliced(dev, good, &calls, &min, &max, &reply) == 0);
    WGTEST_CHECK(wg_device_peer_count(dev) == SLICE_PEERS);
    WGTEST_CHECK(min == 0 && max == SLICE_PEERS && calls > SLICE_PEERS);

    /* replace_peers=true removes them a peer at a time. */
    ds_clear(&reply);
    WGTEST_CHECK(run_sliced(dev, "set=1\nreplace_peers=true\n\n", &calls,
                            &min, &max, &reply) == 0);
    WGTEST_CHECK(wg_device_peer_count(dev) == 0);
    WGTEST_CHECK(min == 0 && max == SLICE_PEERS && calls > SLICE_PEERS);

    /* A get lists the peers present at its first step that are still
     * there at their turn. */
    ds_clear(&reply);
    WGTEST_CHECK(run_sliced(dev, good, &calls, &min, &max, &reply) == 0);
    ds_clear(&reply);
    struct wg_uapi_job *job = wg_uapi_job_create("get=1\n\n", 7, &reply);
    uint8_t last[WG_KEY_LEN];

    slice_key(last, SLICE_PEERS);

    WGTEST_CHECK(!wg_uapi_job_run(job, dev, &test_hooks, NULL, 0, &reply));
    wg_device_peer_remove(dev, wg_device_peer_lookup(dev, last));
    while (!wg_uapi_job_run(job, dev, &test_hooks, NULL, 0, &reply)) {
        continue;
    }
    WGTEST_CHECK(wg_uapi_job_error(job) == 0);
    WGTEST_CHECK(count_str(ds_cstr(&reply), "public_key=")
                 == SLICE_PEERS - 1);
    wg_uapi_job_destroy(job);

    wg_uapi_ds_wipe(&reply);
    free(bad);
    free(good);
    wg_device_destroy(dev);
    printf("sliced set, replace and get passed\n");
}
WGTEST_REGISTER("uapi-slices", test_uapi_slices);
