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
#include "wg-uapi-private.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-crypto.h"

/* The UAPI's text: the lines of a set request parsed one at a time into
 * ops (each key's parser checks its value), and the lines of a get
 * printed into buffers that may hold secrets, wiped when they go.  Calls
 * nothing of the requests (wg-uapi.c) that use it. */

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

void
wg_uapi_put_line(struct ds *out, const char *format, ...)
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

void
wg_uapi_put_key_line(struct ds *out, const char *name,
                     const uint8_t key[WG_KEY_LEN])
{
    char hex[WG_KEY_HEX_LEN];

    wg_crypto_key_to_hex(hex, key);
    wg_uapi_put_line(out, "%s=%s\n", name, hex);
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

/* Parses a decimal number of at most 'max' into op->u.num (0 on error). */
static int
parse_uint(const char *value, unsigned long long max, struct uapi_op *op)
{
    unsigned long long n;
    int error = parse_decimal(value, max, &n);

    op->u.num = error ? 0 : n;
    return error;
}

static int
parse_u16(const char *value, struct uapi_op *op)
{
    return parse_uint(value, UINT16_MAX, op);
}

static int
parse_u32(const char *value, struct uapi_op *op)
{
    return parse_uint(value, UINT32_MAX, op);
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

/* Parsing lines. */

/* A valid line is much shorter (a key name, '=' and 64 hex digits, or an
 * endpoint with an IPv6 scope). */
#define UAPI_LINE_MAX 256

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

/* Parses one line (null-terminated, without '\n') into 'op'. */
static int
parse_line(char *line, bool *in_peer, struct uapi_op *op, const char **what)
{
    char *eq = strchr(line, '=');
    const struct uapi_key_def *def;
    int error;

    if (!eq) {
        *what = "line without '='";
        return EPROTO;
    }
    *eq = '\0';
    def = find_key(line);
    if (!def) {
        *what = "unknown key";
        return EPROTO;
    }
    if (def->key == K_PUBLIC_KEY) {
        *in_peer = true;
    } else if (def->in_peer != *in_peer) {
        *what = def->in_peer ? "peer key before public_key"
                             : "device key after public_key";
        return EPROTO;
    }
    op->key = def->key;
    error = def->parse(eq + 1, op);
    if (error) {
        *what = def->name;
    }
    return error;
}

bool
wg_uapi_cursor_at_end(const struct uapi_cursor *cur)
{
    return cur->pos >= cur->len;
}

int
wg_uapi_parse_next(struct uapi_cursor *cur, struct uapi_op *op,
                   const char **what)
{
    const char *p = cur->body + cur->pos;
    const char *nl = memchr(p, '\n', cur->len - cur->pos);
    size_t n = nl ? nl - p : cur->len - cur->pos;
    char line[UAPI_LINE_MAX];
    int error;

    cur->pos += n + 1;
    cur->line++;
    if (memchr(p, '\0', n)) {
        *what = "null byte";
        return EINVAL;
    } else if (n >= sizeof line) {
        *what = "line too long";
        return EINVAL;
    }
    memcpy(line, p, n);
    line[n] = '\0';
    error = parse_line(line, &cur->in_peer, op, what);
    wg_crypto_wipe(line, sizeof line);
    return error;
}
