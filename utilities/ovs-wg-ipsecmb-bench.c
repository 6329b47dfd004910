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

/* ovs-wg-ipsecmb-bench [SECONDS [ROUNDS [BYTES]]]: what one
 * ChaCha20-Poly1305 seal of a BYTES-byte (default 1420) message costs
 * through each way the installed intel-ipsec-mb offers, in ns per message:
 *
 *   job         one job at a time: get, submit, flush (what
 *               lib/wg-aead-ipsecmb.c does);
 *   jobs N      N jobs submitted back to back, then flushed (the job API
 *               as a queue);
 *   burst N     the asynchronous burst API (IMB_GET_NEXT_BURST,
 *               IMB_SUBMIT_BURST, IMB_FLUSH_BURST; 1.3 on, with
 *               imb_set_session() from 1.4);
 *   aead-burst N  IMB_SUBMIT_AEAD_BURST (2.0 on), if it takes the cipher;
 *   quic N      imb_quic_chacha20_poly1305() (1.5 on): N messages under
 *               one key, as a batch of one peer's would be;
 *   sgl         one scatter-gather job (IMB_SGL_ALL) of two segments, the
 *               message less its last byte and that byte (a packet and
 *               its padding);
 *   direct      the direct API: init, one update, finalize.
 *
 * Before timing, each way seals the same messages under the same nonces as
 * "job" and must give the same ciphertext and tags (else the program
 * fails).  Each figure is the median of ROUNDS rounds of SECONDS, the ways
 * taking turns within a round.  Standalone (the library and libc only), so
 * that it builds and runs in a Debian root of another release:
 *
 *   utilities/ovs-wg-debian-root trixie sh -c 'gcc -O2 -o /tmp/b \
 *       utilities/ovs-wg-ipsecmb-bench.c -lIPSec_MB && /tmp/b'
 *
 * Documentation/topics/performance.rst has the figures. */

#include <intel-ipsec-mb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_MSGS 64               /* Messages per pass, the largest batch. */
#define ROOM 2048               /* Bytes per message buffer. */
#define MAX_ROUNDS 31

#if IMB_VERSION_NUM >= IMB_VERSION(1, 4, 0)
#define HAVE_SET_SESSION 1
#endif
#if IMB_VERSION_NUM >= IMB_VERSION(1, 5, 0)
#define HAVE_QUIC 1
#endif
#ifdef IMB_SUBMIT_AEAD_BURST
#define HAVE_AEAD_BURST 1
#endif

struct bench {
    IMB_MGR *mgr;
    size_t len;                 /* Bytes per message. */
    uint8_t key[64];            /* The 32-byte key and room to read. */
    uint8_t *src, *dst;         /* N_MSGS buffers of ROOM bytes each. */
    uint8_t iv[N_MSGS][16];
    uint8_t tag[N_MSGS][16];
    uint64_t counter;           /* Next nonce. */
};

/* Seals 'n' (at most N_MSGS) messages of 'b', returning false on any
 * failure the library reports. */
typedef bool way_func(struct bench *b, size_t n);

static void
fail(const char *what, const struct bench *b)
{
    fprintf(stderr, "ovs-wg-ipsecmb-bench: %s: %s\n", what,
            imb_get_strerror(imb_get_errno(b->mgr)));
    exit(EXIT_FAILURE);
}

/* N_MSGS zeroed buffers of ROOM bytes, cache-line aligned; exits if
 * there is no memory. */
static uint8_t *
alloc_buffers(void)
{
    void *p = NULL;

    if (posix_memalign(&p, 64, N_MSGS * ROOM)) {
        fprintf(stderr, "ovs-wg-ipsecmb-bench: out of memory\n");
        exit(EXIT_FAILURE);
    }
    return memset(p, 0, N_MSGS * ROOM);
}

static double
now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint8_t *
src_of(const struct bench *b, size_t i)
{
    return b->src + i * ROOM;
}

static uint8_t *
dst_of(const struct bench *b, size_t i)
{
    return b->dst + i * ROOM;
}

/* Gives message 'i' the next nonce: WireGuard's, 4 zero bytes and a
 * little-endian counter. */
static void
next_nonce(struct bench *b, size_t i)
{
    uint64_t c = b->counter++;

    memset(b->iv[i], 0, sizeof b->iv[i]);
    for (int k = 0; k < 8; k++) {
        b->iv[i][4 + k] = c >> (8 * k);
    }
}

/* Fills 'job' to seal message 'i' of 'b' (one buffer, no AD). */
static void
fill_job(struct bench *b, IMB_JOB *job, size_t i)
{
    job->cipher_direction = IMB_DIR_ENCRYPT;
    job->chain_order = IMB_ORDER_HASH_CIPHER;
    job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305;
    job->hash_alg = IMB_AUTH_CHACHA20_POLY1305;
    job->enc_keys = job->dec_keys = b->key;
    job->key_len_in_bytes = 32;
    job->iv = b->iv[i];
    job->iv_len_in_bytes = 12;
    job->u.CHACHA20_POLY1305.aad = NULL;
    job->u.CHACHA20_POLY1305.aad_len_in_bytes = 0;
    job->src = src_of(b, i);
    job->dst = dst_of(b, i);
    job->cipher_start_src_offset_in_bytes = 0;
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = b->len;
    job->msg_len_to_hash_in_bytes = b->len;
    job->auth_tag_output = b->tag[i];
    job->auth_tag_output_len_in_bytes = 16;
}

/* Counts 'job', if any, in 'done'; a job the library refused fails. */
static void
count_done(const struct bench *b, const IMB_JOB *job, size_t *done)
{
    if (job) {
        if (job->status != IMB_STATUS_COMPLETED) {
            fail("job refused", b);
        }
        (*done)++;
    }
}

/* Submits 'job' and flushes until it is done.  Returns true if it
 * completed. */
static bool
submit_one(const struct bench *b, IMB_JOB *job)
{
    IMB_JOB *done = IMB_SUBMIT_JOB(b->mgr);

    while (!done && IMB_QUEUE_SIZE(b->mgr)) {
        done = IMB_FLUSH_JOB(b->mgr);
    }
    return done == job && job->status == IMB_STATUS_COMPLETED;
}

static bool
way_job(struct bench *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        IMB_JOB *job = IMB_GET_NEXT_JOB(b->mgr);

        next_nonce(b, i);
        fill_job(b, job, i);
        if (!submit_one(b, job)) {
            return false;
        }
    }
    return true;
}

static bool
way_jobs(struct bench *b, size_t n)
{
    size_t done = 0;
    IMB_JOB *job;

    for (size_t i = 0; i < n; i++) {
        job = IMB_GET_NEXT_JOB(b->mgr);
        next_nonce(b, i);
        fill_job(b, job, i);
        count_done(b, IMB_SUBMIT_JOB(b->mgr), &done);
    }
    while ((job = IMB_FLUSH_JOB(b->mgr))) {
        count_done(b, job, &done);
    }
    return done == n;
}

/* The burst API's jobs 'jobs' for messages 0..n-1. */
static void
fill_burst(struct bench *b, IMB_JOB **jobs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        next_nonce(b, i);
        fill_job(b, jobs[i], i);
#ifdef HAVE_SET_SESSION
        imb_set_session(b->mgr, jobs[i]);
#endif
    }
}

static bool
way_burst(struct bench *b, size_t n)
{
    IMB_JOB *jobs[N_MSGS];
    size_t done = 0, k;

    if (IMB_GET_NEXT_BURST(b->mgr, n, jobs) != n) {
        return false;
    }
    fill_burst(b, jobs, n);
    k = IMB_SUBMIT_BURST(b->mgr, n, jobs);
    for (size_t i = 0; i < k; i++) {
        count_done(b, jobs[i], &done);
    }
    k = done < n ? IMB_FLUSH_BURST(b->mgr, n - done, jobs) : 0;
    for (size_t i = 0; i < k; i++) {
        count_done(b, jobs[i], &done);
    }
    return done == n;
}

#ifdef HAVE_AEAD_BURST
static bool
way_aead_burst(struct bench *b, size_t n)
{
    static IMB_JOB jobs[N_MSGS];

    for (size_t i = 0; i < n; i++) {
        next_nonce(b, i);
        fill_job(b, &jobs[i], i);
    }
    return IMB_SUBMIT_AEAD_BURST(b->mgr, jobs, n,
                                 IMB_CIPHER_CHACHA20_POLY1305,
                                 IMB_DIR_ENCRYPT, IMB_KEY_256_BYTES) == n;
}
#endif

#ifdef HAVE_QUIC
static bool
way_quic(struct bench *b, size_t n)
{
    const void *srcs[N_MSGS], *ivs[N_MSGS], *aads[N_MSGS];
    void *dsts[N_MSGS], *tags[N_MSGS];
    uint64_t lens[N_MSGS];

    for (size_t i = 0; i < n; i++) {
        next_nonce(b, i);
        srcs[i] = src_of(b, i);
        dsts[i] = dst_of(b, i);
        ivs[i] = b->iv[i];
        aads[i] = NULL;
        tags[i] = b->tag[i];
        lens[i] = b->len;
    }
    imb_quic_chacha20_poly1305(b->mgr, b->key, IMB_DIR_ENCRYPT, dsts, srcs,
                               lens, ivs, aads, 0, tags, n);
    return true;                /* See check_way(). */
}
#endif

/* Makes 'job' (filled by fill_job()) the scatter-gather job of the two
 * segments 'segs' of message 'i', with context 'ctx'. */
static void
fill_sgl(const struct bench *b, IMB_JOB *job, size_t i,
         struct IMB_SGL_IOV segs[2],
         struct chacha20_poly1305_context_data *ctx)
{
    size_t last = b->len - 1;

    segs[0] = (struct IMB_SGL_IOV) { src_of(b, i), dst_of(b, i), last };
    segs[1] = (struct IMB_SGL_IOV) { src_of(b, i) + last,
                                     dst_of(b, i) + last, 1 };
    job->cipher_mode = IMB_CIPHER_CHACHA20_POLY1305_SGL;
    job->hash_alg = IMB_AUTH_CHACHA20_POLY1305_SGL;
    job->sgl_state = IMB_SGL_ALL;
    job->sgl_io_segs = segs;
    job->num_sgl_io_segs = 2;
    job->u.CHACHA20_POLY1305.ctx = ctx;
}

static bool
way_sgl(struct bench *b, size_t n)
{
    struct chacha20_poly1305_context_data ctx;
    struct IMB_SGL_IOV segs[2];
    bool ok = true;

    for (size_t i = 0; ok && i < n; i++) {
        IMB_JOB *job = IMB_GET_NEXT_JOB(b->mgr);

        next_nonce(b, i);
        fill_job(b, job, i);
        fill_sgl(b, job, i, segs, &ctx);
        ok = submit_one(b, job);
    }
    imb_clear_mem(&ctx, sizeof ctx);
    return ok;
}

static bool
way_direct(struct bench *b, size_t n)
{
    struct chacha20_poly1305_context_data ctx;

    for (size_t i = 0; i < n; i++) {
        next_nonce(b, i);
        IMB_CHACHA20_POLY1305_INIT(b->mgr, b->key, &ctx, b->iv[i], NULL, 0);
        IMB_CHACHA20_POLY1305_ENC_UPDATE(b->mgr, b->key, &ctx, dst_of(b, i),
                                         src_of(b, i), b->len);
        IMB_CHACHA20_POLY1305_ENC_FINALIZE(b->mgr, &ctx, b->tag[i], 16);
    }
    imb_clear_mem(&ctx, sizeof ctx);
    return true;                /* See check_way(). */
}

struct way {
    const char *name;
    way_func *func;
    size_t n;                   /* Messages per call. */
};

static const struct way ways[] = {
    { "job", way_job, 1 },
    { "jobs", way_jobs, 16 },
    { "jobs", way_jobs, 64 },
    { "burst", way_burst, 16 },
    { "burst", way_burst, 64 },
#ifdef HAVE_QUIC
    { "quic", way_quic, 16 },
    { "quic", way_quic, 64 },
#endif
    { "sgl", way_sgl, 1 },
    { "direct", way_direct, 1 },
#ifdef HAVE_AEAD_BURST
    { "aead-burst", way_aead_burst, 16 },
#endif
};

/* Seals N_MSGS messages 'w' from counter 0 and checks that they match
 * 'ct' and 'tags', or records them there if 'record'.  This comparison is
 * what shows the direct and QUIC calls worked: they return nothing, and
 * leave the manager's error number as it was when they succeed. */
static bool
check_way(struct bench *b, const struct way *w, uint8_t *ct,
          uint8_t tags[N_MSGS][16], bool record)
{
    b->counter = 0;
    for (size_t i = 0; i < N_MSGS; i += w->n) {
        if (!w->func(b, w->n)) {
            return false;
        }
        for (size_t k = 0; k < w->n; k++) {
            uint8_t *got = dst_of(b, k), *want = ct + (i + k) * ROOM;

            if (record) {
                memcpy(want, got, b->len);
                memcpy(tags[i + k], b->tag[k], 16);
            } else if (memcmp(want, got, b->len)
                       || memcmp(tags[i + k], b->tag[k], 16)) {
                fprintf(stderr, "ovs-wg-ipsecmb-bench: %s: not the bytes "
                        "that \"job\" gives\n", w->name);
                exit(EXIT_FAILURE);
            }
        }
    }
    return true;
}

/* Runs 'w' for about 'seconds'; returns ns per message. */
static double
time_way(struct bench *b, const struct way *w, double seconds)
{
    double start = now(), elapsed;
    uint64_t n = 0;

    do {
        for (int k = 0; k < 16; k++, n += w->n) {
            if (!w->func(b, w->n)) {
                fail(w->name, b);
            }
        }
        elapsed = now() - start;
    } while (elapsed < seconds);
    return elapsed * 1e9 / n;
}

static int
cmp_double(const void *a_, const void *b_)
{
    const double *a = a_, *b = b_;

    return *a < *b ? -1 : *a > *b;
}

static const char *
arch_name(const IMB_MGR *mgr)
{
    switch (mgr->used_arch) {
    case IMB_ARCH_AVX512:
        return "AVX512";
    case IMB_ARCH_AVX2:
        return "AVX2";
    case IMB_ARCH_SSE:
        return "SSE";
    default:
        return "other";
    }
}

static void
print_cpu(void)
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

/* Checks every way against "job"; a way the library refuses is dropped
 * from 'usable' (said so). */
static void
check_ways(struct bench *b, bool usable[])
{
    static uint8_t tags[N_MSGS][16];
    uint8_t *ct = alloc_buffers();

    if (!check_way(b, &ways[0], ct, tags, true)) {
        fail("job", b);
    }
    for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
        usable[w] = check_way(b, &ways[w], ct, tags, false);
        if (!usable[w]) {
            printf("%-10s %3zu  refused: %s\n", ways[w].name, ways[w].n,
                   imb_get_strerror(imb_get_errno(b->mgr)));
        }
    }
    free(ct);
}

/* Prints the median ns per message of each usable way. */
static void
run_ways(struct bench *b, const bool usable[], double seconds, int rounds)
{
    enum { N_WAYS = sizeof ways / sizeof ways[0] };
    static double ns[N_WAYS][MAX_ROUNDS];

    for (int r = 0; r < rounds; r++) {
        for (size_t w = 0; w < N_WAYS; w++) {
            ns[w][r] = usable[w] ? time_way(b, &ways[w], seconds) : 0;
        }
    }
    for (size_t w = 0; w < N_WAYS; w++) {
        if (usable[w]) {
            qsort(ns[w], rounds, sizeof ns[w][0], cmp_double);
            printf("%-10s %3zu  %6.0f\n", ways[w].name, ways[w].n,
                   ns[w][rounds / 2]);
        }
    }
}

static void
setup(struct bench *b, size_t len)
{
    IMB_ARCH arch = IMB_ARCH_NONE;

    b->len = len;
    b->mgr = alloc_mb_mgr(0);
    b->src = alloc_buffers();
    b->dst = alloc_buffers();
    if (!b->mgr) {
        fprintf(stderr, "ovs-wg-ipsecmb-bench: out of memory\n");
        exit(EXIT_FAILURE);
    }
    init_mb_mgr_auto(b->mgr, &arch);
    if (arch == IMB_ARCH_NONE || imb_get_errno(b->mgr)) {
        fail("init_mb_mgr_auto", b);
    }
    for (size_t i = 0; i < N_MSGS * ROOM; i++) {
        b->src[i] = (i % ROOM) * 131 + 7;     /* The same in each buffer. */
    }
    memset(b->key, 0x5c, sizeof b->key);
}

int
main(int argc, char *argv[])
{
    double seconds = argc > 1 ? atof(argv[1]) : 0.2;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    size_t len = argc > 3 ? strtoul(argv[3], NULL, 10) : 1420;
    bool usable[sizeof ways / sizeof ways[0]];
    struct bench b;

    seconds = seconds > 0 ? seconds : 0.2;
    rounds = rounds > 0 && rounds <= MAX_ROUNDS ? rounds : 7;
    len = len > 1 && len <= ROOM ? len : 1420;
    memset(&b, 0, sizeof b);
    setup(&b, len);
    print_cpu();
    printf("intel-ipsec-mb %s, %s code, %zu-byte messages, ns per message, "
           "median of %d rounds of %.2f s\n", imb_get_version_str(),
           arch_name(b.mgr), len, rounds, seconds);
    check_ways(&b, usable);
    run_ways(&b, usable, seconds, rounds);
    free_mb_mgr(b.mgr);
    free(b.src);
    free(b.dst);
    return 0;
}
