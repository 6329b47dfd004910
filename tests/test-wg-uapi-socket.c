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
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "openvswitch/dynamic-string.h"
#include "openvswitch/poll-loop.h"
#include "timeval.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"
#include "wgtest.h"

/* Tests of the UAPI socket with a plain Unix-socket client written here,
 * and "uapi-serve", a server for tests with external clients (wg(8),
 * python). */

#define TEST_DIR "uapi-test"
#define TEST_NAME "wgtest0"
#define TEST_SOCK TEST_DIR "/" TEST_NAME ".sock"

static uint16_t listen_port = 51820;

static uint16_t
get_port(void *aux OVS_UNUSED)
{
    return listen_port;
}

static int
set_port(void *aux OVS_UNUSED, uint16_t port)
{
    if (port == 1) {
        return EADDRINUSE;
    }
    listen_port = port;
    return 0;
}

static const struct wg_uapi_hooks hooks = {
    .get_listen_port = get_port,
    .set_listen_port = set_port,
};

static void
drop_send(void *aux OVS_UNUSED, const struct sockaddr *dst OVS_UNUSED,
          socklen_t dst_len OVS_UNUSED, const void *msg OVS_UNUSED,
          size_t len OVS_UNUSED)
{
}

static struct wg_device *
new_device(const char *priv_b64)
{
    static const struct wg_device_hooks dev_hooks = { .send = drop_send };
    struct wg_device *dev;
    uint8_t priv[WG_KEY_LEN];

    wg_crypto_init();
    dev = wg_device_create(&dev_hooks, NULL);
    if (priv_b64) {
        WGTEST_CHECK(wg_crypto_key_from_base64(priv, priv_b64));
    } else {
        wg_crypto_generate_private_key(priv);
    }
    WGTEST_CHECK(!wg_device_set_private_key(dev, priv));
    wg_crypto_wipe(priv, sizeof priv);
    return dev;
}

/* A client: a non-blocking socket and what it received. */
struct client {
    int fd;
    struct ds in;
    bool eof;
};

static void
client_open(struct client *c)
{
    struct sockaddr_un un = { .sun_family = AF_UNIX };

    ovs_strlcpy(un.sun_path, TEST_SOCK, sizeof un.sun_path);
    c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
    WGTEST_CHECK(c->fd >= 0);
    WGTEST_CHECK(!connect(c->fd, (struct sockaddr *) &un, sizeof un));
    WGTEST_CHECK(!fcntl(c->fd, F_SETFL, O_NONBLOCK));
    ds_init(&c->in);
    c->eof = false;
}

static void
client_close(struct client *c)
{
    close(c->fd);
    ds_destroy(&c->in);
}

/* Reads what is available on 'c'. */
static void
client_read(struct client *c)
{
    for (;;) {
        char buf[4096];
        ssize_t n = read(c->fd, buf, sizeof buf);

        if (n > 0) {
            ds_put_buffer(&c->in, buf, n);
        } else if (n < 0 && errno == EAGAIN) {
            return;
        } else {
            WGTEST_CHECK(n == 0 || errno == ECONNRESET);
            c->eof = true;
            return;
        }
    }
}

/* Waits (no more than 2 s, which would mean a missing wakeup) for the
 * server or for 'c', then serves and reads. */
static void
step(struct wg_uapi_server *server, struct client *c)
{
    long long int start = time_msec();

    wg_uapi_server_wait(server);
    if (c && !c->eof) {
        poll_fd_wait(c->fd, POLLIN);
    }
    poll_timer_wait(2000);
    poll_block();
    WGTEST_CHECK(time_msec() - start < 2000);
    wg_uapi_server_run(server);
    if (c && !c->eof) {
        client_read(c);
    }
}

/* Serves what is already there, without waiting. */
static void
settle(struct wg_uapi_server *server)
{
    for (int i = 0; i < 3; i++) {
        wg_uapi_server_run(server);
    }
}

/* Writes all of 'buf', serving meanwhile. */
static void
client_write(struct wg_uapi_server *server, struct client *c,
             const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(c->fd, buf, len);

        if (n < 0) {
            WGTEST_CHECK(errno == EAGAIN);
            wg_uapi_server_run(server);
            continue;
        }
        buf += n;
        len -= n;
    }
}

/* Serves until the server closes 'c'.  Bounded by time, not by runs: a
 * run works for a slice of WG_UAPI_SLICE_US, and a slower build (the
 * ThreadSanitizer one) or a busy machine needs more of them. */
static void
wait_eof(struct wg_uapi_server *server, struct client *c)
{
    long long int deadline = time_msec() + 60000;

    while (!c->eof && time_msec() < deadline) {
        step(server, c);
    }
    WGTEST_CHECK(c->eof);
}

/* Sends 'req' on a new connection and returns the whole reply. */
static char *
roundtrip(struct wg_uapi_server *server, const char *req)
{
    struct client c;
    char *reply;

    client_open(&c);
    client_write(server, &c, req, strlen(req));
    wait_eof(server, &c);
    reply = ds_steal_cstr(&c.in);
    client_close(&c);
    return reply;
}

/* Absolute path of TEST_DIR. */
static char *
test_dir(void)
{
    char *cwd = get_cwd();
    char *dir = xasprintf("%s/%s", cwd, TEST_DIR);

    free(cwd);
    return dir;
}

static struct wg_uapi_server *
create_server(struct wg_device *dev)
{
    struct wg_uapi_server *server;
    char *dir = test_dir();
    char *error_s;

    WGTEST_CHECK(!wg_uapi_server_create(dir, TEST_NAME, dev, &hooks, NULL,
                                        &server, &error_s));
    WGTEST_CHECK(!error_s);
    free(dir);
    return server;
}

/* Creating a second server for 'dev' fails with 'error', saying 'what'. */
static void
check_create_fails(struct wg_device *dev, const char *name, int error,
                   const char *what)
{
    struct wg_uapi_server *server;
    char *dir = test_dir();
    char *error_s;

    WGTEST_CHECK(wg_uapi_server_create(dir, name, dev, &hooks, NULL,
                                       &server, &error_s) == error);
    WGTEST_CHECK(!server && error_s && strstr(error_s, what));
    printf("refused as expected: %s\n", error_s);
    free(error_s);
    free(dir);
}

static void
check_modes(void)
{
    struct stat st;

    WGTEST_CHECK(!stat(TEST_DIR, &st));
    WGTEST_CHECK(S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700);
    WGTEST_CHECK(!lstat(TEST_SOCK, &st));
    WGTEST_CHECK(S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0600);
}

static void
check_get_set(struct wg_uapi_server *server, struct wg_device *dev)
{
    struct ds direct = DS_EMPTY_INITIALIZER;
    char *reply;

    wg_uapi_handle(dev, &hooks, NULL, "get=1\n\n", 7, &direct);
    reply = roundtrip(server, "get=1\n\n");
    WGTEST_CHECK(!strcmp(reply, ds_cstr(&direct)));
    free(reply);
    wg_uapi_ds_wipe(&direct);

    reply = roundtrip(server, "set=1\nlisten_port=4242\n\n");
    WGTEST_CHECK(!strcmp(reply, "errno=0\n\n") && listen_port == 4242);
    free(reply);
    reply = roundtrip(server, "set=1\nlisten_port=1\n\n");
    WGTEST_CHECK(!strcmp(reply, "errno=-98\n\n") && listen_port == 4242);
    free(reply);
    reply = roundtrip(server, "get=1\n\n");
    WGTEST_CHECK(strstr(reply, "\nlisten_port=4242\n"));
    free(reply);
}

/* A reply larger than the socket buffers is sent in pieces. */
static void
check_big_reply(struct wg_uapi_server *server, struct wg_device *dev)
{
    struct ds req = DS_EMPTY_INITIALIZER;
    struct ds direct = DS_EMPTY_INITIALIZER;
    char *reply;

    ds_put_cstr(&req, "set=1\n");
    for (int i = 0; i < 1500; i++) {
        uint8_t priv[WG_KEY_LEN], pub[WG_KEY_LEN];
        char hex[WG_KEY_HEX_LEN];

        wg_crypto_generate_private_key(priv);
        WGTEST_CHECK(wg_crypto_public_key(pub, priv));
        wg_crypto_key_to_hex(hex, pub);
        ds_put_format(&req, "public_key=%s\nendpoint=[2001:db8::%x]:%d\n"
                      "allowed_ip=10.%d.%d.0/24\nallowed_ip=fd00:%x::/64\n",
                      hex, i, 1000 + i, i / 256, i % 256, i);
    }
    ds_put_char(&req, '\n');
    reply = roundtrip(server, ds_cstr(&req));
    WGTEST_CHECK(!strcmp(reply, "errno=0\n\n"));
    free(reply);

    wg_uapi_handle(dev, &hooks, NULL, "get=1\n\n", 7, &direct);
    printf("get reply: %"PRIuSIZE" bytes\n", direct.length);
    WGTEST_CHECK(direct.length > 300000);
    reply = roundtrip(server, "get=1\n\n");
    WGTEST_CHECK(!strcmp(reply, ds_cstr(&direct)));
    free(reply);
    ds_destroy(&direct);
    ds_destroy(&req);

    reply = roundtrip(server, "set=1\nreplace_peers=true\n\n");
    WGTEST_CHECK(!strcmp(reply, "errno=0\n\n"));
    free(reply);
    WGTEST_CHECK(!wg_device_peer_count(dev));
}

/* A slow client does not hold up another one. */
static void
check_concurrent(struct wg_uapi_server *server)
{
    struct client slow;
    char *reply;

    client_open(&slow);
    client_write(server, &slow, "get=1\n", 6);
    settle(server);
    reply = roundtrip(server, "set=1\nlisten_port=4343\n\n");
    WGTEST_CHECK(!strcmp(reply, "errno=0\n\n"));
    free(reply);
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server) == 1);
    WGTEST_CHECK(!slow.in.length);
    client_write(server, &slow, "\n", 1);
    wait_eof(server, &slow);
    WGTEST_CHECK(strstr(ds_cstr(&slow.in), "\nlisten_port=4343\n"));
    client_close(&slow);
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server) == 0);
}

/* A connection closed without a request (as wg(8) probes), a request
 * ended by the end of the stream, and one over the size limit. */
static void
check_abuse(struct wg_uapi_server *server)
{
    struct client c;
    char *big;

    client_open(&c);
    close(c.fd);
    ds_destroy(&c.in);
    settle(server);
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server) == 0);

    /* The end of the stream also ends a request. */
    client_open(&c);
    client_write(server, &c, "get=1\n", 6);
    WGTEST_CHECK(!shutdown(c.fd, SHUT_WR));
    wait_eof(server, &c);
    WGTEST_CHECK(strstr(ds_cstr(&c.in), "\nerrno=0\n\n"));
    client_close(&c);

    big = xmalloc(WG_UAPI_MAX_REQUEST + 1);
    memset(big, 'a', WG_UAPI_MAX_REQUEST + 1);
    memcpy(big, "set=1\n", 6);
    client_open(&c);
    client_write(server, &c, big, WG_UAPI_MAX_REQUEST + 1);
    wait_eof(server, &c);
    WGTEST_CHECK(!strcmp(ds_cstr(&c.in), "errno=-90\n\n"));
    client_close(&c);
    free(big);
}

static void
check_client_limit(struct wg_uapi_server *server)
{
    struct client cs[WG_UAPI_MAX_CLIENTS + 1];

    for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
        client_open(&cs[i]);
    }
    /* The server looks for new connections on one run in
     * WG_UAPI_ACCEPT_EVERY_RUNS; the pending ones keep it awake. */
    for (int i = 0; i < 100 && (wg_uapi_server_n_clients_for_test(server)
                                < WG_UAPI_MAX_CLIENTS); i++) {
        step(server, NULL);
    }
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server)
                 == WG_UAPI_MAX_CLIENTS);
    wait_eof(server, &cs[WG_UAPI_MAX_CLIENTS]);
    for (size_t i = 0; i < ARRAY_SIZE(cs); i++) {
        client_close(&cs[i]);
    }
    settle(server);
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server) == 0);
}

/* A client that sends nothing is disconnected after the timeout. */
static void
check_timeout(struct wg_uapi_server *server)
{
    long long int start = time_msec();
    struct client c;

    wg_uapi_server_set_timeout_for_test(server, 200);
    client_open(&c);
    client_write(server, &c, "get=1\n", 6);
    wait_eof(server, &c);
    WGTEST_CHECK(time_msec() - start >= 200 && !c.in.length);
    client_close(&c);
    WGTEST_CHECK(wg_uapi_server_n_clients_for_test(server) == 0);
    wg_uapi_server_set_timeout_for_test(server, WG_UAPI_CLIENT_TIMEOUT_MS);
}

/* Leaves a socket file nobody listens on at TEST_SOCK. */
static void
make_stale_socket(void)
{
    struct sockaddr_un un = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    ovs_strlcpy(un.sun_path, TEST_SOCK, sizeof un.sun_path);
    WGTEST_CHECK(fd >= 0 && !bind(fd, (struct sockaddr *) &un, sizeof un));
    close(fd);
}

static void
check_files(struct wg_device *dev)
{
    struct wg_uapi_server *server;
    struct stat st;
    char *reply;
    int fd;

    /* A stale socket is replaced. */
    make_stale_socket();
    server = create_server(dev);
    reply = roundtrip(server, "get=1\n\n");
    WGTEST_CHECK(strstr(reply, "errno=0\n\n"));
    free(reply);
    wg_uapi_server_destroy(server);
    WGTEST_CHECK(lstat(TEST_SOCK, &st) && errno == ENOENT);

    /* Something else is never removed. */
    fd = open(TEST_SOCK, O_CREAT | O_WRONLY, 0600);
    WGTEST_CHECK(fd >= 0);
    close(fd);
    check_create_fails(dev, TEST_NAME, EEXIST, "is not a socket");
    WGTEST_CHECK(!lstat(TEST_SOCK, &st) && S_ISREG(st.st_mode));
    WGTEST_CHECK(!unlink(TEST_SOCK));

    /* An unsafe directory or name is refused. */
    WGTEST_CHECK(!chmod(TEST_DIR, 0777));
    check_create_fails(dev, TEST_NAME, EPERM, "writable by other users");
    WGTEST_CHECK(!chmod(TEST_DIR, 0700));
    check_create_fails(dev, "a/b", EINVAL, "cannot name");
}

static void
test_uapi_socket(int argc OVS_UNUSED, char *argv[] OVS_UNUSED)
{
    struct wg_device *dev = new_device(NULL);
    struct wg_uapi_server *server;
    struct stat st;

    unlink(TEST_SOCK);
    rmdir(TEST_DIR);
    server = create_server(dev);
    check_modes();
    check_get_set(server, dev);
    check_big_reply(server, dev);
    check_concurrent(server);
    check_abuse(server);
    check_client_limit(server);
    check_timeout(server);

    /* A live socket is not stolen, and keeps working. */
    check_create_fails(dev, TEST_NAME, EADDRINUSE,
                       "in use by another process");
    free(roundtrip(server, "get=1\n\n"));
    WGTEST_CHECK(!lstat(TEST_SOCK, &st) && S_ISSOCK(st.st_mode));

    /* Destroying removes the file. */
    wg_uapi_server_destroy(server);
    WGTEST_CHECK(lstat(TEST_SOCK, &st) && errno == ENOENT);

    check_files(dev);
    wg_device_destroy(dev);
    WGTEST_CHECK(!rmdir(TEST_DIR));
}
WGTEST_REGISTER("uapi-socket", test_uapi_socket);

/* uapi-serve DIR NAME [PRIVATE_KEY_BASE64 [SECONDS]]: serves a device on
 * DIR/NAME.sock for SECONDS (default 60) or until killed.  The listen port
 * starts at 51820; setting it to 1 fails with EADDRINUSE. */
static void
test_uapi_serve(int argc, char *argv[])
{
    struct wg_device *dev;
    struct wg_uapi_server *server;
    long long int end;
    char *error_s;

    if (argc < 3) {
        fprintf(stderr, "usage: wgtest uapi-serve DIR NAME [KEY [SECS]]\n");
        exit(2);
    }
    dev = new_device(argc > 3 ? argv[3] : NULL);
    end = time_msec() + 1000LL * (argc > 4 ? atoi(argv[4]) : 60);
    if (wg_uapi_server_create(argv[1], argv[2], dev, &hooks, NULL, &server,
                              &error_s)) {
        fprintf(stderr, "%s\n", error_s);
        exit(1);
    }
    while (time_msec() < end) {
        long long int next = wg_device_run(dev);

        wg_uapi_server_run(server);
        wg_uapi_server_wait(server);
        poll_timer_wait_until(MIN(next, end));
        poll_block();
    }
    wg_uapi_server_destroy(server);
    wg_device_destroy(dev);
}
WGTEST_REGISTER("uapi-serve", test_uapi_serve);
