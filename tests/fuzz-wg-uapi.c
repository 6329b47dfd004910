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

/* libFuzzer target for the UAPI set request parser.
 *
 * Built by "make" when configure finds clang with libFuzzer (see
 * tests/automake.mk) and run for a bounded number of inputs by "make
 * check"; run it longer with e.g. "tests/fuzz-wg-uapi -max_total_time=60".
 *
 * A crash file is replayed by giving it to the fuzzer binary as an
 * argument: "fuzz-wg-uapi FILE".
 *
 * Each input is the body of a "set=1" request, applied to one device that
 * lives across inputs (emptied when it grows past FUZZ_MAX_PEERS peers:
 * every peer costs an X25519 operation per input, in the round trip).
 * Invariants: nothing crashes or leaks; the reply is exactly
 * "errno=N\n\n" with N the negated return value; the following get reply
 * is well formed (known keys, valid hex keys, one public_key per peer,
 * "errno=0" and a blank line at the end); and that configuration, fed
 * back as a set request to a fresh device, prints the same again (the
 * printer's output is what the parser accepts). */

#include <config.h>
#include "wg-uapi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"

#define FUZZ_MAX_PEERS 16

static uint16_t fuzz_ports[2];

static uint16_t
fuzz_get_port(void *aux)
{
    return fuzz_ports[aux != NULL];
}

static int
fuzz_set_port(void *aux, uint16_t port)
{
    if (port == 1) {
        return EADDRINUSE;
    }
    fuzz_ports[aux != NULL] = port;
    return 0;
}

static const struct wg_uapi_hooks fuzz_hooks = {
    .get_listen_port = fuzz_get_port,
    .set_listen_port = fuzz_set_port,
};

static struct wg_device *
fuzz_device(void)
{
    static const struct wg_device_hooks hooks = {
        .send = fuzz_drop_send,
        .now_ms = fuzz_fixed_clock,
    };

    return wg_device_create(&hooks, NULL);
}

static bool
fuzz_is_hex_key(const char *value)
{
    uint8_t key[WG_KEY_LEN];

    return wg_crypto_key_from_hex(key, value);
}

/* Checks one "key=value" line of a get reply ('line' is modified). */
static void
fuzz_check_line(char *line, size_t *n_peers)
{
    static const char *const keys[] = {
        "listen_port", "protocol_version", "endpoint",
        "last_handshake_time_sec", "last_handshake_time_nsec", "tx_bytes",
        "rx_bytes", "persistent_keepalive_interval", "allowed_ip",
    };
    char *eq = strchr(line, '=');
    size_t i;

    FUZZ_CHECK(eq && eq[1]);
    *eq = '\0';
    if (!strcmp(line, "public_key")) {
        (*n_peers)++;
    }
    if (!strcmp(line, "private_key") || !strcmp(line, "public_key")
        || !strcmp(line, "preshared_key")) {
        FUZZ_CHECK(fuzz_is_hex_key(eq + 1));
        return;
    }
    for (i = 0; i < ARRAY_SIZE(keys); i++) {
        if (!strcmp(line, keys[i])) {
            return;
        }
    }
    FUZZ_CHECK(false);
}

/* Checks that 'reply' is a well-formed get reply for 'dev'. */
static void
fuzz_check_get(const struct wg_device *dev, const struct ds *reply)
{
    char *copy = xmemdup0(reply->string, reply->length);
    size_t len = reply->length;
    size_t n_peers = 0;
    char *save = NULL;

    FUZZ_CHECK(len >= 9 && !strcmp(copy + len - 9, "errno=0\n\n"));
    copy[len - 9] = '\0';
    for (char *line = strtok_r(copy, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        fuzz_check_line(line, &n_peers);
    }
    FUZZ_CHECK(n_peers == wg_device_peer_count(dev));
    free(copy);
}

static bool
fuzz_is_stat_line(const char *line, size_t len)
{
    static const char *const prefixes[] = {
        "last_handshake_time_", "tx_bytes=", "rx_bytes=", "errno=",
    };

    for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
        size_t n = strlen(prefixes[i]);

        if (len >= n && !memcmp(line, prefixes[i], n)) {
            return true;
        }
    }
    return !len;
}

/* Returns the lines of 'reply' that describe configuration, not state. */
static char *
fuzz_config_lines(const struct ds *reply)
{
    struct ds out = DS_EMPTY_INITIALIZER;
    const char *p = reply->string;
    const char *end = p + reply->length;

    while (p < end) {
        const char *nl = memchr(p, '\n', end - p);
        size_t n = nl ? nl - p : end - p;

        if (!fuzz_is_stat_line(p, n)) {
            ds_put_buffer(&out, p, n);
            ds_put_char(&out, '\n');
        }
        p += n + 1;
    }
    return ds_steal_cstr(&out);
}

/* Feeds the configuration printed in 'reply' to a fresh device and checks
 * that it prints the same configuration. */
static void
fuzz_check_roundtrip(const struct ds *reply)
{
    char *config = fuzz_config_lines(reply);
    struct wg_device *dev2 = fuzz_device();
    struct ds req = DS_EMPTY_INITIALIZER;
    struct ds reply2 = DS_EMPTY_INITIALIZER;
    char *config2;

    fuzz_ports[1] = 0;
    ds_put_format(&req, "set=1\n%s\n", config);
    FUZZ_CHECK(!wg_uapi_handle(dev2, &fuzz_hooks, dev2, req.string,
                               req.length, &reply2));
    ds_clear(&reply2);
    FUZZ_CHECK(!wg_uapi_handle(dev2, &fuzz_hooks, dev2, "get=1\n\n", 7,
                               &reply2));
    config2 = fuzz_config_lines(&reply2);
    FUZZ_CHECK(!strcmp(config, config2));
    free(config);
    free(config2);
    ds_destroy(&req);
    ds_destroy(&reply2);
    wg_device_destroy(dev2);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct wg_device *dev;
    struct ds req = DS_EMPTY_INITIALIZER;
    struct ds reply = DS_EMPTY_INITIALIZER;
    char expect[32];
    int error;

    if (!dev) {
        vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
        wg_crypto_init();
        dev = fuzz_device();
    }
    if (wg_device_peer_count(dev) > FUZZ_MAX_PEERS) {
        wg_device_peer_remove_all(dev);
    }
    ds_put_cstr(&req, "set=1\n");
    ds_put_buffer(&req, (const char *) data, size);
    error = wg_uapi_handle(dev, &fuzz_hooks, NULL, req.string, req.length,
                           &reply);
    snprintf(expect, sizeof expect, "errno=%d\n\n", -error);
    FUZZ_CHECK(error >= 0 && !strcmp(ds_cstr(&reply), expect));

    ds_clear(&reply);
    FUZZ_CHECK(!wg_uapi_handle(dev, &fuzz_hooks, NULL, "get=1\n\n", 7,
                               &reply));
    fuzz_check_get(dev, &reply);
    fuzz_check_roundtrip(&reply);
    ds_destroy(&req);
    ds_destroy(&reply);
    ovsrcu_quiesce();           /* Runs what the engine postponed. */
    return 0;
}
