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
#if HAVE_DECL_MALLOC_TRIM
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coverage.h"
#include "dirs.h"
#include "fatal-signal.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/list.h"
#include "openvswitch/poll-loop.h"
#include "openvswitch/vlog.h"
#include "stream.h"
#include "timeval.h"
#include "util.h"
#include "wg-crypto.h"

/* The UAPI socket: one listening Unix domain socket per port, served from
 * the poll loop.  Each connection carries one request and is closed after
 * the reply (wg(8) reads the reply up to "errno=N" and the blank line).
 * Requests are served one at a time, in the order they were complete, a
 * slice of WG_UAPI_SLICE_US per run (struct wg_uapi_job): a dump or a
 * setconf of 10,000 peers takes seconds, and the poll loop it shares with
 * the data path must go round meanwhile.  A connection's time limit counts
 * while it sends its request and reads its reply, not while it waits for
 * its turn or its job. */

VLOG_DEFINE_THIS_MODULE(wg_uapi_server);

COVERAGE_DEFINE(wg_uapi_client_refused);
COVERAGE_DEFINE(wg_uapi_client_timeout);
COVERAGE_DEFINE(wg_uapi_request_too_big);

struct uapi_client {
    struct ovs_list node;       /* In 'clients' of struct wg_uapi_server. */
    struct stream *stream;
    struct ds in;               /* Request received so far. */
    struct ds out;              /* Reply, once the request is complete. */
    size_t sent;                /* Bytes of 'out' sent. */
    struct wg_uapi_job *job;    /* Serving the request, until replying. */
    bool replying;
    long long int deadline;     /* Closed when still open then. */
};

struct wg_uapi_server {
    struct pstream *pstream;
    char *path;
    struct wg_device *dev;
    struct wg_uapi_hooks hooks;
    void *aux;
    struct ovs_list clients;    /* Contains struct uapi_client. */
    size_t n_clients;
    int timeout_ms;             /* Lifetime of a connection. */
    unsigned int n_runs;        /* wg_uapi_server_run() calls. */
    bool trim_pending;          /* See trim_run(). */
    long long int last_trim_ms;
};

static struct vlog_rate_limit rl = VLOG_RATE_LIMIT_INIT(5, 5);

/* Creating the socket. */

static bool
name_is_valid(const char *name)
{
    if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..")) {
        return false;
    }
    for (const char *p = name; *p; p++) {
        if (*p == '/' || *p <= ' ' || *p == 0x7f) {
            return false;
        }
    }
    return true;
}

/* Creates 'dir' with mode 0700 unless it exists; refuses an existing
 * directory others may write (without sticky bit). */
static int
prepare_dir(const char *dir, char **errorp)
{
    struct stat st;

    if (!mkdir(dir, 0700)) {
        if (chmod(dir, 0700)) {
            *errorp = xasprintf("cannot set mode of UAPI socket directory "
                                "%s: %s", dir, ovs_strerror(errno));
            return errno;
        }
        return 0;
    }
    if (errno != EEXIST) {
        *errorp = xasprintf("cannot create UAPI socket directory %s: %s",
                            dir, ovs_strerror(errno));
        return errno;
    }
    if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
        *errorp = xasprintf("UAPI socket directory %s is not a directory",
                            dir);
        return ENOTDIR;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH) && !(st.st_mode & S_ISVTX)) {
        *errorp = xasprintf("UAPI socket directory %s is writable by other "
                            "users", dir);
        return EPERM;
    }
    return 0;
}

/* Checks whether 'path' may be (re)bound: absent, or a stale socket that no
 * process serves any more.  Returns 0 or a positive errno value. */
static int
check_stale(const char *path, char **errorp)
{
    struct stream *stream;
    struct stat st;
    char *name;
    int error;

    if (lstat(path, &st)) {
        return 0;
    }
    if (!S_ISSOCK(st.st_mode)) {
        *errorp = xasprintf("%s exists and is not a socket", path);
        return EEXIST;
    }
    name = xasprintf("unix:%s", path);
    error = stream_open(name, &stream, 0);
    free(name);
    if (!error) {
        stream_close(stream);
        *errorp = xasprintf("UAPI socket %s is in use by another process",
                            path);
        return EADDRINUSE;
    } else if (error != ECONNREFUSED && error != ENOENT) {
        *errorp = xasprintf("cannot tell whether UAPI socket %s is in use: "
                            "%s", path, ovs_strerror(error));
        return error;
    }
    VLOG_INFO("%s: replacing stale UAPI socket", path);
    return 0;
}

/* Where the socket listens before it is published at 'path'.  The name does
 * not end in ".sock", so wg(8) does not list it. */
static char *
staging_path(const char *path)
{
    return xasprintf("%s.new", path);
}

/* Listens on 'path' with mode 0600.  The socket is bound and listening under
 * staging_path() first and only then renamed to 'path', so a client that
 * sees 'path' can connect: OVS's punix binds before it listens, and a
 * client in between would get ECONNREFUSED (and check_stale() of another
 * daemon would take the socket for stale).  The rename also replaces a
 * stale socket in one step. */
static int
listen_path(const char *path, struct pstream **pstreamp, char **errorp)
{
    char *staging = staging_path(path);
    char *name = xasprintf("punix:%s", staging);
    mode_t old_umask;
    int error;

    /* The socket file gets the mode of the socket (0770 in OVS) minus the
     * umask; 0177 leaves 0600 from the start.  The chmod() below is what
     * guarantees it. */
    old_umask = umask(0177);
    error = pstream_open(name, pstreamp, 0);
    umask(old_umask);
    free(name);
    if (error) {
        *errorp = xasprintf("cannot listen on UAPI socket %s: %s", staging,
                            ovs_strerror(error));
    } else if (chmod(staging, 0600) || rename(staging, path)) {
        error = errno;
        *errorp = xasprintf("cannot set mode of or publish UAPI socket %s: "
                            "%s", path, ovs_strerror(error));
        pstream_close(*pstreamp);
        *pstreamp = NULL;
    } else {
        fatal_signal_add_file_to_unlink(path);
    }
    free(staging);
    return error;
}

/* Stops listening on 'path' and removes it.  pstream_close() removes the
 * file it bound, so the socket goes back to that name first. */
static void
unlisten_path(const char *path, struct pstream *pstream)
{
    char *staging = staging_path(path);

    fatal_signal_remove_file_to_unlink(path);
    if (rename(path, staging)) {
        VLOG_WARN("%s: cannot remove UAPI socket: %s", path,
                  ovs_strerror(errno));
    }
    pstream_close(pstream);
    free(staging);
}

int
wg_uapi_server_create(const char *dir, const char *name,
                      struct wg_device *dev,
                      const struct wg_uapi_hooks *hooks, void *aux,
                      struct wg_uapi_server **serverp, char **errorp)
{
    char *abs_dir = abs_file_name(ovs_rundir(), dir ? dir
                                                    : WG_UAPI_DEFAULT_DIR);
    struct pstream *pstream = NULL;
    char *error_s = NULL;
    char *path = NULL;
    int error;

    *serverp = NULL;
    if (!name_is_valid(name)) {
        error_s = xasprintf("\"%s\" cannot name a UAPI socket", name);
        error = EINVAL;
        goto out;
    }
    path = xasprintf("%s/%s.sock", abs_dir, name);
    error = prepare_dir(abs_dir, &error_s);
    if (!error) {
        error = check_stale(path, &error_s);
    }
    if (!error) {
        error = listen_path(path, &pstream, &error_s);
    }
    if (!error) {
        struct wg_uapi_server *server = xzalloc(sizeof *server);

        server->pstream = pstream;
        server->path = path;
        server->dev = dev;
        server->hooks = hooks ? *hooks : (struct wg_uapi_hooks) { 0 };
        server->aux = aux;
        server->timeout_ms = WG_UAPI_CLIENT_TIMEOUT_MS;
        ovs_list_init(&server->clients);
        *serverp = server;
        path = NULL;
    }
out:
    if (errorp) {
        *errorp = error_s;
    } else {
        free(error_s);
    }
    free(path);
    free(abs_dir);
    return error;
}

/* Clients. */

/* Once a set request is over, the memory it freed goes back to the system:
 * the peers and prefixes it removed and the request itself (hundreds of
 * megabytes for "wg setconf" of 10,000 peers with 100 prefixes each), which
 * glibc's free() would otherwise mostly keep in the heap.  malloc_trim()
 * walks the whole heap under the port's locks, so it runs at most once per
 * WG_UAPI_TRIM_INTERVAL_MS: a client looping small requests cannot stall
 * the data path with it.  A trim that must wait is pending until then. */
#define WG_UAPI_TRIM_INTERVAL_MS 1000

static void
trim_run(struct wg_uapi_server *server)
{
    long long int now = time_msec();

    if (server->trim_pending
        && now - server->last_trim_ms >= WG_UAPI_TRIM_INTERVAL_MS) {
        server->trim_pending = false;
        server->last_trim_ms = now;
#if HAVE_DECL_MALLOC_TRIM
        malloc_trim(0);
#endif
    }
}

static void
client_destroy(struct wg_uapi_server *server, struct uapi_client *c)
{
    bool was_set = c->replying && c->in.length >= 6
                   && !memcmp(c->in.string, "set=1\n", 6);

    ovs_list_remove(&c->node);
    server->n_clients--;
    stream_close(c->stream);
    wg_uapi_job_destroy(c->job);
    wg_uapi_ds_wipe(&c->in);
    wg_uapi_ds_wipe(&c->out);
    free(c);
    if (was_set) {
        server->trim_pending = true;
        trim_run(server);
    }
}

/* True once 'in' holds a whole request: up to a blank line. */
static bool
request_complete(const struct ds *in, size_t old_len)
{
    size_t start = old_len ? old_len - 1 : 0;

    if (in->length && in->string[0] == '\n') {
        return true;
    }
    return in->length > start
           && memmem(in->string + start, in->length - start, "\n\n", 2);
}

static bool
client_working(const struct uapi_client *c)
{
    return c->job && !c->replying;
}

/* The request is complete: it waits for its turn (serve_jobs()). */
static void
client_reply(struct uapi_client *c)
{
    c->job = wg_uapi_job_create(c->in.string, c->in.length, &c->out);
}

static void
client_reply_error(struct uapi_client *c, int error)
{
    bool is_get = c->in.length >= 6 && !memcmp(c->in.string, "get=1\n", 6);

    ds_put_format(&c->out, "errno=%d\n\n", is_get ? error : -error);
    c->replying = true;
}

/* Reads what 'c' sent.  Returns false if the connection is to be closed. */
static bool
client_receive(struct wg_uapi_server *server, struct uapi_client *c)
{
    char buf[4096];
    bool keep = true;

    while (!c->replying && !c->job) {
        int n = stream_recv(c->stream, buf, sizeof buf);
        size_t old_len = c->in.length;

        if (n == -EAGAIN) {
            break;
        } else if (n < 0 || (n == 0 && !c->in.length)) {
            keep = false;
            break;
        } else if (n == 0) {
            client_reply(c);              /* EOF ends the request. */
        } else if (c->in.length + n > WG_UAPI_MAX_REQUEST) {
            COVERAGE_INC(wg_uapi_request_too_big);
            VLOG_WARN_RL(&rl, "%s: UAPI request over %d bytes",
                         server->path, WG_UAPI_MAX_REQUEST);
            client_reply_error(c, EMSGSIZE);
        } else {
            wg_uapi_ds_put_secret(&c->in, buf, n);
            if (request_complete(&c->in, old_len)) {
                client_reply(c);
            }
        }
    }
    wg_crypto_wipe(buf, sizeof buf);
    return keep;
}

/* Sends the rest of the reply.  Returns false if the connection is to be
 * closed (all sent, or an error). */
static bool
client_send(struct uapi_client *c)
{
    while (c->sent < c->out.length) {
        int n = stream_send(c->stream, c->out.string + c->sent,
                            c->out.length - c->sent);

        if (n == -EAGAIN) {
            return true;
        } else if (n < 0) {
            return false;
        }
        c->sent += n;
    }
    return false;
}

/* Serves 'c'.  Returns false if it is to be destroyed. */
static bool
client_run(struct wg_uapi_server *server, struct uapi_client *c)
{
    if (client_working(c)) {
        return true;
    }
    stream_run(c->stream);
    if (!c->replying && !client_receive(server, c)) {
        return false;
    }
    if (c->replying && !client_send(c)) {
        return false;
    }
    if (!client_working(c) && time_msec() >= c->deadline) {
        COVERAGE_INC(wg_uapi_client_timeout);
        VLOG_WARN_RL(&rl, "%s: UAPI client timed out", server->path);
        return false;
    }
    return true;
}

static void
accept_clients(struct wg_uapi_server *server)
{
    struct stream *stream;

    if (server->n_runs++ % WG_UAPI_ACCEPT_EVERY_RUNS) {
        return;
    }
    while (!pstream_accept(server->pstream, &stream)) {
        struct uapi_client *c;

        if (server->n_clients >= WG_UAPI_MAX_CLIENTS) {
            COVERAGE_INC(wg_uapi_client_refused);
            VLOG_WARN_RL(&rl, "%s: too many UAPI clients", server->path);
            stream_close(stream);
            continue;
        }
        c = xzalloc(sizeof *c);
        c->stream = stream;
        ds_init(&c->in);
        ds_init(&c->out);
        c->deadline = time_msec() + server->timeout_ms;
        ovs_list_push_back(&server->clients, &c->node);
        server->n_clients++;
    }
}

/* Works on the oldest request for a slice; its reply starts with the time
 * limit afresh. */
static void
serve_jobs(struct wg_uapi_server *server)
{
    struct uapi_client *c;

    LIST_FOR_EACH (c, node, &server->clients) {
        if (client_working(c)) {
            if (wg_uapi_job_run(c->job, server->dev, &server->hooks,
                                server->aux, time_usec() + WG_UAPI_SLICE_US,
                                &c->out)) {
                c->replying = true;
                c->deadline = time_msec() + server->timeout_ms;
            }
            return;
        }
    }
}

void
wg_uapi_server_run(struct wg_uapi_server *server)
{
    struct uapi_client *c;

    if (!server) {
        return;
    }
    accept_clients(server);
    LIST_FOR_EACH_SAFE (c, node, &server->clients) {
        if (!client_run(server, c)) {
            client_destroy(server, c);
        }
    }
    serve_jobs(server);
    trim_run(server);
}

void
wg_uapi_server_wait(struct wg_uapi_server *server)
{
    struct uapi_client *c;

    if (!server) {
        return;
    }
    pstream_wait(server->pstream);
    if (server->trim_pending) {
        poll_timer_wait_until(server->last_trim_ms
                              + WG_UAPI_TRIM_INTERVAL_MS);
    }
    LIST_FOR_EACH (c, node, &server->clients) {
        if (client_working(c)) {
            poll_immediate_wake();
            continue;
        }
        stream_run_wait(c->stream);
        if (c->replying) {
            stream_send_wait(c->stream);
        } else {
            stream_recv_wait(c->stream);
        }
        poll_timer_wait_until(c->deadline);
    }
}

void
wg_uapi_server_destroy(struct wg_uapi_server *server)
{
    struct uapi_client *c;

    if (!server) {
        return;
    }
    LIST_FOR_EACH_SAFE (c, node, &server->clients) {
        client_destroy(server, c);
    }
    unlisten_path(server->path, server->pstream);
    free(server->path);
    free(server);
}

const char *
wg_uapi_server_path(const struct wg_uapi_server *server)
{
    return server->path;
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

void
wg_uapi_server_set_timeout_for_test(struct wg_uapi_server *server,
                                    int timeout_ms)
{
    server->timeout_ms = timeout_ms;
}

size_t
wg_uapi_server_n_clients_for_test(const struct wg_uapi_server *server)
{
    return server->n_clients;
}
#endif
