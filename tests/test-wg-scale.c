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

/* Many peers and prefixes: a leak test through the UAPI and the allowed-IPs
 * lookup micro-benchmark that utilities/ovs-wg-scale runs.
 *
 *   wgtest uapi-peer-cycles [PEERS [PREFIXES [CYCLES]]]
 *     adds PEERS peers with PREFIXES allowed IPs each through UAPI set
 *     requests (the code the UAPI socket runs), removes them all again
 *     (per-peer "remove=true", or "replace_peers=true"), CYCLES times, and
 *     checks after each removal that the device's peer table, allowed-IPs
 *     trie and prefix lists, receiver indices and the per-peer data that
 *     the hooks attach (as the port does) are all empty.  Under ASan,
 *     LeakSanitizer checks the rest at exit.
 *
 *   wgtest allowedips-bench [PEERS [PREFIXES [SECONDS]]]
 *     fills a table and prints allowed-IPs lookups per second on one core
 *     for addresses that hit a prefix, that miss (just outside one), and
 *     a random mix of both.
 *
 * Both use the prefix layout of utilities/ovs-wg-scale: prefix j of peer
 * p, with k prefixes per peer and i = p * k + j, is fd00:64:P:J::/64 (P = p,
 * J = 2 * j, in hex) when j % 4 == 3 and (10.64.0.0 + 4 * i)/31 otherwise.
 * The prefixes are distinct and disjoint, and each /31 and /64 has a
 * neighbor outside every prefix (the near misses). */

#include <config.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>

#include "openvswitch/dynamic-string.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-crypto.h"
#include "wg-device.h"
#include "wg-uapi.h"
#include "wgtest.h"

/* Largest layout: 4 * i stays inside 10.64.0.0/10; p and 2 * j fit in 16
 * bits. */
#define SCALE_MAX_PREFIXES (1u << 20)
#define SCALE_MAX_PEERS 65536

/* Parses argument 'i' of 'argv' as a count from 0 to 'max', or 'dflt'. */
static size_t
scale_arg(int argc, char *argv[], int i, size_t dflt, size_t max)
{
    char *end;
    unsigned long long v;

    if (argc <= i) {
        return dflt;
    }
    errno = 0;
    v = strtoull(argv[i], &end, 10);
    if (errno || *end || end == argv[i] || v > max) {
        fprintf(stderr, "argument \"%s\": not a number from 0 to %zu\n",
                argv[i], max);
        exit(2);
    }
    return v;
}

static void
scale_check_layout(size_t peers, size_t k)
{
    if (peers > SCALE_MAX_PEERS || 2 * k >= 65536
        || (k && peers > SCALE_MAX_PREFIXES / k)) {
        fprintf(stderr, "%zu peers x %zu prefixes: more than this layout "
                "holds (%u prefixes, %u peers)\n", peers, k,
                SCALE_MAX_PREFIXES, SCALE_MAX_PEERS);
        exit(2);
    }
}

/* Prefix 'j' of peer 'p' (see the comment at the top) into 'addr' and
 * '*plen'.  Returns the family. */
static int
scale_prefix(size_t p, size_t j, size_t k, uint8_t addr[16],
             unsigned int *plen)
{
    memset(addr, 0, 16);
    if (j % 4 == 3) {
        static const uint8_t fd00_64[4] = { 0xfd, 0x00, 0x00, 0x64 };

        memcpy(addr, fd00_64, sizeof fd00_64);
        addr[4] = p >> 8;
        addr[5] = p;
        addr[6] = (2 * j) >> 8;
        addr[7] = 2 * j;
        *plen = 64;
        return AF_INET6;
    } else {
        uint32_t a = (UINT32_C(10) << 24 | UINT32_C(64) << 16)
                     + 4 * (uint32_t) (p * k + j);
        ovs_be32 be = htonl(a);

        memcpy(addr, &be, 4);
        *plen = 31;
        return AF_INET;
    }
}

static double
scale_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The UAPI leak test. */

static size_t scale_live;       /* Per-peer data the hooks hold. */

/* As the port does: per-peer data attached on the first change. */
static void
scale_peer_changed(void *aux OVS_UNUSED, struct wg_peer *peer)
{
    if (!wg_device_peer_get_user_data(peer)) {
        wg_device_peer_set_user_data(peer, xzalloc(64));
        scale_live++;
    }
}

static void
scale_peer_removing(void *aux OVS_UNUSED, struct wg_peer *peer)
{
    void *data = wg_device_peer_get_user_data(peer);

    if (data) {
        free(data);
        wg_device_peer_set_user_data(peer, NULL);
        scale_live--;
    }
}

static const struct wg_uapi_hooks scale_hooks = {
    .peer_changed = scale_peer_changed,
    .peer_removing = scale_peer_removing,
};

static void
scale_drop_send(void *aux OVS_UNUSED, const struct sockaddr *dst OVS_UNUSED,
                socklen_t dst_len OVS_UNUSED, const void *msg OVS_UNUSED,
                size_t len OVS_UNUSED)
{
}

static void
scale_put_key(struct ds *s, const char *name, const uint8_t *key)
{
    char hex[WG_KEY_HEX_LEN];

    wg_crypto_key_to_hex(hex, key);
    ds_put_format(s, "%s=%s\n", name, hex);
}

static void
scale_put_prefix(struct ds *s, size_t p, size_t j, size_t k)
{
    char text[INET6_ADDRSTRLEN];
    unsigned int plen;
    uint8_t addr[16];
    int family = scale_prefix(p, j, k, addr, &plen);

    ovs_assert(inet_ntop(family, addr, text, sizeof text));
    ds_put_format(s, "allowed_ip=%s/%u\n", text, plen);
}

/* A set request that replaces every peer with 'peers' peers of 'k'
 * prefixes each. */
static void
scale_add_request(struct ds *s, const uint8_t (*keys)[WG_KEY_LEN],
                  size_t peers, size_t k)
{
    ds_put_cstr(s, "set=1\nreplace_peers=true\n");
    for (size_t p = 0; p < peers; p++) {
        scale_put_key(s, "public_key", keys[p]);
        ds_put_cstr(s, "replace_allowed_ips=true\n");
        for (size_t j = 0; j < k; j++) {
            scale_put_prefix(s, p, j, k);
        }
    }
    ds_put_char(s, '\n');
}

/* A set request that removes the peers one by one, or all at once. */
static void
scale_remove_request(struct ds *s, const uint8_t (*keys)[WG_KEY_LEN],
                     size_t peers, bool one_by_one)
{
    ds_put_cstr(s, "set=1\n");
    if (!one_by_one) {
        ds_put_cstr(s, "replace_peers=true\n");
    }
    for (size_t p = 0; one_by_one && p < peers; p++) {
        scale_put_key(s, "public_key", keys[p]);
        ds_put_cstr(s, "remove=true\n");
    }
    ds_put_char(s, '\n');
}

/* Sends request 's' and checks that it succeeds.  Returns seconds. */
static double
scale_request(struct wg_device *dev, const struct ds *s)
{
    struct ds reply = DS_EMPTY_INITIALIZER;
    double start = scale_now();
    int error = wg_uapi_handle(dev, &scale_hooks, NULL, s->string,
                               s->length, &reply);

    if (error || strcmp(ds_cstr(&reply), "errno=0\n\n")) {
        fprintf(stderr, "request failed: %s", ds_cstr(&reply));
        exit(1);
    }
    wg_uapi_ds_wipe(&reply);
    return scale_now() - start;
}

static void
scale_check_sizes(const struct wg_device *dev, size_t peers, size_t k)
{
    struct wg_device_sizes sz;

    wg_device_get_sizes_for_test(dev, &sz);
    WGTEST_CHECK(sz.n_peers == peers);
    WGTEST_CHECK(wg_device_peer_count(dev) == peers);
    WGTEST_CHECK(sz.n_prefixes == peers * k);
    WGTEST_CHECK(sz.n_trie_nodes >= sz.n_prefixes);
    WGTEST_CHECK(sz.n_trie_nodes <= 2 * sz.n_prefixes);
    WGTEST_CHECK(sz.n_prefix_lists == (k ? peers : 0));
    WGTEST_CHECK(sz.n_indices == 0);  /* No handshake was started. */
    WGTEST_CHECK(sz.n_due == peers);
    WGTEST_CHECK(scale_live == peers);
}

/* Checks that a get lists 'n' allowed IPs. */
static void
scale_check_get(struct wg_device *dev, size_t n)
{
    static const char key[] = "allowed_ip=";
    struct ds out = DS_EMPTY_INITIALIZER;
    size_t count = 0;
    bool line_start = true;

    /* By hand: under ASan, strstr() reads the rest of the string on every
     * call, which is quadratic over a reply of 10,000 peers. */
    WGTEST_CHECK(!wg_uapi_handle(dev, &scale_hooks, NULL, "get=1\n\n", 7,
                                 &out));
    for (size_t i = 0; i < out.length; i++) {
        if (line_start && out.length - i >= sizeof key - 1
            && !memcmp(&out.string[i], key, sizeof key - 1)) {
            count++;
        }
        line_start = out.string[i] == '\n';
    }
    WGTEST_CHECK(count == n);
    wg_uapi_ds_wipe(&out);
}

static void
test_uapi_peer_cycles(int argc, char *argv[])
{
    static const struct wg_device_hooks dev_hooks = {
        .send = scale_drop_send,
    };
    size_t peers = scale_arg(argc, argv, 1, 10000, SCALE_MAX_PEERS);
    size_t k = scale_arg(argc, argv, 2, 4, 32767);
    size_t cycles = scale_arg(argc, argv, 3, 3, 1000);
    uint8_t (*keys)[WG_KEY_LEN] = xmalloc((peers + 1) * sizeof *keys);
    struct ds add = DS_EMPTY_INITIALIZER;
    struct ds del[2] = { DS_EMPTY_INITIALIZER, DS_EMPTY_INITIALIZER };
    struct wg_device *dev;

    scale_check_layout(peers, k);
    wg_crypto_init();
    wgtest_random_seed(16);
    wgtest_random_fill(keys, (peers + 1) * sizeof *keys);
    dev = wg_device_create(&dev_hooks, NULL);
    WGTEST_CHECK(!wg_device_set_private_key(dev, keys[peers]));
    scale_add_request(&add, keys, peers, k);
    scale_remove_request(&del[0], keys, peers, true);
    scale_remove_request(&del[1], keys, peers, false);

    for (size_t c = 0; c < cycles; c++) {
        double t_add = scale_request(dev, &add);
        double t_del;

        scale_check_sizes(dev, peers, k);
        if (!c) {
            scale_check_get(dev, peers * k);
        }
        t_del = scale_request(dev, &del[c % 2]);
        scale_check_sizes(dev, 0, k);
        printf("cycle %zu: %zu peers x %zu prefixes added in %.3f s, "
               "removed (%s) in %.3f s, nothing left\n", c + 1, peers, k,
               t_add, c % 2 ? "replace_peers" : "remove", t_del);
    }
    wg_device_destroy(dev);
    ds_destroy(&add);
    ds_destroy(&del[0]);
    ds_destroy(&del[1]);
    free(keys);
}
WGTEST_REGISTER("uapi-peer-cycles", test_uapi_peer_cycles);

/* The lookup benchmark. */

struct scale_probe {
    uint8_t family;
    uint8_t addr[16];
    uint32_t peer;              /* Expected peer + 1, 0 for a miss. */
};

/* A random address inside prefix 'j' of peer 'p' ('hit') or just outside
 * it (the other half of its /30, the next /64). */
static void
scale_make_probe(struct scale_probe *pr, size_t peers, size_t k, bool hit)
{
    size_t p = wgtest_random() % peers;
    size_t j = wgtest_random() % k;
    unsigned int plen;

    pr->family = scale_prefix(p, j, k, pr->addr, &plen);
    if (pr->family == AF_INET) {
        pr->addr[3] |= (hit ? 0 : 2) | (wgtest_random() & 1);
    } else {
        pr->addr[7] |= !hit;
        wgtest_random_fill(&pr->addr[8], 8);
    }
    pr->peer = hit ? p + 1 : 0;
}

/* Looks up every probe, checking the answers, for about 'seconds'.
 * Returns lookups per second. */
static double
scale_run_lookups(const struct wg_allowedips *t,
                  const struct scale_probe *probes, size_t n, double seconds)
{
    double start = scale_now(), elapsed;
    size_t done = 0, wrong = 0;

    do {
        for (size_t i = 0; i < n; i++) {
            uintptr_t got = (uintptr_t) wg_allowedips_lookup(
                t, probes[i].family, probes[i].addr);

            wrong += got != probes[i].peer;
        }
        done += n;
        elapsed = scale_now() - start;
    } while (elapsed < seconds);
    WGTEST_CHECK(!wrong);
    return done / elapsed;
}

/* Fills 't' with the layout; returns seconds. */
static double
scale_fill(struct wg_allowedips *t, size_t peers, size_t k)
{
    double start = scale_now();

    for (size_t p = 0; p < peers; p++) {
        for (size_t j = 0; j < k; j++) {
            unsigned int plen;
            uint8_t addr[16];
            int family = scale_prefix(p, j, k, addr, &plen);

            WGTEST_CHECK(!wg_allowedips_insert(t, family, addr, plen,
                                               (void *) (uintptr_t) (p + 1)));
        }
    }
    return scale_now() - start;
}

static void
test_allowedips_bench(int argc, char *argv[])
{
    static const char *const kinds[] = { "hit", "miss", "mixed" };
    size_t peers = scale_arg(argc, argv, 1, 10000, SCALE_MAX_PEERS);
    size_t k = scale_arg(argc, argv, 2, 100, 32767);
    double seconds = scale_arg(argc, argv, 3, 1, 60);
    enum { N_PROBES = 1 << 20 };
    struct scale_probe *probes = xmalloc(N_PROBES * sizeof *probes);
    struct wg_allowedips *t = wg_allowedips_create();
    double fill;

    scale_check_layout(peers, k);
    WGTEST_CHECK(peers && k);
    wgtest_random_seed(64);
    fill = scale_fill(t, peers, k);
    printf("allowed-IPs table: %zu peers x %zu prefixes = %zu prefixes, "
           "%zu trie nodes, filled in %.2f s\n", peers, k,
           wg_allowedips_count(t), wg_allowedips_n_nodes(t), fill);
    printf("lookups on one core, %zu random addresses, %.0f s each:\n",
           (size_t) N_PROBES, seconds);
    for (size_t kind = 0; kind < ARRAY_SIZE(kinds); kind++) {
        for (size_t i = 0; i < N_PROBES; i++) {
            bool hit = kind == 0 || (kind == 2 && wgtest_random() & 1);

            scale_make_probe(&probes[i], peers, k, hit);
        }
        printf("  %-6s %8.2f M lookups/s\n", kinds[kind],
               scale_run_lookups(t, probes, N_PROBES, seconds) / 1e6);
    }
    wg_allowedips_destroy(t);
    free(probes);
}
WGTEST_REGISTER("allowedips-bench", test_allowedips_bench);
