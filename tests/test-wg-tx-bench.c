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

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pkt-csum.h"
#include "test-pkt-util.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"
#include "wg-test-hooks.h"
#include "wgtest.h"

/* Micro-benchmark (not a test),
 * "wgtest tx-seal-bench [SECONDS [ROUNDS [openssl|ipsec-mb]]]":
 * what the port's send path does with an inner packet that it neither cuts
 * nor fragments (netdev_wg_send_one()), the way it was against the way it
 * is, per data-path backend:
 *
 *   copy+seal       memcpy() into the message slot, then seal in place;
 *   fused           wg_aead_seal_padded() from the packet: straight into
 *                   the slot if the packet needs no padding (pad 0), else
 *                   the same as copy+seal;
 *   csum-copy+seal  pkt_csum_l4_copy() into the slot (the checksum completed
 *                   during the copy), then seal in place;
 *   csum-fill+fused pkt_csum_l4_fill() in the packet, then fused.
 *
 * Packets (IPv4 UDP) rotate over TX_BENCH_SRCS buffers and slots over
 * TX_BENCH_SLOTS, as a batch of the port does, so copies and seals see
 * caches as warm as there.  Each figure is the median of ROUNDS rounds, the
 * ways taking turns within a round so that a busy neighbour on a shared
 * machine slows them alike. */

#define TX_BENCH_SRCS 32
#define TX_BENCH_SLOTS 128
#define TX_BENCH_ROOM 2048
#define TX_BENCH_MAX_ROUNDS 31

enum tx_way {
    TX_COPY_SEAL,
    TX_FUSED,
    TX_CSUM_COPY_SEAL,
    TX_CSUM_FILL_FUSED,
    TX_N_WAYS
};

struct tx_bench {
    struct wg_aead_key *k;
    uint8_t *srcs;              /* TX_BENCH_SRCS packets. */
    uint8_t *slots;             /* TX_BENCH_SLOTS message slots. */
    size_t len, pad_len;
    uint64_t n;                 /* Messages so far: counter, rotation. */
};

static double
tx_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seals packet 'src' into the slot whose text starts at 'dst', 'way'. */
static bool
tx_way_seal(struct tx_bench *b, enum tx_way way, uint8_t *src, uint8_t *dst)
{
    if (way == TX_COPY_SEAL || way == TX_CSUM_COPY_SEAL) {
        if (way == TX_COPY_SEAL) {
            memcpy(dst, src, b->len);
        } else if (pkt_csum_l4_copy(dst, src, b->len)) {
            return false;
        }
        return wg_aead_seal_padded(b->k, b->n, dst, dst, b->len, b->pad_len);
    }
    return ((way == TX_FUSED || !pkt_csum_l4_fill(src, b->len))
            && wg_aead_seal_padded(b->k, b->n, dst, src, b->len,
                                   b->pad_len));
}

/* One packet of 'b', 'way'. */
static void
tx_one(struct tx_bench *b, enum tx_way way)
{
    uint8_t *src = b->srcs + (b->n % TX_BENCH_SRCS) * TX_BENCH_ROOM;
    uint8_t *slot = b->slots + (b->n % TX_BENCH_SLOTS) * TX_BENCH_ROOM;

    WGTEST_CHECK(tx_way_seal(b, way, src, slot + WG_DEVICE_HEADROOM));
    b->n++;
}

/* Runs 'way' for about 'seconds'; returns ns per packet. */
static double
tx_run(struct tx_bench *b, enum tx_way way, double seconds)
{
    double start = tx_now(), elapsed;
    uint64_t n = 0;

    do {
        for (int i = 0; i < 64; i++, n++) {
            tx_one(b, way);
        }
        elapsed = tx_now() - start;
    } while (elapsed < seconds);
    return elapsed * 1e9 / n;
}

static int
tx_cmp_double(const void *a_, const void *b_)
{
    const double *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

/* Fills the packets of 'b' with IPv4 UDP packets of b->len bytes. */
static void
tx_fill_packets(struct tx_bench *b)
{
    struct test_pkt_spec spec = {
        .proto = IPPROTO_UDP,
        .payload_len = b->len - 28,
    };

    for (size_t i = 0; i < TX_BENCH_SRCS; i++) {
        spec.payload_seed = i;
        WGTEST_CHECK(test_pkt_build(&spec, b->srcs + i * TX_BENCH_ROOM,
                                    TX_BENCH_ROOM) == b->len);
    }
}

/* One row: the median ns per packet of each way for 'len' bytes padded by
 * 'pad_len', over 'rounds' rounds of 'seconds'. */
static void
tx_row(struct tx_bench *b, size_t len, size_t pad_len, double seconds,
       int rounds)
{
    double ns[TX_N_WAYS][TX_BENCH_MAX_ROUNDS], med[TX_N_WAYS];

    b->len = len;
    b->pad_len = pad_len;
    tx_fill_packets(b);
    for (int r = 0; r < rounds; r++) {
        for (int w = 0; w < TX_N_WAYS; w++) {
            ns[w][r] = tx_run(b, w, seconds);
        }
    }
    for (int w = 0; w < TX_N_WAYS; w++) {
        qsort(ns[w], rounds, sizeof ns[w][0], tx_cmp_double);
        med[w] = ns[w][rounds / 2];
    }
    printf("%5zu %3zu %9.0f %7.0f %6.3f %11.0f %12.0f %6.3f\n", len,
           pad_len, med[TX_COPY_SEAL], med[TX_FUSED],
           med[TX_FUSED] / med[TX_COPY_SEAL], med[TX_CSUM_COPY_SEAL],
           med[TX_CSUM_FILL_FUSED],
           med[TX_CSUM_FILL_FUSED] / med[TX_CSUM_COPY_SEAL]);
}

/* One table, for the backend of new keys. */
static void
tx_table(struct tx_bench *b, double seconds, int rounds)
{
    static const struct {
        size_t len, pad_len;
    } rows[] = {
        { 1420, 0 },            /* A full packet at the MTU of 1420. */
        { 1419, 1 },            /* Padding capped by the MTU. */
        { 1400, 8 },
        { 576, 0 },
        { 52, 12 },             /* A TCP ACK's size. */
    };
    uint8_t key[WG_KEY_LEN];

    wg_crypto_random(key, sizeof key);
    b->k = wg_aead_key_create(key);
    WGTEST_CHECK(b->k != NULL);
    printf("%s\n", wg_crypto_describe());
    printf("bytes pad copy+seal   fused  ratio  csum-copy+s  "
           "csum-fill+f  ratio\n");
    for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
        tx_row(b, rows[i].len, rows[i].pad_len, seconds, rounds);
    }
    wg_aead_key_destroy(b->k);
}

/* The CPU's model name, as lscpu shows it. */
static void
tx_print_cpu(void)
{
    static const char *const cpuinfo = "/proc/cpuinfo";
    FILE *f = fopen(cpuinfo, "r");
    char line[256];

    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            printf("CPU:%s", strchr(line, ':') + 1);
            break;
        }
    }
    if (f) {
        fclose(f);
    }
}

static void
test_tx_seal_bench_main(int argc, char *argv[])
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.2;
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    struct tx_bench b = { .srcs = NULL };

    WGTEST_CHECK(!wg_crypto_init());
    seconds = seconds > 0 ? seconds : 0.2;
    rounds = rounds > 0 && rounds <= TX_BENCH_MAX_ROUNDS ? rounds : 5;
    b.srcs = xzalloc(TX_BENCH_SRCS * TX_BENCH_ROOM);
    b.slots = xzalloc(TX_BENCH_SLOTS * TX_BENCH_ROOM);
    tx_print_cpu();
    printf("ns per packet, one core, median of %d rounds of %.2f s\n",
           rounds, seconds);
    for (int k = WG_CRYPTO_AEAD_OPENSSL; k <= WG_CRYPTO_AEAD_IPSECMB; k++) {
        if ((argc <= 3 || !strcmp(argv[3], wg_crypto_aead_backend_name(k)))
            && wg_crypto_set_aead_backend(k)) {
            tx_table(&b, seconds, rounds);
        }
    }
    free(b.srcs);
    free(b.slots);
}
WGTEST_REGISTER("tx-seal-bench", test_tx_seal_bench_main);
