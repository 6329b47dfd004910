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
#include "wg-device.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <unistd.h>

#include "csum.h"
#include "timeval.h"
#include "util.h"
#include "wgtest.h"

/* "wgtest wg-interop": our WireGuard engine (lib/wg-device.h) over a real
 * IPv4 UDP socket, against another WireGuard implementation, for the
 * system test that pairs it with wireguard-go in a network namespace.
 *
 *   --initiate: builds an ICMP echo request from --inner-src to
 *     --inner-dst, hands it to the engine (which starts the handshake),
 *     sends it once the session is up, and waits for the echo reply that
 *     the peer's kernel sends back: checks type, code, id, sequence number,
 *     payload, addresses and both checksums.  Then the next request, up to
 *     --count (default 3), each with a different payload length, so that
 *     nonce counters above 0 and several padding lengths are covered.
 *   --respond: waits for the peer to start the handshake and send ICMP
 *     echo requests to --inner-src, checks each and answers it with an
 *     echo reply through the engine, until --count requests were answered.
 *
 * Exits 0 only after those exchanges were verified, 1 on any failure or
 * when --timeout seconds (default 10) pass first.  Private keys are never
 * printed. */

#define INTEROP_BUF_SIZE 65536
#define INTEROP_PAYLOAD_MAX 512
#define IP_HDR_LEN 20
#define ICMP_HDR_LEN 8
#define ICMP_ECHO_REPLY 0
#define ICMP_ECHO_REQUEST 8

struct interop_opts {
    const char *key_file;
    const char *peer_pub;
    const char *peer_addr;
    int listen_port;
    const char *inner_src;
    const char *inner_dst;
    bool initiate;
    bool respond;
    int timeout_s;
    int count;
};

struct interop {
    struct interop_opts opts;
    int fd;
    struct wg_device *dev;
    struct wg_peer *peer;
    ovs_be32 inner_src;         /* Our tunnel address. */
    ovs_be32 inner_dst;         /* The peer's tunnel address. */
    uint16_t echo_id;
    uint16_t echo_seq;          /* --initiate: of the pending request. */
    uint8_t payload[INTEROP_PAYLOAD_MAX];
    size_t payload_len;
    bool request_sent;          /* --initiate: first request encrypted. */
    int n_done;                 /* Exchanges verified. */
    uint8_t txbuf[INTEROP_BUF_SIZE];
};

static void interop_fail(const char *format, ...)
    OVS_PRINTF_FORMAT(1, 2) OVS_NO_RETURN;

static void
interop_fail(const char *format, ...)
{
    va_list args;

    fputs("wg-interop: FAIL: ", stderr);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    exit(1);
}

static void
interop_usage(void)
{
    fprintf(stderr,
            "usage: wgtest wg-interop --local-key-file FILE --peer-pub B64\n"
            "         [--peer ADDR:PORT] --listen PORT --inner-src IP\n"
            "         --inner-dst IP (--initiate | --respond)"
            " [--timeout SECONDS]\n"
            "         [--count N]\n");
    exit(2);
}

/* Command line. */

static int
interop_parse_int(const char *s, int min, int max, const char *what)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < min || v > max) {
        interop_fail("bad %s \"%s\"", what, s);
    }
    return v;
}

static const char *
interop_arg(int argc, char *argv[], int *i)
{
    int next = *i + 1;

    if (next >= argc) {
        interop_usage();
    }
    *i = next;
    return argv[next];
}

static void
interop_parse_args(int argc, char *argv[], struct interop_opts *o)
{
    memset(o, 0, sizeof *o);
    o->listen_port = -1;
    o->timeout_s = 10;
    o->count = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "--local-key-file")) {
            o->key_file = interop_arg(argc, argv, &i);
        } else if (!strcmp(a, "--peer-pub")) {
            o->peer_pub = interop_arg(argc, argv, &i);
        } else if (!strcmp(a, "--peer")) {
            o->peer_addr = interop_arg(argc, argv, &i);
        } else if (!strcmp(a, "--listen")) {
            o->listen_port = interop_parse_int(interop_arg(argc, argv, &i),
                                               0, 65535, "port");
        } else if (!strcmp(a, "--inner-src")) {
            o->inner_src = interop_arg(argc, argv, &i);
        } else if (!strcmp(a, "--inner-dst")) {
            o->inner_dst = interop_arg(argc, argv, &i);
        } else if (!strcmp(a, "--timeout")) {
            o->timeout_s = interop_parse_int(interop_arg(argc, argv, &i),
                                             1, 3600, "timeout");
        } else if (!strcmp(a, "--count")) {
            o->count = interop_parse_int(interop_arg(argc, argv, &i),
                                         1, 1000, "count");
        } else if (!strcmp(a, "--initiate")) {
            o->initiate = true;
        } else if (!strcmp(a, "--respond")) {
            o->respond = true;
        } else {
            interop_usage();
        }
    }
    if (!o->key_file || !o->peer_pub || o->listen_port < 0
        || !o->inner_src || !o->inner_dst || o->initiate == o->respond
        || (o->initiate && !o->peer_addr)) {
        interop_usage();
    }
}

static ovs_be32
interop_parse_ip(const char *s)
{
    struct in_addr in;

    if (inet_pton(AF_INET, s, &in) != 1) {
        interop_fail("bad IPv4 address \"%s\"", s);
    }
    return in.s_addr;
}

/* Parses "A.B.C.D:PORT" into 'sin'. */
static void
interop_parse_endpoint(const char *s, struct sockaddr_in *sin)
{
    const char *colon = strrchr(s, ':');
    char host[INET_ADDRSTRLEN];

    if (!colon || colon - s >= sizeof host) {
        interop_fail("bad endpoint \"%s\" (want A.B.C.D:PORT)", s);
    }
    memcpy(host, s, colon - s);
    host[colon - s] = '\0';
    memset(sin, 0, sizeof *sin);
    sin->sin_family = AF_INET;
    sin->sin_addr.s_addr = interop_parse_ip(host);
    sin->sin_port = htons(interop_parse_int(colon + 1, 1, 65535, "port"));
}

/* Reads the base64 private key in 'path' (as "wg genkey" writes it). */
static void
interop_read_key(const char *path, uint8_t key[WG_KEY_LEN])
{
    char line[128];
    FILE *f = fopen(path, "r");
    bool ok;

    if (!f) {
        interop_fail("%s: %s", path, ovs_strerror(errno));
    }
    ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    line[strcspn(line, " \t\r\n")] = '\0';
    ok = ok && wg_crypto_key_from_base64(key, line);
    wg_crypto_wipe(line, sizeof line);
    if (!ok) {
        interop_fail("%s: not a base64 WireGuard key", path);
    }
}

/* ICMP echo packets (IPv4). */

static void
interop_fill_ip(uint8_t *ip, size_t total_len, ovs_be32 src, ovs_be32 dst)
{
    ovs_be16 len = htons(total_len);
    ovs_be16 csum16;

    memset(ip, 0, IP_HDR_LEN);
    ip[0] = 0x45;
    memcpy(ip + 2, &len, 2);
    ip[6] = 0x40;                       /* DF. */
    ip[8] = 64;                         /* TTL. */
    ip[9] = IPPROTO_ICMP;
    memcpy(ip + 12, &src, 4);
    memcpy(ip + 16, &dst, 4);
    csum16 = csum(ip, IP_HDR_LEN);
    memcpy(ip + 10, &csum16, 2);
}

/* Writes an IPv4 ICMP echo message of 'type' at 'ip' and returns its
 * length. */
static size_t
interop_build_echo(uint8_t *ip, uint8_t type, ovs_be32 src, ovs_be32 dst,
                   uint16_t id, uint16_t seq, const uint8_t *payload,
                   size_t payload_len)
{
    size_t icmp_len = ICMP_HDR_LEN + payload_len;
    uint8_t *icmp = ip + IP_HDR_LEN;
    ovs_be16 id_be = htons(id), seq_be = htons(seq), csum16;

    interop_fill_ip(ip, IP_HDR_LEN + icmp_len, src, dst);
    memset(icmp, 0, ICMP_HDR_LEN);
    icmp[0] = type;
    memcpy(icmp + 4, &id_be, 2);
    memcpy(icmp + 6, &seq_be, 2);
    memcpy(icmp + ICMP_HDR_LEN, payload, payload_len);
    csum16 = csum(icmp, icmp_len);
    memcpy(icmp + 2, &csum16, 2);
    return IP_HDR_LEN + icmp_len;
}

/* A parsed IPv4 ICMP echo message. */
struct interop_echo {
    ovs_be32 src, dst;
    uint8_t type, code;
    uint16_t id, seq;
    const uint8_t *payload;
    size_t payload_len;
};

/* Parses the inner packet at 'ip' as an IPv4 ICMP echo message, checking
 * lengths and both checksums.  Returns NULL on success, otherwise why
 * not. */
static const char *
interop_parse_echo(const uint8_t *ip, size_t len, struct interop_echo *e)
{
    size_t ihl, total;
    const uint8_t *icmp;

    if (len < IP_HDR_LEN || ip[0] >> 4 != 4) {
        return "not an IPv4 packet";
    }
    ihl = (ip[0] & 0xf) * 4;
    total = (ip[2] << 8) | ip[3];
    if (ihl < IP_HDR_LEN || total < ihl + ICMP_HDR_LEN || total > len) {
        return "bad IPv4 header or total length";
    }
    if (csum(ip, ihl)) {
        return "bad IPv4 header checksum";
    }
    if (ip[9] != IPPROTO_ICMP) {
        return "not ICMP";
    }
    icmp = ip + ihl;
    if (csum(icmp, total - ihl)) {
        return "bad ICMP checksum";
    }
    memcpy(&e->src, ip + 12, 4);
    memcpy(&e->dst, ip + 16, 4);
    e->type = icmp[0];
    e->code = icmp[1];
    e->id = (icmp[4] << 8) | icmp[5];
    e->seq = (icmp[6] << 8) | icmp[7];
    e->payload = icmp + ICMP_HDR_LEN;
    e->payload_len = total - ihl - ICMP_HDR_LEN;
    return NULL;
}

/* The engine's hooks. */

static void
interop_send_hook(void *aux, const struct sockaddr *dst, socklen_t dst_len,
                  const void *msg, size_t len)
{
    struct interop *io = aux;

    if (sendto(io->fd, msg, len, 0, dst, dst_len) < 0) {
        fprintf(stderr, "wg-interop: sendto: %s\n", ovs_strerror(errno));
    }
}

/* Encrypts the inner packet of 'inner_len' bytes that starts at
 * io->txbuf + WG_DEVICE_HEADROOM and sends it to the peer.  Returns the
 * engine's status (> 0: bytes sent). */
static int
interop_encrypt_and_send(struct interop *io, size_t inner_len)
{
    const struct sockaddr *dst;
    socklen_t dst_len;
    int n;

    n = wg_device_encrypt(io->dev, io->peer, io->txbuf, inner_len,
                          sizeof io->txbuf);
    if (n <= 0) {
        return n;
    }
    dst = wg_device_peer_endpoint(io->peer, &dst_len);
    if (!dst) {
        interop_fail("engine encrypted a packet for a peer without "
                     "endpoint");
    }
    if (sendto(io->fd, io->txbuf, n, 0, dst, dst_len) != n) {
        interop_fail("sendto: %s", ovs_strerror(errno));
    }
    return n;
}

/* Builds and encrypts the echo request for io->echo_seq, whose payload
 * length varies with the sequence number. */
static int
interop_send_request(struct interop *io)
{
    size_t len;

    io->payload_len = 32 + 13 * (io->echo_seq % 32);
    for (size_t i = 0; i < io->payload_len; i++) {
        io->payload[i] = (io->echo_seq * 31) ^ i;
    }
    len = interop_build_echo(io->txbuf + WG_DEVICE_HEADROOM,
                             ICMP_ECHO_REQUEST, io->inner_src, io->inner_dst,
                             io->echo_id, io->echo_seq, io->payload,
                             io->payload_len);
    return interop_encrypt_and_send(io, len);
}

static void
interop_session_ready_hook(void *aux, struct wg_peer *peer)
{
    struct interop *io = aux;
    int n;

    printf("session ready\n");
    if (!io->opts.initiate || io->request_sent || peer != io->peer) {
        return;
    }
    n = interop_send_request(io);
    if (n <= 0) {
        interop_fail("session ready but encrypting the echo request "
                     "returned %d", n);
    }
    io->request_sent = true;
    printf("sent ICMP echo request id=%u seq=%u (%d bytes of UDP payload)\n",
           io->echo_id, io->echo_seq, n);
}

static void
interop_handshake_failed_hook(void *aux OVS_UNUSED,
                              struct wg_peer *peer OVS_UNUSED)
{
    interop_fail("the engine gave up the handshake");
}

/* Setup. */

static int
interop_open_socket(int port)
{
    struct sockaddr_in sin;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    if (fd < 0) {
        interop_fail("socket: %s", ovs_strerror(errno));
    }
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons(port);
    if (bind(fd, (struct sockaddr *) &sin, sizeof sin) < 0) {
        interop_fail("bind to UDP port %d: %s", port, ovs_strerror(errno));
    }
    return fd;
}

static void
interop_setup_device(struct interop *io)
{
    static const struct wg_device_hooks hooks = {
        .send = interop_send_hook,
        .session_ready = interop_session_ready_hook,
        .handshake_failed = interop_handshake_failed_hook,
    };
    uint8_t key[WG_KEY_LEN];
    int error;

    io->dev = wg_device_create(&hooks, io);
    interop_read_key(io->opts.key_file, key);
    error = wg_device_set_private_key(io->dev, key);
    wg_crypto_wipe(key, sizeof key);
    if (error) {
        interop_fail("private key rejected: %s", ovs_strerror(error));
    }
    if (!wg_crypto_key_from_base64(key, io->opts.peer_pub)) {
        interop_fail("bad peer public key \"%s\"", io->opts.peer_pub);
    }
    error = wg_device_peer_add(io->dev, key, &io->peer);
    if (error) {
        interop_fail("adding the peer: %s", ovs_strerror(error));
    }
    error = wg_device_peer_allowed_ip_add(io->dev, io->peer, AF_INET,
                                          &io->inner_dst, 32);
    if (error) {
        interop_fail("allowed IP %s/32: %s", io->opts.inner_dst,
                     ovs_strerror(error));
    }
}

static void
interop_setup(struct interop *io)
{
    io->inner_src = interop_parse_ip(io->opts.inner_src);
    io->inner_dst = interop_parse_ip(io->opts.inner_dst);
    io->echo_id = getpid() & 0xffff;
    io->echo_seq = 1;
    io->fd = interop_open_socket(io->opts.listen_port);
    interop_setup_device(io);
    if (io->opts.peer_addr) {
        struct sockaddr_in sin;

        interop_parse_endpoint(io->opts.peer_addr, &sin);
        if (wg_device_peer_set_endpoint(io->dev, io->peer,
                                        (struct sockaddr *) &sin,
                                        sizeof sin)) {
            interop_fail("peer endpoint %s refused", io->opts.peer_addr);
        }
    }
}

/* Inner packets. */

static void
interop_check_addrs(const struct interop *io, const struct interop_echo *e)
{
    if (e->src != io->inner_dst || e->dst != io->inner_src) {
        char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];

        inet_ntop(AF_INET, &e->src, src, sizeof src);
        inet_ntop(AF_INET, &e->dst, dst, sizeof dst);
        interop_fail("inner packet %s -> %s, expected %s -> %s", src, dst,
                     io->opts.inner_dst, io->opts.inner_src);
    }
}

/* --initiate: 'e' must be the reply to our request. */
static void
interop_check_reply(struct interop *io, const struct interop_echo *e)
{
    interop_check_addrs(io, e);
    if (e->type != ICMP_ECHO_REPLY || e->code != 0) {
        interop_fail("ICMP type %u code %u, expected echo reply (0/0)",
                     e->type, e->code);
    }
    if (e->id != io->echo_id || e->seq != io->echo_seq) {
        interop_fail("echo reply id=%u seq=%u, expected id=%u seq=%u",
                     e->id, e->seq, io->echo_id, io->echo_seq);
    }
    if (e->payload_len != io->payload_len
        || memcmp(e->payload, io->payload, io->payload_len)) {
        interop_fail("echo reply payload differs (%zu bytes, expected %zu)",
                     e->payload_len, io->payload_len);
    }
    printf("verified ICMP echo reply id=%u seq=%u, %zu bytes of payload\n",
           e->id, e->seq, e->payload_len);
    if (++io->n_done < io->opts.count) {
        int n;

        io->echo_seq++;
        n = interop_send_request(io);
        if (n <= 0) {
            interop_fail("encrypting echo request %u returned %d",
                         io->echo_seq, n);
        }
        printf("sent ICMP echo request id=%u seq=%u (%d bytes of UDP "
               "payload)\n", io->echo_id, io->echo_seq, n);
    }
}

/* --respond: 'e' must be an echo request to us; answers it. */
static void
interop_answer_request(struct interop *io, const struct interop_echo *e)
{
    size_t len;
    int n;

    interop_check_addrs(io, e);
    if (e->type != ICMP_ECHO_REQUEST || e->code != 0) {
        interop_fail("ICMP type %u code %u, expected echo request (8/0)",
                     e->type, e->code);
    }
    if (e->payload_len > sizeof io->txbuf - WG_DEVICE_HEADROOM
                         - WG_DEVICE_TAILROOM - IP_HDR_LEN - ICMP_HDR_LEN) {
        interop_fail("echo request too long");
    }
    printf("received ICMP echo request id=%u seq=%u, %zu bytes of payload\n",
           e->id, e->seq, e->payload_len);
    len = interop_build_echo(io->txbuf + WG_DEVICE_HEADROOM, ICMP_ECHO_REPLY,
                             io->inner_src, io->inner_dst, e->id, e->seq,
                             e->payload, e->payload_len);
    n = interop_encrypt_and_send(io, len);
    if (n <= 0) {
        interop_fail("encrypting the echo reply returned %d", n);
    }
    printf("sent ICMP echo reply (%d bytes of UDP payload)\n", n);
    io->n_done++;
}

static void
interop_handle_inner(struct interop *io, const struct wg_device_rx_result *r)
{
    struct interop_echo e;
    const char *error;

    if (r->peer != io->peer) {
        interop_fail("inner packet attributed to an unknown peer");
    }
    if (r->inner_len >= IP_HDR_LEN && r->inner[0] >> 4 == 4
        && r->inner[9] != IPPROTO_ICMP) {
        /* Not ours to check (the peer's kernel may send other traffic). */
        printf("ignored inner IPv4 packet of protocol %u\n", r->inner[9]);
        return;
    }
    error = interop_parse_echo(r->inner, r->inner_len, &e);
    if (error) {
        interop_fail("inner packet (%zu bytes): %s", r->inner_len, error);
    }
    if (io->opts.initiate) {
        interop_check_reply(io, &e);
    } else {
        interop_answer_request(io, &e);
    }
}

/* Main loop. */

static void
interop_receive(struct interop *io)
{
    static uint8_t buf[INTEROP_BUF_SIZE];
    struct sockaddr_storage ss;
    socklen_t ss_len = sizeof ss;
    struct wg_device_rx_result r;
    enum wg_device_rx rx;
    ssize_t n;

    n = recvfrom(io->fd, buf, sizeof buf, MSG_DONTWAIT,
                 (struct sockaddr *) &ss, &ss_len);
    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR) {
            fprintf(stderr, "wg-interop: recvfrom: %s\n", ovs_strerror(errno));
        }
        return;
    }
    memset(&r, 0, sizeof r);
    rx = wg_device_receive(io->dev, (struct sockaddr *) &ss, ss_len,
                           buf, n, &r);
    printf("received %zd-byte datagram: %s\n", n, wg_device_rx_name(rx));
    if (wg_device_rx_is_drop(rx)) {
        fprintf(stderr, "wg-interop: engine dropped a %zd-byte datagram: "
                "%s\n", n, wg_device_rx_name(rx));
    } else if (rx == WG_DEVICE_RX_DATA) {
        interop_handle_inner(io, &r);
    }
}

static int
interop_poll_timeout(struct interop *io, long long int give_up)
{
    long long int now = time_msec();
    long long int next = wg_device_run(io->dev);
    long long int until = MIN(next, give_up);

    return until <= now ? 0 : MIN(until - now, INT_MAX);
}

static void
interop_start(struct interop *io)
{
    int n;

    printf("listening on UDP port %d\n", io->opts.listen_port);
    if (!io->opts.initiate) {
        fflush(stdout);
        return;
    }
    /* Without a session the engine keeps nothing and starts a handshake:
     * the request is built again once the session is ready. */
    n = interop_send_request(io);
    if (n != WG_DEVICE_TX_NO_SESSION) {
        interop_fail("first encrypt returned %d, expected no session (%d)",
                     n, WG_DEVICE_TX_NO_SESSION);
    }
    printf("handshake initiation started\n");
    fflush(stdout);
}

static void
interop_report(const struct interop *io)
{
    struct wg_peer_info info;

    wg_device_peer_get_info(io->dev, io->peer, &info);
    if (!info.has_session || !info.last_handshake.tv_sec
        || !info.rx_packets || !info.tx_packets) {
        interop_fail("peer state after the exchange: session=%d "
                     "last_handshake=%lld rx_packets=%"PRIu64
                     " tx_packets=%"PRIu64, info.has_session,
                     (long long int) info.last_handshake.tv_sec,
                     info.rx_packets, info.tx_packets);
    }
    printf("peer: rx %"PRIu64" bytes in %"PRIu64" packets, tx %"PRIu64
           " bytes in %"PRIu64" packets\n", info.rx_bytes, info.rx_packets,
           info.tx_bytes, info.tx_packets);
}

static void
test_wg_interop_main(int argc, char *argv[])
{
    struct interop *io = xzalloc(sizeof *io);
    long long int give_up;

    interop_parse_args(argc, argv, &io->opts);
    if (wg_crypto_init()) {
        interop_fail("crypto libraries unusable");
    }
    interop_setup(io);
    give_up = time_msec() + io->opts.timeout_s * 1000LL;
    interop_start(io);
    while (io->n_done < io->opts.count) {
        struct pollfd pfd = { .fd = io->fd, .events = POLLIN };

        if (time_msec() >= give_up) {
            interop_fail("timed out after %d s (%s, %d of %d echo "
                         "exchanges done)", io->opts.timeout_s,
                         io->opts.initiate && !io->request_sent
                         ? "no handshake response"
                         : "no echo exchange", io->n_done, io->opts.count);
        }
        if (poll(&pfd, 1, interop_poll_timeout(io, give_up)) > 0) {
            interop_receive(io);
        }
        fflush(stdout);
    }
    interop_report(io);
    printf("wg-interop: success\n");
    wg_device_destroy(io->dev);
    close(io->fd);
    free(io);
}

WGTEST_REGISTER("wg-interop", test_wg_interop_main);
