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
#include "udp-batch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>

#include "util.h"
#include "wgtest.h"

/* Unit tests for lib/udp-batch: pure helpers against tables, and sockets
 * on 127.0.0.1 and ::1.  Needs no privileges. */

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_NO_CHECK6_TX
#define UDP_NO_CHECK6_TX 101
#endif
#ifndef UDP_NO_CHECK6_RX
#define UDP_NO_CHECK6_RX 102
#endif

#define N_RX_BUFS 8
#define TX_CHUNK 64

static const char *
fam_name(int family)
{
    return family == AF_INET ? "IPv4" : "IPv6";
}

/* Test sockets and addresses. */

static struct udp_batch_sock *
open_sock(int family, uint16_t port, bool gso, bool gro)
{
    struct udp_batch_options opts = {
        .family = family, .port = port, .gso = gso, .gro = gro,
    };
    struct udp_batch_sock *sock;
    char *err = NULL;
    int error = udp_batch_open(&opts, &sock, &err);

    if (error) {
        fprintf(stderr, "udp_batch_open: %s\n", err);
    }
    WGTEST_CHECK(!error && sock && !err);
    return sock;
}

static void
loopback_addr(int family, uint16_t port, union udp_batch_addr *addr)
{
    memset(addr, 0, sizeof *addr);
    if (family == AF_INET) {
        addr->sin.sin_family = AF_INET;
        addr->sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr->sin.sin_port = htons(port);
    } else {
        addr->sin6.sin6_family = AF_INET6;
        addr->sin6.sin6_addr = in6addr_loopback;
        addr->sin6.sin6_port = htons(port);
    }
}

static void
set_int_opt(struct udp_batch_sock *sock, int level, int opt, int value)
{
    WGTEST_CHECK(!setsockopt(udp_batch_fd(sock), level, opt,
                             &value, sizeof value));
}

/* Payloads: datagram 'idx' of a test holds bytes derived from 'idx' and
 * the offset, so a misplaced, reordered or cut datagram shows. */

static uint8_t
pattern_byte(size_t idx, size_t ofs)
{
    return (idx * 131 + ofs * 7 + (ofs >> 8) + 1) & 0xff;
}

static uint8_t *
make_payload(size_t idx, size_t len)
{
    uint8_t *p = xmalloc(len ? len : 1);

    for (size_t i = 0; i < len; i++) {
        p[i] = pattern_byte(idx, i);
    }
    return p;
}

/* A receiver that checks every datagram against what was sent. */
struct collector {
    struct udp_batch_sock *sock;
    union udp_batch_addr from;  /* Expected sender. */
    const size_t *sizes;        /* Expected size of each datagram. */
    size_t n;                   /* Datagrams expected in all. */
    size_t got;                 /* Datagrams seen so far. */
    struct udp_batch_rx_buf bufs[N_RX_BUFS];
};

static void
collector_init(struct collector *c, struct udp_batch_sock *sock,
               const union udp_batch_addr *from, const size_t *sizes,
               size_t n)
{
    memset(c, 0, sizeof *c);
    c->sock = sock;
    c->from = *from;
    c->sizes = sizes;
    c->n = n;
    for (size_t i = 0; i < N_RX_BUFS; i++) {
        c->bufs[i].data = xmalloc(UDP_BATCH_RX_BUF_SIZE);
        c->bufs[i].size = UDP_BATCH_RX_BUF_SIZE;
    }
}

static void
collector_destroy(struct collector *c)
{
    for (size_t i = 0; i < N_RX_BUFS; i++) {
        free(c->bufs[i].data);
    }
}

static void
collector_check(struct collector *c, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t idx = c->got;

    WGTEST_CHECK(idx < c->n);
    if (len != c->sizes[idx]) {
        fprintf(stderr, "datagram %zu: %zu bytes, expected %zu\n",
                idx, len, c->sizes[idx]);
    }
    WGTEST_CHECK(len == c->sizes[idx]);
    for (size_t i = 0; i < len; i++) {
        if (p[i] != pattern_byte(idx, i)) {
            fprintf(stderr, "datagram %zu: byte %zu is %02x\n", idx, i, p[i]);
        }
        WGTEST_CHECK(p[i] == pattern_byte(idx, i));
    }
    c->got++;
}

/* Receives until 'target' datagrams have been seen in all. */
static void
collector_drain(struct collector *c, size_t target)
{
    while (c->got < target) {
        size_t n_recv;
        int error = udp_batch_recv(c->sock, c->bufs, N_RX_BUFS, &n_recv);

        if (error == EAGAIN) {
            struct pollfd pfd = { .fd = udp_batch_fd(c->sock),
                                  .events = POLLIN };
            if (poll(&pfd, 1, 3000) <= 0) {
                fprintf(stderr, "timeout: %zu of %zu datagrams\n",
                        c->got, target);
            }
            WGTEST_CHECK(pfd.revents & POLLIN);
            continue;
        }
        WGTEST_CHECK(!error && n_recv > 0 && n_recv <= N_RX_BUFS);
        for (size_t i = 0; i < n_recv; i++) {
            struct udp_batch_rx_buf *b = &c->bufs[i];
            struct udp_batch_seg seg;
            const void *data;
            size_t len;

            WGTEST_CHECK(udp_batch_addr_equal(&b->src, &c->from));
            udp_batch_seg_init(&seg, b->data, b->len, b->gro_size);
            while (udp_batch_seg_next(&seg, &data, &len)) {
                collector_check(c, data, len);
            }
        }
    }
}

/* Splitting helper. */

struct split_case {
    size_t len;
    size_t seg_size;
    size_t n_segs;
    size_t last;                /* Size of the last segment. */
};

static const struct split_case split_cases[] = {
    { 0, 0, 1, 0 },             /* Empty datagram, no GRO. */
    { 0, 1000, 1, 0 },          /* Empty read with a segment size. */
    { 100, 0, 1, 100 },         /* Not coalesced. */
    { 65535, 0, 1, 65535 },
    { 999, 1000, 1, 999 },      /* Shorter than one segment. */
    { 1000, 1000, 1, 1000 },    /* Exactly one segment. */
    { 1001, 1000, 2, 1 },       /* One byte over. */
    { 3000, 1000, 3, 1000 },    /* Size divides the length. */
    { 2500, 1000, 3, 500 },     /* Size does not divide it. */
    { 7, 1, 7, 1 },
    { 65535, 1452, 46, 195 },   /* 45 * 1452 = 65340. */
    { 64 * 1000, 1000, 64, 1000 },
};

static void
test_split(void)
{
    for (size_t c = 0; c < ARRAY_SIZE(split_cases); c++) {
        const struct split_case *sc = &split_cases[c];
        uint8_t *buf = xmalloc(sc->len + 1);
        struct udp_batch_seg seg;
        const void *data;
        size_t n = 0, ofs = 0, len = 0;

        udp_batch_seg_init(&seg, buf, sc->len, sc->seg_size);
        while (udp_batch_seg_next(&seg, &data, &len)) {
            WGTEST_CHECK(data == buf + ofs);
            if (n + 1 < sc->n_segs) {
                WGTEST_CHECK(len == sc->seg_size);
            }
            ofs += len;
            n++;
            WGTEST_CHECK(n <= sc->n_segs);
        }
        WGTEST_CHECK(n == sc->n_segs);
        WGTEST_CHECK(len == sc->last);
        WGTEST_CHECK(ofs == sc->len);
        WGTEST_CHECK(!udp_batch_seg_next(&seg, &data, &len));
        WGTEST_CHECK(udp_batch_seg_count(sc->len, sc->seg_size)
                     == sc->n_segs);
        free(buf);
    }
}

/* GSO run boundaries. */

#define RUN_MAX_PARTS 4
#define RUN_MAX_EXPECT 8

struct run_case {
    const char *name;
    struct {
        size_t size;
        size_t count;
        int dst;                /* Index into run_dsts(). */
    } parts[RUN_MAX_PARTS];
    size_t expect[RUN_MAX_EXPECT];  /* Run lengths in order, 0 ends. */
};

static const struct run_case run_cases[] = {
    { "equal", { { 1000, 5, 0 } }, { 5 } },
    { "one", { { 1000, 1, 0 } }, { 1 } },
    { "short last", { { 1000, 2, 0 }, { 500, 1, 0 }, { 1000, 1, 0 } },
      { 3, 1 } },
    { "two short", { { 1000, 1, 0 }, { 500, 2, 0 } }, { 2, 1 } },
    { "longer second", { { 500, 1, 0 }, { 1000, 1, 0 } }, { 1, 1 } },
    { "empty", { { 0, 2, 0 } }, { 1, 1 } },
    { "empty inside", { { 1000, 1, 0 }, { 0, 1, 0 }, { 1000, 1, 0 } },
      { 1, 1, 1 } },
    { "64 segments", { { 100, 70, 0 } }, { 64, 6 } },
    { "64 KB", { { 1452, 50, 0 } }, { 45, 5 } },
    { "64 KB exact", { { 32733, 2, 0 }, { 1, 1, 0 } }, { 3 } },
    { "64 KB plus 1", { { 32734, 2, 0 } }, { 1, 1 } },
    { "big", { { 30000, 3, 0 } }, { 2, 1 } },
    { "max single", { { 65467, 1, 0 }, { 1, 1, 0 } }, { 1, 1 } },
    { "other port", { { 1000, 3, 0 }, { 1000, 2, 1 } }, { 3, 2 } },
    { "other addr", { { 1000, 2, 0 }, { 1000, 2, 2 }, { 1000, 1, 0 } },
      { 2, 2, 1 } },
    { "ipv6", { { 1000, 3, 3 }, { 1000, 1, 4 } }, { 3, 1 } },
    { "ipv6 scope", { { 1000, 2, 4 }, { 1000, 2, 5 } }, { 2, 2 } },
    { "short then other dst", { { 1000, 2, 0 }, { 500, 1, 1 } }, { 2, 1 } },
};

static void
run_dst(int i, union udp_batch_addr *addr)
{
    static const char *v6[] = { "::1", "fe80::1", "fe80::1" };

    if (i < 3) {
        loopback_addr(AF_INET, i == 1 ? 1001 : 1000, addr);
        if (i == 2) {
            addr->sin.sin_addr.s_addr = htonl(0x7f000002);
        }
    } else {
        loopback_addr(AF_INET6, 1000, addr);
        inet_pton(AF_INET6, v6[i - 3], &addr->sin6.sin6_addr);
        addr->sin6.sin6_scope_id = i - 3;
    }
}

static size_t
run_fill(const struct run_case *rc, struct udp_batch_msg *msgs)
{
    size_t n = 0;

    for (size_t p = 0; p < RUN_MAX_PARTS && rc->parts[p].count; p++) {
        for (size_t i = 0; i < rc->parts[p].count; i++) {
            memset(&msgs[n], 0, sizeof msgs[n]);
            msgs[n].size = rc->parts[p].size;
            run_dst(rc->parts[p].dst, &msgs[n].dst);
            n++;
        }
    }
    return n;
}

static void
test_runs(void)
{
    struct udp_batch_msg msgs[128];

    for (size_t c = 0; c < ARRAY_SIZE(run_cases); c++) {
        const struct run_case *rc = &run_cases[c];
        size_t n = run_fill(rc, msgs);
        size_t pos = 0, r = 0;

        while (pos < n) {
            size_t len = udp_batch_gso_run(&msgs[pos], n - pos);

            if (r >= RUN_MAX_EXPECT || len != rc->expect[r]) {
                fprintf(stderr, "case \"%s\": run %zu has %zu messages\n",
                        rc->name, r, len);
            }
            WGTEST_CHECK(r < RUN_MAX_EXPECT && len == rc->expect[r]);
            pos += len;
            r++;
        }
        WGTEST_CHECK(r == RUN_MAX_EXPECT || !rc->expect[r]);
    }
}

/* Loopback transfers. */

/* A sender and a receiver on loopback, and a collector that checks what
 * arrives. */
struct pair {
    struct udp_batch_sock *tx;
    struct udp_batch_sock *rx;
    union udp_batch_addr dst;   /* The receiver. */
    struct collector c;
};

static void
pair_open(struct pair *p, int family, bool gso, bool gro,
          const size_t *sizes, size_t n)
{
    union udp_batch_addr from;

    p->rx = open_sock(family, 0, true, gro);
    p->tx = open_sock(family, 0, gso, true);
    loopback_addr(family, udp_batch_port(p->rx), &p->dst);
    loopback_addr(family, udp_batch_port(p->tx), &from);
    collector_init(&p->c, p->rx, &from, sizes, n);
}

static void
pair_close(struct pair *p)
{
    collector_destroy(&p->c);
    udp_batch_close(p->tx);
    udp_batch_close(p->rx);
}

static void
pair_stats(const struct pair *p, struct udp_batch_info *info,
           struct udp_batch_stats *s)
{
    udp_batch_get_info(p->tx, info);
    udp_batch_get_stats(p->tx, s);
}

static void
fill_sizes(size_t *sizes, size_t n, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        sizes[i] = size;
    }
}

/* Queues datagrams 'first' to 'first + n - 1' of the collector's list to
 * 'dst' (the receiver if null) and flushes.  Returns what the flush
 * returns. */
static size_t
pair_send(struct pair *p, const union udp_batch_addr *dst, size_t first,
          size_t n, int *errorp)
{
    struct udp_batch_tx *tx = udp_batch_tx_create(n);
    uint8_t **payloads = xcalloc(n, sizeof *payloads);
    size_t sent;

    dst = dst ? dst : &p->dst;
    for (size_t i = 0; i < n; i++) {
        size_t size = p->c.sizes[first + i];

        payloads[i] = make_payload(first + i, size);
        WGTEST_CHECK(udp_batch_tx_add(tx, payloads[i], size, &dst->sa));
    }
    WGTEST_CHECK(udp_batch_tx_count(tx) == n);
    WGTEST_CHECK(!udp_batch_tx_add(tx, payloads[0], 1, &dst->sa));
    sent = udp_batch_tx_flush(tx, p->tx, errorp);
    WGTEST_CHECK(udp_batch_tx_count(tx) == 0);
    for (size_t i = 0; i < n; i++) {
        free(payloads[i]);
    }
    free(payloads);
    udp_batch_tx_destroy(tx);
    return sent;
}

/* Loopback transfers. */

struct size_pattern {
    const char *name;
    size_t n;
    size_t (*size)(size_t i);
};

static size_t size_equal(size_t i OVS_UNUSED) { return 1200; }
static size_t size_tail(size_t i) { return i % 10 == 9 ? 300 : 1400; }
static size_t size_small(size_t i OVS_UNUSED) { return 100; }
static size_t size_full(size_t i OVS_UNUSED) { return 1452; }
static size_t size_big(size_t i OVS_UNUSED) { return 30000; }

static size_t
size_mixed(size_t i)
{
    static const size_t sizes[] = {
        1000, 1000, 1000, 500, 1452, 1452, 1452, 1452, 64, 64, 0, 64,
        1, 1, 2, 2, 2, 9000, 9000, 100, 1400, 1400, 1400, 1399, 1398,
    };
    return sizes[i % ARRAY_SIZE(sizes)];
}

static const struct size_pattern patterns[] = {
    { "equal", 100, size_equal },
    { "short tails", 100, size_tail },
    { "mixed", 130, size_mixed },
    { "small", 200, size_small },
    { "full", 200, size_full },
    { "big", 10, size_big },
};

struct loop_case {
    int family;
    bool gso;
    bool gro;
};

/* Explains, once per run, a missing kernel feature. */
static void
note_missing(const struct loop_case *lc, const struct udp_batch_info *tx,
             const struct udp_batch_info *rx)
{
    static bool told_gso, told_gro;

    if (lc->gso && !tx->gso_supported && !told_gso) {
        printf("note: kernel lacks UDP_SEGMENT, checking the plain path\n");
        told_gso = true;
    }
    if (lc->gro && !rx->gro_active && !told_gro) {
        printf("note: kernel lacks UDP_GRO, checking the plain path\n");
        told_gro = true;
    }
}

static void
check_counters(const struct loop_case *lc, const struct pair *p,
               size_t n, size_t n_chunks)
{
    struct udp_batch_info tx_info, rx_info;
    struct udp_batch_stats t, r;

    pair_stats(p, &tx_info, &t);
    udp_batch_get_info(p->rx, &rx_info);
    udp_batch_get_stats(p->rx, &r);
    note_missing(lc, &tx_info, &rx_info);
    WGTEST_CHECK(tx_info.gso_active == (lc->gso && tx_info.gso_supported));
    WGTEST_CHECK(lc->gro || !rx_info.gro_active);

    /* One sendmmsg() per flush, however many GSO messages it holds. */
    WGTEST_CHECK(t.tx_datagrams == n && t.tx_calls == n_chunks);
    WGTEST_CHECK(!t.tx_errors && !t.tx_busy && !t.tx_gso_fallbacks);
    WGTEST_CHECK(tx_info.gso_active
                 ? t.tx_gso_sends && t.tx_gso_segments > t.tx_gso_sends
                 : !t.tx_gso_sends && !t.tx_gso_segments);

    WGTEST_CHECK(r.rx_datagrams == n && r.rx_calls && !r.rx_errors);
    WGTEST_CHECK(tx_info.gso_active && rx_info.gro_active
                 ? r.rx_gro_reads && r.rx_gro_segments > r.rx_gro_reads
                 : !r.rx_gro_reads && !r.rx_gro_segments);
    printf("%s gso=%d gro=%d: %zu datagrams, %"PRIu64" GSO sends "
           "(%"PRIu64" segments), %"PRIu64" GRO reads (%"PRIu64")\n",
           fam_name(lc->family), lc->gso, lc->gro, n, t.tx_gso_sends,
           t.tx_gso_segments, r.rx_gro_reads, r.rx_gro_segments);
}

static void
run_loop_case(const struct loop_case *lc, const struct size_pattern *pat)
{
    size_t *sizes = xcalloc(pat->n, sizeof *sizes);
    size_t n_chunks = 0;
    struct pair p;

    for (size_t i = 0; i < pat->n; i++) {
        sizes[i] = pat->size(i);
    }
    pair_open(&p, lc->family, lc->gso, lc->gro, sizes, pat->n);
    for (size_t start = 0; start < pat->n; start += TX_CHUNK) {
        size_t n = MIN(pat->n - start, TX_CHUNK);
        int error = -1;

        WGTEST_CHECK(pair_send(&p, NULL, start, n, &error) == n && !error);
        collector_drain(&p.c, start + n);
        n_chunks++;
    }
    printf("%-12s ", pat->name);
    check_counters(lc, &p, pat->n, n_chunks);
    pair_close(&p);
    free(sizes);
}

static void
test_loopback(void)
{
    static const int families[] = { AF_INET, AF_INET6 };

    for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
        for (int mode = 0; mode < 4; mode++) {
            struct loop_case lc = {
                .family = families[f],
                .gso = mode & 1,
                .gro = mode & 2,
            };
            for (size_t i = 0; i < ARRAY_SIZE(patterns); i++) {
                run_loop_case(&lc, &patterns[i]);
            }
        }
    }
}

/* Several GSO messages to different destinations in one sendmmsg(). */
static void
test_multi_dst(void)
{
    static const int order[] = { 0, 1, 0 };   /* 10 datagrams each. */
    size_t sizes[20];
    struct udp_batch_tx *tx = udp_batch_tx_create(64);
    uint8_t *payloads[2][20];
    struct pair p[2];
    size_t next[2] = { 0, 0 };

    fill_sizes(sizes, 20, 1000);
    for (int r = 0; r < 2; r++) {
        pair_open(&p[r], AF_INET, true, false, sizes, r ? 10 : 20);
        for (size_t i = 0; i < 20; i++) {
            payloads[r][i] = make_payload(i, 1000);
        }
    }
    /* Both pairs' receivers get datagrams from p[0]'s sender. */
    collector_destroy(&p[1].c);
    collector_init(&p[1].c, p[1].rx, &p[0].c.from, sizes, 10);
    for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
        int r = order[k];

        for (size_t i = 0; i < 10; i++, next[r]++) {
            udp_batch_tx_add(tx, payloads[r][next[r]], 1000, &p[r].dst.sa);
        }
    }
    WGTEST_CHECK(udp_batch_tx_flush(tx, p[0].tx, NULL) == 30);
    collector_drain(&p[0].c, 20);
    collector_drain(&p[1].c, 10);

    struct udp_batch_info info;
    struct udp_batch_stats s;
    pair_stats(&p[0], &info, &s);
    WGTEST_CHECK(s.tx_datagrams == 30 && s.tx_calls == 1);
    if (info.gso_supported) {
        WGTEST_CHECK(s.tx_gso_sends == 3 && s.tx_gso_segments == 30);
    } else {
        printf("note: kernel lacks UDP_SEGMENT, checking the plain path\n");
        WGTEST_CHECK(!s.tx_gso_sends);
    }
    for (int r = 0; r < 2; r++) {
        for (size_t i = 0; i < 20; i++) {
            free(payloads[r][i]);
        }
        pair_close(&p[r]);
    }
    udp_batch_tx_destroy(tx);
}

/* A kernel-made GSO failure: with UDP checksums turned off on the sender
 * (SO_NO_CHECK, UDP_NO_CHECK6_TX) a UDP_SEGMENT send fails with EINVAL
 * while plain sends still work. */
static void
run_fallback(int family)
{
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[40];
    struct pair p;
    int error = -1;

    fill_sizes(sizes, 40, 1000);
    pair_open(&p, family, true, true, sizes, 40);
    udp_batch_get_info(p.tx, &info);
    if (!info.gso_supported) {
        printf("note: kernel lacks UDP_SEGMENT, no GSO fallback to test\n");
        pair_close(&p);
        return;
    }
    if (family == AF_INET) {
        set_int_opt(p.tx, SOL_SOCKET, SO_NO_CHECK, 1);
    } else {
        set_int_opt(p.tx, SOL_UDP, UDP_NO_CHECK6_TX, 1);
        set_int_opt(p.rx, SOL_UDP, UDP_NO_CHECK6_RX, 1);
    }
    WGTEST_CHECK(pair_send(&p, NULL, 0, 20, &error) == 20 && !error);
    collector_drain(&p.c, 20);
    pair_stats(&p, &info, &s);
    WGTEST_CHECK(!info.gso_active && info.gso_failed);
    WGTEST_CHECK(s.tx_gso_fallbacks == 1 && !s.tx_gso_sends);
    WGTEST_CHECK(s.tx_datagrams == 20 && !s.tx_errors);

    /* Stays off, even when asked, and is not counted again. */
    udp_batch_set_gso(p.tx, true);
    WGTEST_CHECK(pair_send(&p, NULL, 20, 20, &error) == 20 && !error);
    collector_drain(&p.c, 40);
    pair_stats(&p, &info, &s);
    WGTEST_CHECK(!info.gso_active);
    WGTEST_CHECK(s.tx_gso_fallbacks == 1 && !s.tx_gso_sends);
    WGTEST_CHECK(s.tx_datagrams == 40 && !s.tx_errors);
    pair_close(&p);
}

static void
test_fallback(void)
{
    run_fallback(AF_INET);
    run_fallback(AF_INET6);
}

/* GSO turned off by option: never used; back on when asked. */
static void
test_gso_off(void)
{
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[30];
    struct pair p;

    fill_sizes(sizes, 30, 500);
    pair_open(&p, AF_INET, true, false, sizes, 30);
    udp_batch_set_gso(p.tx, false);
    udp_batch_get_info(p.tx, &info);
    WGTEST_CHECK(!info.gso_active && !info.gso_failed);
    WGTEST_CHECK(pair_send(&p, NULL, 0, 15, NULL) == 15);
    collector_drain(&p.c, 15);
    pair_stats(&p, &info, &s);
    WGTEST_CHECK(!s.tx_gso_sends && s.tx_datagrams == 15 && s.tx_calls == 1);

    udp_batch_set_gso(p.tx, true);
    WGTEST_CHECK(pair_send(&p, NULL, 15, 15, NULL) == 15);
    collector_drain(&p.c, 30);
    pair_stats(&p, &info, &s);
    WGTEST_CHECK(info.gso_active == info.gso_supported);
    WGTEST_CHECK(s.tx_gso_sends == (info.gso_supported ? 1 : 0));
    pair_close(&p);
}

/* Fault injection through udp_batch_sendmmsg_hook. */

static int hook_calls;
static int hook_error;          /* What the hook fails with. */
static unsigned int hook_pass;  /* Messages the first call lets through. */

/* Fails every GSO message (one with control data) with 'hook_error'. */
static int
hook_fail_gso(int fd, struct mmsghdr *msgs, unsigned int n,
               unsigned int flags)
{
    hook_calls++;
    if (msgs[0].msg_hdr.msg_controllen) {
        errno = hook_error;
        return -1;
    }
    return sendmmsg(fd, msgs, n, flags);
}

/* Lets 'hook_pass' messages through on the first call, then fails every
 * call with 'hook_error'. */
static int
hook_fill_up(int fd, struct mmsghdr *msgs, unsigned int n,
               unsigned int flags)
{
    if (hook_calls++ == 0) {
        return sendmmsg(fd, msgs, MIN(n, hook_pass), flags);
    }
    errno = hook_error;
    return -1;
}

/* Fails the first call with 'hook_error', then passes everything. */
static int
hook_fail_once(int fd, struct mmsghdr *msgs, unsigned int n,
               unsigned int flags)
{
    if (hook_calls++ == 0) {
        errno = hook_error;
        return -1;
    }
    return sendmmsg(fd, msgs, n, flags);
}

/* An interrupted sendmmsg() is simply repeated. */
static void
test_eintr(void)
{
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[20];
    struct pair p;
    int error = -1;

    fill_sizes(sizes, 20, 700);
    pair_open(&p, AF_INET, true, true, sizes, 20);
    hook_calls = 0;
    hook_error = EINTR;
    udp_batch_sendmmsg_hook = hook_fail_once;
    WGTEST_CHECK(pair_send(&p, NULL, 0, 20, &error) == 20 && !error);
    udp_batch_sendmmsg_hook = NULL;
    collector_drain(&p.c, 20);
    pair_stats(&p, &info, &s);
    WGTEST_CHECK(hook_calls == 2 && s.tx_calls == 2);
    WGTEST_CHECK(s.tx_datagrams == 20 && !s.tx_errors && !s.tx_busy);
    WGTEST_CHECK(info.gso_active == info.gso_supported);
    pair_close(&p);
}

/* EIO from a GSO send: GSO goes off without a probe, all datagrams go. */
static void
run_eio(int family)
{
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[20];
    struct pair p;
    int error = -1;

    fill_sizes(sizes, 20, 1000);
    pair_open(&p, family, true, false, sizes, 20);
    hook_calls = 0;
    hook_error = EIO;
    udp_batch_sendmmsg_hook = hook_fail_gso;
    WGTEST_CHECK(pair_send(&p, NULL, 0, 20, &error) == 20);
    udp_batch_sendmmsg_hook = NULL;
    WGTEST_CHECK(!error);
    collector_drain(&p.c, 20);

    pair_stats(&p, &info, &s);
    if (info.gso_supported) {
        WGTEST_CHECK(hook_calls == 2 && s.tx_calls == 2);
        WGTEST_CHECK(!info.gso_active && info.gso_failed);
        WGTEST_CHECK(s.tx_gso_fallbacks == 1);
    } else {
        WGTEST_CHECK(hook_calls == 1 && !s.tx_gso_fallbacks);
    }
    WGTEST_CHECK(s.tx_datagrams == 20 && !s.tx_gso_sends && !s.tx_errors);
    pair_close(&p);
}

static void
test_eio(void)
{
    run_eio(AF_INET);
    run_eio(AF_INET6);
}

/* A full socket buffer: what left is reported, the rest counted busy. */
static void
run_busy(bool gso, int error)
{
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[30];
    struct pair p;
    int flush_error = 0;

    /* Growing sizes: three GSO runs of 10 datagrams. */
    for (size_t i = 0; i < 30; i++) {
        sizes[i] = 600 + 200 * (i / 10);
    }
    pair_open(&p, AF_INET, gso, false, sizes, 30);
    udp_batch_get_info(p.tx, &info);

    /* Two messages leave: two GSO runs of 10, or two datagrams. */
    size_t expect = info.gso_active ? 20 : 2;
    hook_calls = 0;
    hook_pass = 2;
    hook_error = error;
    udp_batch_sendmmsg_hook = hook_fill_up;
    WGTEST_CHECK(pair_send(&p, NULL, 0, 30, &flush_error) == expect);
    udp_batch_sendmmsg_hook = NULL;
    WGTEST_CHECK(flush_error == error && hook_calls == 2);
    collector_drain(&p.c, expect);

    pair_stats(&p, &info, &s);
    WGTEST_CHECK(s.tx_datagrams == expect && s.tx_busy == 30 - expect);
    WGTEST_CHECK(!s.tx_errors && !s.tx_gso_fallbacks);
    WGTEST_CHECK(s.tx_gso_sends == (info.gso_active ? 2 : 0));
    pair_close(&p);
}

static void
test_busy(void)
{
    run_busy(true, EAGAIN);
    run_busy(false, EAGAIN);
    run_busy(true, ENOBUFS);
}

/* A destination the kernel refuses (port 0: EINVAL) is not blamed on GSO:
 * its datagrams are dropped and counted, GSO stays on, the rest goes. */
static void
test_bad_dst(void)
{
    union udp_batch_addr bad;
    struct udp_batch_info info;
    struct udp_batch_stats s;
    size_t sizes[5];
    struct pair p;
    int error = 0;

    fill_sizes(sizes, 5, 800);
    pair_open(&p, AF_INET6, true, false, sizes, 5);
    loopback_addr(AF_INET6, 0, &bad);
    WGTEST_CHECK(pair_send(&p, &bad, 0, 5, &error) == 0);
    WGTEST_CHECK(error == EINVAL);
    WGTEST_CHECK(pair_send(&p, NULL, 0, 5, &error) == 5 && !error);
    collector_drain(&p.c, 5);

    pair_stats(&p, &info, &s);
    WGTEST_CHECK(s.tx_errors == 5 && s.tx_datagrams == 5);
    WGTEST_CHECK(!s.tx_gso_fallbacks && !info.gso_failed);
    WGTEST_CHECK(info.gso_active == info.gso_supported);
    WGTEST_CHECK(s.tx_gso_sends == (info.gso_supported ? 1 : 0));
    pair_close(&p);
}

/* A datagram larger than its buffer is dropped; the buffers around it are
 * returned in order, each with its own 'aux'. */
static void
test_truncate(void)
{
    static const size_t sizes[] = { 100, 5000, 200 };
    struct udp_batch_rx_buf bufs[4];
    uint8_t space[4][2048];
    struct udp_batch_stats s;
    size_t n_recv = 0;
    struct pair p;

    pair_open(&p, AF_INET, false, false, sizes, 3);
    WGTEST_CHECK(pair_send(&p, NULL, 0, 3, NULL) == 3);
    for (size_t i = 0; i < 4; i++) {
        bufs[i] = (struct udp_batch_rx_buf) {
            .data = space[i], .size = sizeof space[i], .aux = space[i],
        };
    }
    struct pollfd pfd = { .fd = udp_batch_fd(p.rx), .events = POLLIN };
    WGTEST_CHECK(poll(&pfd, 1, 3000) == 1);
    WGTEST_CHECK(!udp_batch_recv(p.rx, bufs, 4, &n_recv) && n_recv == 2);
    p.c.got = 0;
    collector_check(&p.c, bufs[0].data, bufs[0].len);
    p.c.got = 2;
    collector_check(&p.c, bufs[1].data, bufs[1].len);
    for (size_t i = 0; i < 4; i++) {
        WGTEST_CHECK(bufs[i].aux == bufs[i].data);
    }
    WGTEST_CHECK(bufs[0].data == space[0] && bufs[1].data == space[2]);
    WGTEST_CHECK(bufs[2].data == space[1] && bufs[3].data == space[3]);
    udp_batch_get_stats(p.rx, &s);
    WGTEST_CHECK(s.rx_errors == 1 && s.rx_datagrams == 2 && s.rx_calls == 1);
    pair_close(&p);
}

/* Nothing to read: one call, EAGAIN, no error counted. */
static void
test_empty(void)
{
    struct udp_batch_sock *sock = open_sock(AF_INET6, 0, true, true);
    struct udp_batch_rx_buf buf = { .data = xmalloc(UDP_BATCH_RX_BUF_SIZE),
                                    .size = UDP_BATCH_RX_BUF_SIZE };
    struct udp_batch_tx *tx = udp_batch_tx_create(1);
    struct udp_batch_stats s;
    size_t n_recv = 99;
    int error = -1;

    WGTEST_CHECK(udp_batch_recv(sock, &buf, 1, &n_recv) == EAGAIN);
    WGTEST_CHECK(n_recv == 0);
    WGTEST_CHECK(udp_batch_tx_flush(tx, sock, &error) == 0 && !error);
    udp_batch_get_stats(sock, &s);
    WGTEST_CHECK(s.rx_calls == 1 && !s.rx_errors && !s.rx_datagrams);
    WGTEST_CHECK(s.tx_calls == 0);

    free(buf.data);
    udp_batch_tx_destroy(tx);
    udp_batch_close(sock);
}

/* Returns the value of /proc/sys/net/core/'name', or 0. */
static long
read_core_sysctl(const char *name)
{
    char *path = xasprintf("%s/%s", "/proc/sys/net/core", name);
    FILE *f = fopen(path, "r");
    long value = 0;

    if (f) {
        if (fscanf(f, "%ld", &value) != 1) {
            value = 0;
        }
        fclose(f);
    }
    free(path);
    return value;
}

/* Port 0 gives a real, reported port; buffers are enlarged. */
static void
test_ephemeral(void)
{
    long wmem_max = read_core_sysctl("wmem_max");
    long rmem_max = read_core_sysctl("rmem_max");
    struct udp_batch_sock *v4 = open_sock(AF_INET, 0, true, true);
    uint16_t port = udp_batch_port(v4);
    union udp_batch_addr addr;
    socklen_t len = sizeof addr;
    struct udp_batch_info info;

    WGTEST_CHECK(port != 0);
    WGTEST_CHECK(!getsockname(udp_batch_fd(v4), &addr.sa, &len));
    WGTEST_CHECK(ntohs(addr.sin.sin_port) == port);

    /* IPV6_V6ONLY: the IPv6 socket takes the same port number. */
    struct udp_batch_sock *v6 = open_sock(AF_INET6, port, true, true);
    WGTEST_CHECK(udp_batch_port(v6) == port);

    udp_batch_get_info(v4, &info);
    WGTEST_CHECK(info.port == port && info.family == AF_INET);
    WGTEST_CHECK(info.sndbuf >= 2 * MIN(UDP_BATCH_SOCKBUF_BYTES, wmem_max));
    WGTEST_CHECK(info.rcvbuf >= 2 * MIN(UDP_BATCH_SOCKBUF_BYTES, rmem_max));
    printf("port %"PRIu16", sndbuf %d, rcvbuf %d, GSO %s, GRO %s\n",
           port, info.sndbuf, info.rcvbuf,
           info.gso_active ? "on" : "off", info.gro_active ? "on" : "off");
    udp_batch_close(v6);
    udp_batch_close(v4);
}

/* A port already taken gives EADDRINUSE and a clear message. */
static void
test_in_use(void)
{
    static const int families[] = { AF_INET, AF_INET6 };

    for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
        struct udp_batch_sock *a = open_sock(families[f], 0, true, true);
        struct udp_batch_options opts = {
            .family = families[f], .port = udp_batch_port(a),
        };
        struct udp_batch_sock *b = (void *) 1;
        char *err = NULL;

        WGTEST_CHECK(udp_batch_open(&opts, &b, &err) == EADDRINUSE);
        WGTEST_CHECK(b == NULL && err && strstr(err, "already in use"));
        printf("%s\n", err);
        free(err);

        b = (void *) 1;
        WGTEST_CHECK(udp_batch_open(&opts, &b, NULL) == EADDRINUSE);
        WGTEST_CHECK(b == NULL);
        udp_batch_close(a);
    }
}

static const struct {
    const char *name;
    void (*func)(void);
} subtests[] = {
    { "split", test_split },
    { "runs", test_runs },
    { "loopback", test_loopback },
    { "multi-dst", test_multi_dst },
    { "fallback", test_fallback },
    { "gso-off", test_gso_off },
    { "eio", test_eio },
    { "busy", test_busy },
    { "eintr", test_eintr },
    { "bad-dst", test_bad_dst },
    { "truncate", test_truncate },
    { "empty", test_empty },
    { "ephemeral", test_ephemeral },
    { "in-use", test_in_use },
};

static bool
subtest_known(const char *name)
{
    for (size_t i = 0; i < ARRAY_SIZE(subtests); i++) {
        if (!strcmp(name, subtests[i].name)) {
            return true;
        }
    }
    return false;
}

/* "wgtest udp-batch [SUBTEST...]": runs the named subtests, or all. */
static void
test_udp_batch_main(int argc, char *argv[])
{
    for (int j = 1; j < argc; j++) {
        if (!subtest_known(argv[j])) {
            fprintf(stderr, "udp-batch: unknown subtest \"%s\"\n", argv[j]);
            exit(2);
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(subtests); i++) {
        bool run = argc < 2;

        for (int j = 1; j < argc; j++) {
            run = run || !strcmp(argv[j], subtests[i].name);
        }
        if (run) {
            subtests[i].func();
            printf("udp-batch %s: ok\n", subtests[i].name);
        }
    }
}
WGTEST_REGISTER("udp-batch", test_udp_batch_main);
