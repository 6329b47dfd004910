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
#include "timeval.h"
#include "util.h"
#include "wg-addr.h"
#include "wg-crypto.h"
#include "wg-device.h"
#include "wg-uapi-private.h"

VLOG_DEFINE_THIS_MODULE(wg_uapi);

COVERAGE_DEFINE(wg_uapi_get);
COVERAGE_DEFINE(wg_uapi_set);
COVERAGE_DEFINE(wg_uapi_error);

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
    uint8_t old[WG_KEY_LEN];
    bool zero = wg_crypto_is_zero(priv, WG_KEY_LEN);
    bool had = wg_device_get_private_key(ctx->dev, old);
    int error = 0;

    if (zero ? !had : had && wg_crypto_equal(old, priv, WG_KEY_LEN)) {
        goto out;
    }
    if (!zero) {
        wg_device_peer_remove_own(ctx->dev, priv, ctx->hooks->peer_removing,
                                  ctx->aux);
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



/* The get request. */

static void
put_endpoint(struct ds *out, const struct sockaddr_storage *ss)
{
    struct ds ep = DS_EMPTY_INITIALIZER;

    wg_addr_format_endpoint(&ep, ss);
    wg_uapi_put_line(out, "endpoint=%s\n", ds_cstr(&ep));
    ds_destroy(&ep);
}

static void
put_allowed_ip(void *out_, int family, const uint8_t *addr,
               unsigned int prefix_len)
{
    char s[INET6_ADDRSTRLEN];
    struct ds *out = out_;

    if (inet_ntop(family, addr, s, sizeof s)) {
        wg_uapi_put_line(out, "allowed_ip=%s/%u\n", s, prefix_len);
    }
}

static void
put_peer(const struct wg_device *dev, const struct wg_peer *peer,
         struct ds *out)
{
    uint8_t psk[WG_KEY_LEN];
    struct wg_peer_info info;

    wg_device_peer_get_info(dev, peer, &info);
    wg_uapi_put_key_line(out, "public_key", info.public_key);
    if (info.has_psk && wg_device_peer_get_psk(dev, peer, psk)) {
        wg_uapi_put_key_line(out, "preshared_key", psk);
        wg_crypto_wipe(psk, sizeof psk);
    }
    wg_uapi_put_line(out, "protocol_version=1\n");
    if (info.endpoint_len) {
        put_endpoint(out, &info.endpoint);
    }
    wg_uapi_put_line(out, "last_handshake_time_sec=%lld\n"
             "last_handshake_time_nsec=%ld\n",
             (long long int) info.last_handshake.tv_sec,
             (long int) info.last_handshake.tv_nsec);
    wg_uapi_put_line(out, "tx_bytes=%"PRIu64"\nrx_bytes=%"PRIu64"\n",
             info.tx_bytes, info.rx_bytes);
    wg_uapi_put_line(out, "persistent_keepalive_interval=%u\n",
             info.persistent_keepalive_s);
    wg_device_peer_allowed_ips_walk(dev, peer, put_allowed_ip, out);
}


/* A request served a step at a time (see wg_uapi_job_run()). */

enum uapi_job_phase {
    JOB_CHECK,                  /* Set: every line parsed, none applied. */
    JOB_APPLY,                  /* Set: a device line or a peer section. */
    JOB_REPLACE,                /* Set: replace_peers=true, a peer. */
    JOB_GET,                    /* Get: the device, then a peer. */
    JOB_DONE,                   /* The reply's last line is written. */
};

struct wg_uapi_job {
    enum uapi_job_phase phase;
    bool is_get, is_set;        /* What the first line asked. */
    bool started;               /* The first step ran. */
    int error;                  /* Positive errno value of the reply. */
    struct uapi_cursor cur;     /* Set: the body. */
    const char *what;           /* Set: where parsing failed. */
    struct uapi_op *ops;        /* Set: the peer section being applied. */
    size_t n_ops, allocated_ops;
    struct wg_device_peer_walk walk;    /* Get: peers of the first step. */
};

/* Lines parsed per step of the check: a step is short, and a deadline
 * check per line would cost more than the line. */
#define UAPI_CHECK_LINES 64

static void
job_finish(struct wg_uapi_job *job, int error, struct ds *reply)
{
    static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

    if (error && job->is_set) {
        COVERAGE_INC(wg_uapi_error);
        if (job->phase == JOB_CHECK) {
            VLOG_WARN_RL(&rl, "UAPI set request rejected at line %"PRIuSIZE
                         " (%s): %s", job->cur.line, job->what,
                         ovs_strerror(error));
        } else {
            VLOG_WARN_RL(&rl, "UAPI set request failed: %s",
                         ovs_strerror(error));
        }
    }
    /* The sign on the wire: see the top of wg-uapi.h. */
    wg_uapi_put_line(reply, "errno=%d\n\n", job->is_get ? error : -error);
    job->error = error;
    job->phase = JOB_DONE;
}

/* Set: parses up to UAPI_CHECK_LINES lines; at the end of the body, starts
 * over to apply them. */
static void
check_step(struct wg_uapi_job *job, struct ds *reply)
{
    for (int i = 0; i < UAPI_CHECK_LINES; i++) {
        struct uapi_op op;
        int error;

        if (wg_uapi_cursor_at_end(&job->cur)) {
            job->cur.pos = job->cur.line = 0;
            job->cur.in_peer = false;
            job->phase = JOB_APPLY;
            return;
        }
        error = wg_uapi_parse_next(&job->cur, &op, &job->what);
        wg_crypto_wipe(&op, sizeof op);
        if (error) {
            job_finish(job, error, reply);
            return;
        }
    }
}

static int
apply_device_op(struct wg_uapi_job *job, struct uapi_ctx *ctx,
                const struct uapi_op *op)
{
    switch (op->key) {
    case K_PRIVATE_KEY:
        return apply_private_key(ctx, op->u.key);
    case K_LISTEN_PORT:
        return apply_listen_port(ctx, op->u.num);
    case K_REPLACE_PEERS:
        job->phase = JOB_REPLACE;
        return 0;
    case K_FWMARK:
    default:
        return 0;
    }
}

static void
add_op(struct wg_uapi_job *job, const struct uapi_op *op)
{
    if (job->n_ops >= job->allocated_ops) {
        job->ops = x2nrealloc(job->ops, &job->allocated_ops,
                              sizeof *job->ops);
    }
    job->ops[job->n_ops++] = *op;
}

/* Reads the peer section that 'first' starts into job->ops. */
static int
read_section(struct wg_uapi_job *job, const struct uapi_op *first)
{
    int error = 0;

    job->n_ops = 0;
    add_op(job, first);
    while (!error && !wg_uapi_cursor_at_end(&job->cur)) {
        struct uapi_cursor before = job->cur;
        struct uapi_op op;

        error = wg_uapi_parse_next(&job->cur, &op, &job->what);
        if (!error && op.key == K_PUBLIC_KEY) {
            job->cur = before;
            wg_crypto_wipe(&op, sizeof op);
            break;
        }
        add_op(job, &op);
        wg_crypto_wipe(&op, sizeof op);
    }
    return error;
}

/* Set: applies the next device line or peer section. */
static void
apply_step(struct wg_uapi_job *job, struct uapi_ctx *ctx, struct ds *reply)
{
    struct uapi_op op;
    int error;

    if (wg_uapi_cursor_at_end(&job->cur)) {
        job_finish(job, 0, reply);
        return;
    }
    /* The check found every line valid; should one fail now, so does the
     * request. */
    error = wg_uapi_parse_next(&job->cur, &op, &job->what);
    if (!error && op.key == K_PUBLIC_KEY) {
        error = read_section(job, &op);
        if (!error) {
            error = apply_section(ctx, job->ops, job->n_ops);
        }
        wg_crypto_wipe(job->ops, job->n_ops * sizeof *job->ops);
    } else if (!error) {
        error = apply_device_op(job, ctx, &op);
    }
    wg_crypto_wipe(&op, sizeof op);
    if (error) {
        job_finish(job, error, reply);
    }
}

/* Set: replace_peers=true removes one peer, or ends with the hook. */
static void
replace_step(struct wg_uapi_job *job, struct uapi_ctx *ctx)
{
    struct wg_peer *peer = wg_device_peer_first(ctx->dev);

    if (peer) {
        remove_peer(ctx, peer);
        return;
    }
    if (ctx->hooks->peers_replaced) {
        ctx->hooks->peers_replaced(ctx->aux);
    }
    job->phase = JOB_APPLY;
}

/* Get: the device's lines and its peers' keys, at the first step. */
static void
get_start(struct wg_uapi_job *job, struct uapi_ctx *ctx, struct ds *reply)
{
    const struct wg_device *dev = ctx->dev;
    const struct wg_uapi_hooks *hooks = ctx->hooks;
    uint8_t priv[WG_KEY_LEN];
    uint16_t port;

    COVERAGE_INC(wg_uapi_get);
    if (wg_device_get_private_key(dev, priv)) {
        wg_uapi_put_key_line(reply, "private_key", priv);
        wg_crypto_wipe(priv, sizeof priv);
    }
    port = hooks->get_listen_port ? hooks->get_listen_port(ctx->aux) : 0;
    if (port) {
        wg_uapi_put_line(reply, "listen_port=%"PRIu16"\n", port);
    }
    wg_device_peer_walk_start(&job->walk, dev);
}

/* Get: lists the next peer that is still there. */
static void
get_step(struct wg_uapi_job *job, struct uapi_ctx *ctx, struct ds *reply)
{
    const struct wg_peer *peer = wg_device_peer_walk_next(&job->walk,
                                                          ctx->dev);

    if (peer) {
        put_peer(ctx->dev, peer, reply);
    } else {
        job_finish(job, 0, reply);
    }
}

static void
job_step(struct wg_uapi_job *job, struct uapi_ctx *ctx, struct ds *reply)
{
    switch (job->phase) {
    case JOB_CHECK:
        check_step(job, reply);
        break;
    case JOB_APPLY:
        apply_step(job, ctx, reply);
        break;
    case JOB_REPLACE:
        replace_step(job, ctx);
        break;
    case JOB_GET:
        get_step(job, ctx, reply);
        break;
    case JOB_DONE:
    default:
        break;
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

/* Returns the length of 'body' up to its blank line, if any. */
static size_t
body_len(const char *body, size_t len)
{
    const char *blank = memmem(body, len, "\n\n", 2);

    return len && body[0] == '\n' ? 0 : blank ? blank - body + 1 : len;
}

struct wg_uapi_job *
wg_uapi_job_create(const char *req, size_t len, struct ds *reply)
{
    struct wg_uapi_job *job = xzalloc(sizeof *job);
    size_t n = first_line_len(req, len);
    const char *rest = req + MIN(n + 1, len);
    size_t rest_len = len - (rest - req);

    if (line_is(req, n, "get=1")) {
        job->is_get = true;
        job->phase = JOB_GET;
        /* Only the blank line (or nothing) may follow. */
        if (rest_len && rest[0] != '\n') {
            job_finish(job, EINVAL, reply);
        }
    } else if (line_is(req, n, "set=1")) {
        COVERAGE_INC(wg_uapi_set);
        job->is_set = true;
        job->phase = JOB_CHECK;
        job->cur.body = rest;
        job->cur.len = body_len(rest, rest_len);
    } else {
        job_finish(job, EPROTO, reply);
    }
    return job;
}

bool
wg_uapi_job_run(struct wg_uapi_job *job, struct wg_device *dev,
                const struct wg_uapi_hooks *hooks, void *aux,
                long long int deadline_us, struct ds *reply)
{
    static const struct wg_uapi_hooks no_hooks;
    struct uapi_ctx ctx = { dev, hooks ? hooks : &no_hooks, aux };

    if (job->phase == JOB_GET && !job->started) {
        get_start(job, &ctx, reply);
    }
    job->started = true;
    while (job->phase != JOB_DONE) {
        job_step(job, &ctx, reply);
        if (time_usec() >= deadline_us) {
            break;
        }
    }
    return job->phase == JOB_DONE;
}

void
wg_uapi_job_destroy(struct wg_uapi_job *job)
{
    if (job) {
        wg_crypto_wipe(job->ops, job->allocated_ops * sizeof *job->ops);
        free(job->ops);
        wg_device_peer_walk_destroy(&job->walk);
        free(job);
    }
}

int
wg_uapi_job_error(const struct wg_uapi_job *job)
{
    return job->error;
}

int
wg_uapi_handle(struct wg_device *dev, const struct wg_uapi_hooks *hooks,
               void *aux, const char *req, size_t len, struct ds *reply)
{
    struct wg_uapi_job *job = wg_uapi_job_create(req, len, reply);
    int error;

    wg_uapi_job_run(job, dev, hooks, aux, LLONG_MAX, reply);
    error = wg_uapi_job_error(job);
    wg_uapi_job_destroy(job);
    return error;
}
