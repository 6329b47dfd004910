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

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coverage.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-crypto.h"
#include "wg-device.h"

VLOG_DEFINE_THIS_MODULE(wg_uapi);

COVERAGE_DEFINE(wg_uapi_get);
COVERAGE_DEFINE(wg_uapi_set);
COVERAGE_DEFINE(wg_uapi_error);

/* One parsed line of a set request. */
enum uapi_key {
    K_PRIVATE_KEY,
    K_LISTEN_PORT,
    K_FWMARK,
    K_REPLACE_PEERS,
    K_PUBLIC_KEY,
    K_REMOVE,
    K_UPDATE_ONLY,
    K_PRESHARED_KEY,
    K_ENDPOINT,
    K_KEEPALIVE,
    K_REPLACE_ALLOWED_IPS,
    K_ALLOWED_IP,
    K_PROTOCOL_VERSION,
};

struct uapi_op {
    enum uapi_key key;
    union {
        uint8_t key[WG_KEY_LEN];
        uint32_t num;
        struct {
            /* Large enough for AF_INET and AF_INET6, and much smaller than
             * a sockaddr_storage: a request may hold millions of ops. */
            struct sockaddr_in6 sa;
            socklen_t len;
        } ep;
        struct wg_addr_prefix ip;
    } u;
};

typedef int uapi_parse_func(const char *value, struct uapi_op *);

static uapi_parse_func parse_key, parse_u16, parse_u32, parse_true,
    parse_endpoint, parse_prefix, parse_fwmark, parse_version;

struct uapi_key_def {
    const char *name;
    enum uapi_key key;
    bool in_peer;               /* Valid after a public_key line. */
    uapi_parse_func *parse;
};

static const struct uapi_key_def key_defs[] = {
    { "private_key", K_PRIVATE_KEY, false, parse_key },
    { "listen_port", K_LISTEN_PORT, false, parse_u16 },
    { "fwmark", K_FWMARK, false, parse_fwmark },
    { "replace_peers", K_REPLACE_PEERS, false, parse_true },
    { "public_key", K_PUBLIC_KEY, true, parse_key },
    { "remove", K_REMOVE, true, parse_true },
    { "update_only", K_UPDATE_ONLY, true, parse_true },
    { "preshared_key", K_PRESHARED_KEY, true, parse_key },
    { "endpoint", K_ENDPOINT, true, parse_endpoint },
    { "persistent_keepalive_interval", K_KEEPALIVE, true, parse_u16 },
    { "replace_allowed_ips", K_REPLACE_ALLOWED_IPS, true, parse_true },
    { "allowed_ip", K_ALLOWED_IP, true, parse_prefix },
    { "protocol_version", K_PROTOCOL_VERSION, true, parse_version },
};

/* Buffers holding secrets. */

void
wg_uapi_ds_put_secret(struct ds *ds, const void *s, size_t n)
{
    size_t need = ds->length + n;

    if (!ds->string || need > ds->allocated) {
        struct ds bigger = DS_EMPTY_INITIALIZER;

        ds_reserve(&bigger, MAX(need, 2 * ds->allocated));
        if (ds->string) {
            ds_put_buffer(&bigger, ds->string, ds->length);
            wg_uapi_ds_wipe(ds);
        }
        *ds = bigger;
    }
    ds_put_buffer(ds, s, n);
}

void
wg_uapi_ds_wipe(struct ds *ds)
{
    if (ds->string) {
        wg_crypto_wipe(ds->string, ds->allocated);
    }
    ds_destroy(ds);
}

static void OVS_PRINTF_FORMAT(2, 3)
put_line(struct ds *out, const char *format, ...)
{
    char line[256];
    va_list args;
    int n;

    va_start(args, format);
    n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    ovs_assert(n >= 0 && n < sizeof line);
    wg_uapi_ds_put_secret(out, line, n);
    wg_crypto_wipe(line, sizeof line);
}

static void
put_key_line(struct ds *out, const char *name, const uint8_t key[WG_KEY_LEN])
{
    char hex[WG_KEY_HEX_LEN];

    wg_crypto_key_to_hex(hex, key);
    put_line(out, "%s=%s\n", name, hex);
    wg_crypto_wipe(hex, sizeof hex);
}

/* Value parsers: each returns 0 or a positive errno value. */

/* Parses a decimal number of at most 'max' without sign or spaces. */
static int
parse_decimal(const char *s, unsigned long long max, unsigned long long *np)
{
    unsigned long long n = 0;

    if (!*s) {
        return EINVAL;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return EINVAL;
        }
        n = n * 10 + (*s - '0');
        if (n > max) {
            return EINVAL;
        }
    }
    *np = n;
    return 0;
}

static int
parse_key(const char *value, struct uapi_op *op)
{
    return wg_crypto_key_from_hex(op->u.key, value) ? 0 : EINVAL;
}

static int
parse_u16(const char *value, struct uapi_op *op)
{
    unsigned long long n;
    int error = parse_decimal(value, UINT16_MAX, &n);

    op->u.num = error ? 0 : n;
    return error;
}

static int
parse_u32(const char *value, struct uapi_op *op)
{
    unsigned long long n;
    int error = parse_decimal(value, UINT32_MAX, &n);

    op->u.num = error ? 0 : n;
    return error;
}

static int
parse_fwmark(const char *value, struct uapi_op *op)
{
    int error = parse_u32(value, op);

    return error ? error : op->u.num ? EOPNOTSUPP : 0;
}

static int
parse_version(const char *value, struct uapi_op *op)
{
    int error = parse_u32(value, op);

    return error ? error : op->u.num != 1 ? EPROTONOSUPPORT : 0;
}

static int
parse_true(const char *value, struct uapi_op *op OVS_UNUSED)
{
    return strcmp(value, "true") ? EINVAL : 0;
}

/* Parses "a.b.c.d:port", "[ipv6]:port" or "[ipv6%scope]:port". */
static int
parse_endpoint(const char *value, struct uapi_op *op)
{
    struct sockaddr_storage ss;
    socklen_t len;

    if (!wg_addr_parse_endpoint(value, &ss, &len)
        || len > sizeof op->u.ep.sa) {
        return EINVAL;
    }
    memcpy(&op->u.ep.sa, &ss, len);
    op->u.ep.len = len;
    return 0;
}

/* Parses "addr/len" (IPv4 or IPv6).  The device masks host bits off. */
static int
parse_prefix(const char *value, struct uapi_op *op)
{
    return wg_addr_parse_prefix(value, false, &op->u.ip) ? 0 : EINVAL;
}

/* Parsing a whole request. */

struct uapi_request {
    struct uapi_op *ops;
    size_t n_ops;
    size_t line;                /* Line of the error, counting from 1. */
    const char *what;           /* Error description (no request data). */
};

static const struct uapi_key_def *
find_key(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(key_defs); i++) {
        if (!strcmp(key_defs[i].name, name)) {
            return &key_defs[i];
        }
    }
    return NULL;
}

/* Parses one line (null-terminated, without '\n') into the next op. */
static int
parse_line(char *line, bool *in_peer, struct uapi_request *req)
{
    char *eq = strchr(line, '=');
    const struct uapi_key_def *def;
    struct uapi_op *op;
    int error;

    if (!eq) {
        req->what = "line without '='";
        return EPROTO;
    }
    *eq = '\0';
    def = find_key(line);
    if (!def) {
        req->what = "unknown key";
        return EPROTO;
    }
    if (def->key == K_PUBLIC_KEY) {
        *in_peer = true;
    } else if (def->in_peer != *in_peer) {
        req->what = def->in_peer ? "peer key before public_key"
                                 : "device key after public_key";
        return EPROTO;
    }
    op = &req->ops[req->n_ops];
    op->key = def->key;
    error = def->parse(eq + 1, op);
    if (error) {
        req->what = def->name;
        return error;
    }
    req->n_ops++;
    return 0;
}

/* Parses the lines of 'body' (null-terminated, without blank line,
 * modified in place). */
static int
parse_body(char *body, size_t len, struct uapi_request *req)
{
    bool in_peer = false;
    char *p = body;
    char *end = body + len;

    while (p < end) {
        char *nl = memchr(p, '\n', end - p);
        char *eol = nl ? nl : end;
        int error;

        req->line++;
        *eol = '\0';
        if (strlen(p) != eol - p) {
            req->what = "null byte";
            return EINVAL;
        }
        error = parse_line(p, &in_peer, req);
        if (error) {
            return error;
        }
        p = eol + 1;
    }
    return 0;
}

/* Applying a parsed request. */

struct uapi_ctx {
    struct wg_device *dev;
    const struct wg_uapi_hooks *hooks;
    void *aux;
};

static void
remove_peer(struct uapi_ctx *ctx, struct wg_peer *peer)
{
    if (ctx->hooks->peer_removing) {
        ctx->hooks->peer_removing(ctx->aux, peer);
    }
    wg_device_peer_remove(ctx->dev, peer);
}

static int
apply_private_key(struct uapi_ctx *ctx, const uint8_t priv[WG_KEY_LEN])
{
    uint8_t old[WG_KEY_LEN], pub[WG_KEY_LEN];
    bool zero = wg_crypto_is_zero(priv, WG_KEY_LEN);
    bool had = wg_device_get_private_key(ctx->dev, old);
    struct wg_peer *self;
    int error = 0;

    if (zero ? !had : had && wg_crypto_equal(old, priv, WG_KEY_LEN)) {
        goto out;
    }
    if (!zero) {
        if (!wg_crypto_public_key(pub, priv)) {
            error = EINVAL;
            goto out;
        }
        self = wg_device_peer_lookup(ctx->dev, pub);
        if (self) {
            remove_peer(ctx, self);
        }
    }
    error = wg_device_set_private_key(ctx->dev, zero ? NULL : priv);
    if (!error && ctx->hooks->private_key_changed) {
        ctx->hooks->private_key_changed(ctx->aux);
    }
out:
    wg_crypto_wipe(old, sizeof old);
    return error;
}

static int
apply_listen_port(struct uapi_ctx *ctx, uint16_t port)
{
    const struct wg_uapi_hooks *hooks = ctx->hooks;
    bool known = hooks->get_listen_port != NULL;

    if (known && hooks->get_listen_port(ctx->aux) == port) {
        return 0;
    }
    return hooks->set_listen_port ? hooks->set_listen_port(ctx->aux, port)
                                  : EOPNOTSUPP;
}

static void
replace_peers(struct uapi_ctx *ctx)
{
    struct wg_peer *peer;

    while ((peer = wg_device_peer_first(ctx->dev))) {
        remove_peer(ctx, peer);
    }
    if (ctx->hooks->peers_replaced) {
        ctx->hooks->peers_replaced(ctx->aux);
    }
}

static int
apply_device_op(struct uapi_ctx *ctx, const struct uapi_op *op)
{
    switch (op->key) {
    case K_PRIVATE_KEY:
        return apply_private_key(ctx, op->u.key);
    case K_LISTEN_PORT:
        return apply_listen_port(ctx, op->u.num);
    case K_REPLACE_PEERS:
        replace_peers(ctx);
        return 0;
    case K_FWMARK:
    default:
        return 0;
    }
}

static int
apply_peer_op(struct uapi_ctx *ctx, struct wg_peer *peer,
              const struct uapi_op *op)
{
    struct wg_peer_info info;

    switch (op->key) {
    case K_PRESHARED_KEY:
        wg_device_peer_set_psk(ctx->dev, peer, op->u.key);
        return 0;
    case K_ENDPOINT:
        return wg_device_peer_set_endpoint(
            ctx->dev, peer, (const struct sockaddr *) &op->u.ep.sa,
            op->u.ep.len);
    case K_KEEPALIVE:
        wg_device_peer_get_info(ctx->dev, peer, &info);
        if (info.persistent_keepalive_s != op->u.num) {
            wg_device_peer_set_persistent_keepalive(ctx->dev, peer,
                                                    op->u.num);
        }
        return 0;
    case K_REPLACE_ALLOWED_IPS:
        wg_device_peer_allowed_ips_clear(ctx->dev, peer);
        return 0;
    case K_ALLOWED_IP:
        return wg_device_peer_allowed_ip_add(ctx->dev, peer, op->u.ip.family,
                                             op->u.ip.addr, op->u.ip.len);
    default:
        return 0;
    }
}

static bool
section_has(const struct uapi_op *ops, size_t n, enum uapi_key key)
{
    for (size_t i = 1; i < n; i++) {
        if (ops[i].key == key) {
            return true;
        }
    }
    return false;
}

/* Applies the peer section of 'n' ops starting with its public_key op. */
static int
apply_section(struct uapi_ctx *ctx, const struct uapi_op *ops, size_t n)
{
    uint8_t self[WG_KEY_LEN];
    struct wg_peer *peer;
    int error = 0;

    if (wg_device_get_public_key(ctx->dev, self)
        && !memcmp(self, ops[0].u.key, WG_KEY_LEN)) {
        return 0;               /* Our own key: ignored, as the kernel. */
    }
    peer = wg_device_peer_lookup(ctx->dev, ops[0].u.key);
    if (section_has(ops, n, K_REMOVE)) {
        if (peer) {
            remove_peer(ctx, peer);
        }
        return 0;
    }
    if (!peer) {
        if (section_has(ops, n, K_UPDATE_ONLY)) {
            return 0;
        }
        error = wg_device_peer_add(ctx->dev, ops[0].u.key, &peer);
        if (error) {
            return error;
        }
    }
    for (size_t i = 1; i < n && !error; i++) {
        error = apply_peer_op(ctx, peer, &ops[i]);
    }
    if (ctx->hooks->peer_changed) {
        ctx->hooks->peer_changed(ctx->aux, peer);
    }
    return error;
}

static int
apply_request(struct uapi_ctx *ctx, struct uapi_request *req)
{
    const struct uapi_op *ops = req->ops;
    size_t i = 0;

    while (i < req->n_ops) {
        int error;

        if (ops[i].key == K_PUBLIC_KEY) {
            size_t end = i + 1;

            while (end < req->n_ops && ops[end].key != K_PUBLIC_KEY) {
                end++;
            }
            error = apply_section(ctx, &ops[i], end - i);
            i = end;
        } else {
            error = apply_device_op(ctx, &ops[i++]);
        }
        if (error) {
            req->what = NULL;
            return error;
        }
    }
    return 0;
}

/* Returns the length of 'body' up to its blank line, if any. */
static size_t
body_len(const char *body, size_t len)
{
    const char *blank = memmem(body, len, "\n\n", 2);

    return len && body[0] == '\n' ? 0 : blank ? blank - body + 1 : len;
}

static size_t
count_lines(const char *s, size_t len)
{
    size_t n = 1;

    for (const char *p = s; (p = memchr(p, '\n', len - (p - s))); p++) {
        n++;
    }
    return n;
}

int
wg_uapi_set(struct wg_device *dev, const struct wg_uapi_hooks *hooks,
            void *aux, const char *body, size_t len)
{
    static const struct wg_uapi_hooks no_hooks;
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);
    struct uapi_ctx ctx = { dev, hooks ? hooks : &no_hooks, aux };
    struct uapi_request req = { .line = 0 };
    size_t n_lines, n = body_len(body, len);
    char *copy = xmemdup0(body, n);
    int error;

    COVERAGE_INC(wg_uapi_set);
    n_lines = count_lines(copy, n);
    req.ops = xcalloc(n_lines, sizeof *req.ops);
    error = parse_body(copy, n, &req);
    if (!error) {
        error = apply_request(&ctx, &req);
    }
    if (error) {
        COVERAGE_INC(wg_uapi_error);
        if (req.what) {
            VLOG_WARN_RL(&rl, "UAPI set request rejected at line %"PRIuSIZE
                         " (%s): %s", req.line + 1, req.what,
                         ovs_strerror(error));
        } else {
            VLOG_WARN_RL(&rl, "UAPI set request failed: %s",
                         ovs_strerror(error));
        }
    }
    wg_crypto_wipe(req.ops, n_lines * sizeof *req.ops);
    wg_crypto_wipe(copy, n);
    free(req.ops);
    free(copy);
    return error;
}

/* The get request. */

static void
put_endpoint(struct ds *out, const struct sockaddr_storage *ss)
{
    struct ds ep = DS_EMPTY_INITIALIZER;

    wg_addr_format_endpoint(&ep, ss);
    put_line(out, "endpoint=%s\n", ds_cstr(&ep));
    ds_destroy(&ep);
}

static void
put_allowed_ip(void *out_, int family, const uint8_t *addr,
               unsigned int prefix_len)
{
    char s[INET6_ADDRSTRLEN];
    struct ds *out = out_;

    if (inet_ntop(family, addr, s, sizeof s)) {
        put_line(out, "allowed_ip=%s/%u\n", s, prefix_len);
    }
}

static void
put_peer(const struct wg_device *dev, const struct wg_peer *peer,
         struct ds *out)
{
    uint8_t psk[WG_KEY_LEN];
    struct wg_peer_info info;

    wg_device_peer_get_info(dev, peer, &info);
    put_key_line(out, "public_key", info.public_key);
    if (info.has_psk && wg_device_peer_get_psk(dev, peer, psk)) {
        put_key_line(out, "preshared_key", psk);
        wg_crypto_wipe(psk, sizeof psk);
    }
    put_line(out, "protocol_version=1\n");
    if (info.endpoint_len) {
        put_endpoint(out, &info.endpoint);
    }
    put_line(out, "last_handshake_time_sec=%lld\n"
             "last_handshake_time_nsec=%ld\n",
             (long long int) info.last_handshake.tv_sec,
             (long int) info.last_handshake.tv_nsec);
    put_line(out, "tx_bytes=%"PRIu64"\nrx_bytes=%"PRIu64"\n",
             info.tx_bytes, info.rx_bytes);
    put_line(out, "persistent_keepalive_interval=%u\n",
             info.persistent_keepalive_s);
    wg_device_peer_allowed_ips_walk(dev, peer, put_allowed_ip, out);
}

void
wg_uapi_get(const struct wg_device *dev, const struct wg_uapi_hooks *hooks,
            void *aux, struct ds *out)
{
    uint8_t priv[WG_KEY_LEN];
    uint16_t port;

    COVERAGE_INC(wg_uapi_get);
    if (wg_device_get_private_key(dev, priv)) {
        put_key_line(out, "private_key", priv);
        wg_crypto_wipe(priv, sizeof priv);
    }
    port = hooks && hooks->get_listen_port ? hooks->get_listen_port(aux) : 0;
    if (port) {
        put_line(out, "listen_port=%"PRIu16"\n", port);
    }
    for (const struct wg_peer *peer = wg_device_peer_first(dev); peer;
         peer = wg_device_peer_next(dev, peer)) {
        put_peer(dev, peer, out);
    }
}

/* Requests. */

/* Returns the length of the first line of 'req' (without '\n'). */
static size_t
first_line_len(const char *req, size_t len)
{
    const char *nl = memchr(req, '\n', len);

    return nl ? nl - req : len;
}

static bool
line_is(const char *line, size_t len, const char *s)
{
    return len == strlen(s) && !memcmp(line, s, len);
}

int
wg_uapi_handle(struct wg_device *dev, const struct wg_uapi_hooks *hooks,
               void *aux, const char *req, size_t len, struct ds *reply)
{
    size_t n = first_line_len(req, len);
    const char *rest = req + MIN(n + 1, len);
    size_t rest_len = len - (rest - req);
    int error;

    if (line_is(req, n, "get=1")) {
        /* Only the blank line (or nothing) may follow. */
        if (rest_len && rest[0] != '\n') {
            put_line(reply, "errno=%d\n\n", EINVAL);
            return EINVAL;
        }
        wg_uapi_get(dev, hooks, aux, reply);
        put_line(reply, "errno=0\n\n");
        return 0;
    }
    error = line_is(req, n, "set=1") ? wg_uapi_set(dev, hooks, aux, rest,
                                                   rest_len) : EPROTO;
    put_line(reply, "errno=%d\n\n", -error);
    return error;
}
