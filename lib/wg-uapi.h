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

#ifndef WG_UAPI_H
#define WG_UAPI_H 1

/* The WireGuard cross-platform userspace configuration protocol ("UAPI"),
 * spoken over /var/run/wireguard/<name>.sock by wg(8) from wireguard-tools,
 * for a struct wg_device.
 *
 * Two layers:
 *
 *   - wg_uapi_handle() and friends: the protocol over strings, no sockets.
 *     A request is "get=1\n\n" or "set=1\n" followed by "key=value" lines
 *     and a blank line.  The reply of get lists the device; every reply ends
 *     with "errno=N\n\n".
 *
 *   - struct wg_uapi_server: a Unix domain socket served from OVS's poll
 *     loop with OVS's stream library; one request per connection, closed
 *     after the reply, as wg(8) expects.
 *
 * Behaviour of "set", close to the Linux kernel and wireguard-go:
 *
 *   - The whole request is parsed and validated before anything is
 *     applied, so a malformed request (bad hex, bad endpoint, unknown key,
 *     line without '=', peer key before any public_key, ...) changes
 *     nothing.  Only errors found while applying (listen port in use, a
 *     peer key the device refuses) stop a request midway; what came before
 *     stays applied, as in the kernel, and no single line is half-applied.
 *   - Device keys: private_key (hex; all zeros removes it; a peer with the
 *     matching public key is removed, as the kernel does), listen_port,
 *     fwmark (only 0 is accepted: the port's sockets have no fwmark;
 *     anything else is EOPNOTSUPP), replace_peers=true.
 *   - public_key starts a peer section; the peer is created unless the
 *     section has update_only=true.  A section for the device's own public
 *     key is ignored, as the kernel does.  remove=true removes the peer
 *     (other lines of the section are validated, then ignored).
 *     preshared_key (all zeros removes it), endpoint (a.b.c.d:port,
 *     [ipv6]:port, [ipv6%scope]:port), persistent_keepalive_interval
 *     (0-65535), replace_allowed_ips=true, allowed_ip=addr/len (host bits
 *     are masked off), protocol_version=1.  Boolean keys take only "true".
 *   - Errors: EPROTO for protocol violations (no '=', unknown key, key in
 *     the wrong section, not a get/set request), EINVAL for malformed
 *     values, EPROTONOSUPPORT for protocol_version other than 1, EOPNOTSUPP
 *     for a nonzero fwmark, EMSGSIZE for an oversized request, and whatever
 *     the device or hooks return (EADDRINUSE, ...).
 *
 * The sign of errno on the wire: wg(8) parses the reply of "get" as an
 * unsigned number (a negative one reads as a protocol error) but turns the
 * number in the reply of "set" into its errno by negating it, as
 * wireguard-go sends it.  So a failed get replies "errno=22", a failed set
 * "errno=-22"; both make wg(8) print "Invalid argument".  The functions of
 * this header return positive errno values.
 *
 * Secrets: the reply of "get" contains the private key and preshared keys
 * in hex, as wg(8) needs them for "wg showconf"; that is why the socket is
 * 0600 in a 0700 directory.  Buffers holding keys are wiped; nothing is
 * logged from the content of requests.
 *
 * Not thread-safe: the caller serializes these calls with every other use
 * of the device (e.g. calls wg_uapi_server_run() with its port mutex
 * held). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ds;
struct wg_device;
struct wg_peer;

/* What belongs to the port rather than to the device.  Every member may be
 * NULL. */
struct wg_uapi_hooks {
    /* The UDP port the port listens on (0: unknown, not printed). */
    uint16_t (*get_listen_port)(void *aux);

    /* Moves the port to UDP port 'port' (0: ephemeral).  Returns 0 or a
     * positive errno value (e.g. EADDRINUSE).  NULL: only a request for the
     * current port is accepted, others get EOPNOTSUPP. */
    int (*set_listen_port)(void *aux, uint16_t port);

    /* The private key was set or removed through the UAPI. */
    void (*private_key_changed)(void *aux);

    /* 'peer' was created or modified by one peer section of a set request
     * (called once per section, after it was applied).  The port may
     * record that run-time changes override its database settings. */
    void (*peer_changed)(void *aux, struct wg_peer *peer);

    /* 'peer' is about to be removed from the device (remove=true,
     * replace_peers=true, or a new private key matching its public key):
     * the port drops what it attached to it. */
    void (*peer_removing)(void *aux, struct wg_peer *peer);

    /* replace_peers=true removed every peer (after 'peer_removing' was
     * called for each). */
    void (*peers_replaced)(void *aux);
};

/* Protocol over strings. */

/* Handles one request, 'len' bytes at 'req' (need not be null-terminated):
 * "get=1\n\n" or "set=1\n...\n\n" (a missing final blank line is
 * tolerated).  Appends the complete reply, ending with "errno=N\n\n", to
 * 'reply'.  Returns 0 or the positive errno value sent.  'reply' may hold
 * secrets: clear it with wg_uapi_ds_wipe(). */
int wg_uapi_handle(struct wg_device *dev, const struct wg_uapi_hooks *hooks,
                   void *aux, const char *req, size_t len, struct ds *reply);

/* The same request served a step at a time, so that a large one ("wg
 * setconf" of 10,000 peers, or their dump) never holds the caller for
 * long: the caller runs the job once per poll loop iteration, for a slice
 * of WG_UAPI_SLICE_US, until it is done.  The device may change between
 * slices; what the request does stays as the kernel does it: a set request
 * is checked whole before any of it applies, then applied a device line or
 * a peer section at a time (replace_peers=true a removed peer at a time);
 * a get request lists the peers present at its first slice, those still
 * there when their turn comes, each as it is then.  Serve one job at a
 * time per device, so that requests do not see each other's halves.
 *
 * wg_uapi_job_create() reads the first line of the request, which must
 * stay unchanged until wg_uapi_job_destroy(), and may write the whole reply
 * to 'reply' at once (an unknown request).  wg_uapi_job_run() works until
 * the job is done or time_usec() reaches 'deadline_us' (after one step at
 * least), appending to 'reply'; it returns true when the reply is
 * complete, with the positive errno value it sent in
 * wg_uapi_job_error(). */
struct wg_uapi_job;
struct wg_uapi_job *wg_uapi_job_create(const char *req, size_t len,
                                       struct ds *reply);
bool wg_uapi_job_run(struct wg_uapi_job *, struct wg_device *dev,
                     const struct wg_uapi_hooks *hooks, void *aux,
                     long long int deadline_us, struct ds *reply);
int wg_uapi_job_error(const struct wg_uapi_job *);
void wg_uapi_job_destroy(struct wg_uapi_job *);

/* Appends 'n' bytes at 's' to 'ds', wiping the old buffer when it has to
 * grow, so that secrets leave no copies in freed memory. */
void wg_uapi_ds_put_secret(struct ds *ds, const void *s, size_t n);

/* Wipes the contents of 'ds' and frees it. */
void wg_uapi_ds_wipe(struct ds *ds);

/* The socket. */

/* Default directory of the sockets, where wg(8) looks for them. */
#define WG_UAPI_DEFAULT_DIR "/var/run/wireguard"

/* Bounds on clients.  A request is read whole before any of it applies;
 * 64 MiB holds about two million allowed IPs ("wg setconf" of 10,000 peers
 * with 100 prefixes each sends about 30 MB).  Larger requests are refused
 * (EMSGSIZE, coverage counter wg_uapi_request_too_big). */
#define WG_UAPI_MAX_REQUEST (64 * 1024 * 1024) /* Bytes of one request. */
#define WG_UAPI_MAX_CLIENTS 16              /* Open connections. */
#define WG_UAPI_CLIENT_TIMEOUT_MS 10000     /* Time to send a request and
                                             * to read the reply. */
#define WG_UAPI_SLICE_US 2000               /* Work per poll loop run. */

/* New connections are looked for on one run of the server in this many: a
 * busy main loop would otherwise pay a failed accept() on every iteration.
 * A pending connection keeps the loop awake until then; an idle loop sleeps
 * on the socket as before. */
#define WG_UAPI_ACCEPT_EVERY_RUNS 16

struct wg_uapi_server;

/* Serves the UAPI for 'dev' on 'dir'/'name'.sock ('dir' NULL:
 * WG_UAPI_DEFAULT_DIR; a relative 'dir' is relative to OVS's run
 * directory).  Creates 'dir' with mode 0700 if it does not exist and
 * refuses a directory writable by others (unless sticky).  The socket gets
 * mode 0600.  A stale socket file (no process listens on it) is replaced;
 * a socket another process serves is left alone.
 *
 * Returns 0 and stores the server in '*serverp', or a positive errno value
 * and stores in '*errorp' (if nonnull) one sentence for the interface
 * status, which the caller frees.  'hooks' is copied. */
int wg_uapi_server_create(const char *dir, const char *name,
                          struct wg_device *dev,
                          const struct wg_uapi_hooks *hooks, void *aux,
                          struct wg_uapi_server **serverp, char **errorp);

/* Closes every connection and the socket, and removes the socket file
 * (NULL allowed). */
void wg_uapi_server_destroy(struct wg_uapi_server *server);

/* Accepts connections and serves requests without blocking. */
void wg_uapi_server_run(struct wg_uapi_server *server);

/* Arranges for poll_block() to wake up when wg_uapi_server_run() has work
 * to do. */
void wg_uapi_server_wait(struct wg_uapi_server *server);

/* Absolute path of the socket file. */
const char *wg_uapi_server_path(const struct wg_uapi_server *server);

#ifdef WG_TEST_HOOKS
/* Test-only (test builds, wg-test-hooks.h): sets how long a connection may
 * stay open, for new connections (default WG_UAPI_CLIENT_TIMEOUT_MS), and
 * returns the number of open client connections. */
void wg_uapi_server_set_timeout_for_test(struct wg_uapi_server *server,
                                         int timeout_ms);
size_t wg_uapi_server_n_clients_for_test(
    const struct wg_uapi_server *server);
#endif

#endif /* wg-uapi.h */
