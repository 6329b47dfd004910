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

/* wg-handshake-flood: a handshake flood for the DoS-protection tests.
 *
 * Contract:
 *
 *   wg-handshake-flood --target ADDR:PORT --public-key BASE64
 *                      --src ADDR [--src ADDR...] [--sockets-per-src N]
 *                      [--rate PER-SECOND] [--duration SECONDS]
 *
 * Opens N UDP sockets (default 4) on each source address ADDR (IPv4 or
 * IPv6, same family as the target), each bound to an ephemeral port and
 * connected to the target, and for --duration seconds (default 10) sends
 * WireGuard handshake initiations at --rate messages per second (default
 * 5000), round-robin over the sockets.  Each initiation is 148 bytes:
 * type 1, a sender index of the form BASE + sequence number (BASE random),
 * random ephemeral, encrypted static and encrypted timestamp, a valid mac1
 * for the target's public key (computed by lib/wg-cookie.c) and an all-zero
 * mac2.  No initiation can complete a handshake: the encrypted fields are
 * noise.
 *
 * It reads whatever comes back on its sockets, during the flood and for
 * 200 ms after it, and counts cookie replies (type 3, 64 bytes, addressed
 * to a sender index it used) apart from anything else.  Then it exits by
 * itself, printing one line of figures on stdout:
 *
 *   sent=N seconds=S rate=R/s cookie_replies=M other=K send_errors=E
 *   sources=A sockets=B
 *
 * (on one line), where "seconds" is the time spent sending and "rate" is
 * sent / seconds.  Exit status: 0 after a flood, 1 on bad usage or when a
 * socket cannot be set up. */

#include <config.h>

#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "openvswitch/dynamic-string.h"
#include "socket-util.h"
#include "timeval.h"
#include "util.h"
#include "wg-cookie.h"
#include "wg-crypto.h"
#include "wg-messages.h"

/* How long the tool keeps reading after the last initiation. */
#define FLOOD_LINGER_MS 200

/* At most this many initiations in one go, so that reading keeps up after
 * a stall. */
#define FLOOD_MAX_BURST 256

struct flood_options {
    struct sockaddr_storage target;
    uint8_t target_pub[WG_KEY_LEN];
    bool has_target;
    bool has_pub;
    struct sockaddr_storage *srcs;
    size_t n_srcs;
    unsigned int sockets_per_src;
    unsigned int rate;
    double duration_s;
};

struct flood_stats {
    unsigned long long attempts;        /* Initiations tried. */
    unsigned long long sent;            /* ...that the kernel accepted. */
    unsigned long long send_errors;     /* ...that it refused. */
    unsigned long long cookie_replies;
    unsigned long long other;           /* Anything else received. */
};

struct flood {
    struct pollfd *fds;
    size_t n_fds;
    struct wg_cookie_maker maker;       /* Computes mac1 for the target. */
    uint32_t index_base;
    struct flood_stats stats;
};

static void OVS_NO_RETURN
usage(void)
{
    printf("%s: WireGuard handshake initiation flood\n"
           "usage: %s --target ADDR:PORT --public-key BASE64 --src ADDR...\n"
           "  --target ADDR:PORT     where to send (IPv4 or [IPv6]:port)\n"
           "  --public-key BASE64    the target's public key (for mac1)\n"
           "  --src ADDR             a source address (repeatable)\n"
           "  --sockets-per-src N    sockets per source address (4)\n"
           "  --rate N               initiations per second (5000)\n"
           "  --duration SECONDS     how long to send (10)\n",
           program_name, program_name);
    exit(EXIT_SUCCESS);
}

static unsigned int
parse_uint(const char *name, const char *s, unsigned int min,
           unsigned int max)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        ovs_fatal(0, "%s: \"%s\" is not an integer in [%u, %u]",
                  name, s, min, max);
    }
    return v;
}

static double
parse_seconds(const char *s)
{
    char *end;
    double v;

    v = strtod(s, &end);
    if (end == s || *end || !(v > 0) || v > 3600) {
        ovs_fatal(0, "--duration: \"%s\" is not in (0, 3600] seconds", s);
    }
    return v;
}

static void
add_src(struct flood_options *o, const char *s)
{
    o->srcs = xrealloc(o->srcs, (o->n_srcs + 1) * sizeof *o->srcs);
    if (!inet_parse_address(s, &o->srcs[o->n_srcs])) {
        ovs_fatal(0, "--src: \"%s\" is not an IP address", s);
    }
    o->n_srcs++;
}

static void
check_options(const struct flood_options *o)
{
    if (!o->has_target || !o->has_pub || !o->n_srcs) {
        ovs_fatal(0, "--target, --public-key and --src are required "
                  "(--help for help)");
    }
    for (size_t i = 0; i < o->n_srcs; i++) {
        if (o->srcs[i].ss_family != o->target.ss_family) {
            ovs_fatal(0, "--src addresses must be of the target's family");
        }
    }
}

static void
parse_options(int argc, char *argv[], struct flood_options *o)
{
    static const struct option long_options[] = {
        {"target", required_argument, NULL, 't'},
        {"public-key", required_argument, NULL, 'k'},
        {"src", required_argument, NULL, 's'},
        {"sockets-per-src", required_argument, NULL, 'n'},
        {"rate", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;

    memset(o, 0, sizeof *o);
    o->sockets_per_src = 4;
    o->rate = 5000;
    o->duration_s = 10;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1) {
        switch (c) {
        case 't':
            if (!inet_parse_active(optarg, -1, &o->target, false, NULL)) {
                ovs_fatal(0, "--target: \"%s\" is not ADDR:PORT", optarg);
            }
            o->has_target = true;
            break;
        case 'k':
            if (!wg_crypto_key_from_base64(o->target_pub, optarg)) {
                ovs_fatal(0, "--public-key: not a base64 key");
            }
            o->has_pub = true;
            break;
        case 's':
            add_src(o, optarg);
            break;
        case 'n':
            o->sockets_per_src = parse_uint("--sockets-per-src", optarg,
                                            1, 64);
            break;
        case 'r':
            o->rate = parse_uint("--rate", optarg, 1, 1000000);
            break;
        case 'd':
            o->duration_s = parse_seconds(optarg);
            break;
        case 'h':
            usage();
        default:
            exit(EXIT_FAILURE);
        }
    }
    if (optind != argc) {
        ovs_fatal(0, "unexpected argument \"%s\"", argv[optind]);
    }
    check_options(o);
}

/* Returns a nonblocking UDP socket bound to 'src' (ephemeral port) and
 * connected to 'target'. */
static int
open_socket(const struct sockaddr_storage *src,
            const struct sockaddr_storage *target)
{
    int fd = socket(src->ss_family, SOCK_DGRAM, 0);

    if (fd < 0) {
        ovs_fatal(errno, "socket");
    }
    if (bind(fd, (const struct sockaddr *) src, ss_length(src))) {
        struct ds s = DS_EMPTY_INITIALIZER;

        ss_format_address(src, &s);
        ovs_fatal(errno, "bind to %s", ds_cstr(&s));
    }
    if (connect(fd, (const struct sockaddr *) target, ss_length(target))) {
        ovs_fatal(errno, "connect to the target");
    }
    xset_nonblocking(fd);
    return fd;
}

static void
flood_open(struct flood *f, const struct flood_options *o)
{
    f->n_fds = o->n_srcs * o->sockets_per_src;
    f->fds = xcalloc(f->n_fds, sizeof *f->fds);
    for (size_t i = 0; i < f->n_fds; i++) {
        f->fds[i].fd = open_socket(&o->srcs[i / o->sockets_per_src],
                                   &o->target);
        f->fds[i].events = POLLIN;
    }
    wg_cookie_maker_init(&f->maker, o->target_pub);
    wg_crypto_random(&f->index_base, sizeof f->index_base);
}

/* Builds in 'msg' initiation number 'seq': noise with a valid mac1. */
static void
flood_make_initiation(struct flood *f, unsigned long long seq,
                      struct wg_msg_initiation *msg)
{
    memset(msg, 0, sizeof *msg);
    msg->type = htole32(WG_MSG_INITIATION);
    msg->sender = htole32(f->index_base + (uint32_t) seq);
    wg_crypto_random(msg->ephemeral, sizeof msg->ephemeral);
    wg_crypto_random(msg->encrypted_static, sizeof msg->encrypted_static);
    wg_crypto_random(msg->encrypted_timestamp,
                     sizeof msg->encrypted_timestamp);
    if (!wg_cookie_add_macs(&f->maker, msg, sizeof *msg, time_msec())) {
        ovs_fatal(0, "computing MAC1 failed");
    }
}

static void
flood_send_one(struct flood *f)
{
    unsigned long long seq = f->stats.attempts++;
    struct wg_msg_initiation msg;
    int fd = f->fds[seq % f->n_fds].fd;

    flood_make_initiation(f, seq, &msg);
    if (send(fd, &msg, sizeof msg, 0) == sizeof msg) {
        f->stats.sent++;
    } else {
        f->stats.send_errors++;
    }
}

/* Sends what the rate asks for by now, 'elapsed_us' after the start. */
static void
flood_send_due(struct flood *f, unsigned int rate, long long int elapsed_us)
{
    unsigned long long due = (unsigned long long) elapsed_us * rate / 1000000;

    for (int i = 0; i < FLOOD_MAX_BURST && f->stats.attempts < due; i++) {
        flood_send_one(f);
    }
}

/* Counts one received datagram of 'len' bytes at 'buf'. */
static void
flood_classify(struct flood *f, const void *buf, size_t len)
{
    const struct wg_msg_cookie_reply *reply = buf;

    if (len == sizeof *reply
        && le32toh(reply->type) == WG_MSG_COOKIE_REPLY
        && (uint32_t) (le32toh(reply->receiver) - f->index_base)
           < f->stats.attempts) {
        f->stats.cookie_replies++;
    } else {
        f->stats.other++;
    }
}

static void
flood_read_socket(struct flood *f, int fd)
{
    uint8_t buf[2048];
    ssize_t n;

    while ((n = recv(fd, buf, sizeof buf, 0)) >= 0) {
        flood_classify(f, buf, n);
    }
}

/* Waits up to 'timeout_ms' for datagrams and reads every one there is. */
static void
flood_poll(struct flood *f, int timeout_ms)
{
    if (poll(f->fds, f->n_fds, timeout_ms) <= 0) {
        return;
    }
    for (size_t i = 0; i < f->n_fds; i++) {
        if (f->fds[i].revents) {
            flood_read_socket(f, f->fds[i].fd);
        }
    }
}

/* Floods for the configured duration; returns the seconds spent sending. */
static double
flood_run(struct flood *f, const struct flood_options *o)
{
    long long int duration_us = o->duration_s * 1e6;
    long long int start = time_usec();
    long long int elapsed;

    while ((elapsed = time_usec() - start) < duration_us) {
        flood_send_due(f, o->rate, elapsed);
        flood_poll(f, 1);
    }

    long long int linger_end = time_msec() + FLOOD_LINGER_MS;
    while (time_msec() < linger_end) {
        flood_poll(f, 10);
    }
    return elapsed / 1e6;
}

static void
flood_print(const struct flood *f, double seconds, size_t n_srcs)
{
    const struct flood_stats *s = &f->stats;

    printf("sent=%llu seconds=%.2f rate=%.0f/s cookie_replies=%llu "
           "other=%llu send_errors=%llu sources=%"PRIuSIZE" "
           "sockets=%"PRIuSIZE"\n",
           s->sent, seconds, seconds > 0 ? s->sent / seconds : 0.0,
           s->cookie_replies, s->other, s->send_errors, n_srcs, f->n_fds);
}

int
main(int argc, char *argv[])
{
    struct flood_options o;
    struct flood f;

    set_program_name(argv[0]);
    if (wg_crypto_init()) {
        ovs_fatal(0, "crypto libraries unavailable");
    }
    parse_options(argc, argv, &o);

    memset(&f, 0, sizeof f);
    flood_open(&f, &o);
    double seconds = flood_run(&f, &o);
    flood_print(&f, seconds, o.n_srcs);

    for (size_t i = 0; i < f.n_fds; i++) {
        close(f.fds[i].fd);
    }
    wg_cookie_maker_clear(&f.maker);
    free(f.fds);
    free(o.srcs);
    return 0;
}
