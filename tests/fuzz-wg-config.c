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

/* libFuzzer target for a wireguard interface's OVSDB options.
 *
 * Built by "make" when configure finds clang with libFuzzer (see
 * tests/automake.mk) and run for a bounded number of inputs by "make
 * check"; "make fuzz-long" runs it longer.  A crash file is replayed by
 * giving it to the fuzzer binary as an argument: "fuzz-wg-config FILE".
 *
 * Input: text, one option a line, "key=value" (split at the first '=', a
 * line without one is a key with an empty value, empty lines are skipped;
 * a NUL ends a line's text).  As in an OVSDB map, a key given twice keeps
 * its last value.
 * Each input goes the way of "ovs-vsctl set interface P options:..." in the
 * port (netdev_wireguard_set_config()): wg_config_parse(), then the
 * "address" list through bridge_l2_set_addresses(), then the peers into a
 * wg_device as lib/netdev-wireguard-peers.c adds them.  The values of
 * private_key_file and peer.*.preshared_key_file name files of a fixture
 * directory made at start-up (see fuzz_fixtures[]; '/' becomes '_', so
 * nothing outside it is opened).
 *
 * Invariants checked:
 *   - a parse fails with a positive errno value and a non-empty one-line
 *     message, or succeeds with no message and a configuration within the
 *     options' bounds (listen_port, switches, address, peers: valid name,
 *     fingerprint of exactly its options, public key as given and unique,
 *     not the own key, endpoint with a nonzero port, prefixes of the right
 *     family and length, keepalive up to 65535, PSK only when given);
 *   - every peer name used is either a peer or has a one-line reason in
 *     peer_errors, never both;
 *   - no key material read as a key (an inline private_key or
 *     preshared_key that decodes, in its given, base64, hex or raw form,
 *     or a fixture key file's content) appears in any error message,
 *     unless the input also has it in an option that is not a key;
 *   - parsing is deterministic: a second parse, into the used
 *     configuration, and wg_config_move() give the same result;
 *   - the address list and the peers are accepted by bridge-l2 and
 *     wg-device as the port would apply them. */

#include <config.h>
#include "wg-config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bridge-l2.h"
#include "fuzz-util.h"
#include "openvswitch/dynamic-string.h"
#include "openvswitch/vlog.h"
#include "ovs-rcu.h"
#include "packets.h"
#include "smap.h"
#include "socket-util.h"
#include "sset.h"
#include "util.h"
#include "wg-crypto.h"
#include "wg-device.h"

/* Key files of the fixture directory: name, content, mode.  A
 * subdirectory "dir" and a symbolic link "link" to "key" are made too. */
static const struct {
    const char *name;
    const char *content;
    mode_t mode;
} fuzz_fixtures[] = {
    { "key", "yEK+KPfvXkFv/jTDRXB5bu849hZpUATZErt+af74lHc=\n", 0600 },
    { "key-open", "gAvSGOmZIb9ozdoVrIrX5M2EyYHNWIAp64kqAlEKVUw=\n", 0644 },
    { "key-group", "KJ5y/cKu6ejwBmk4XBB6Kom0Oz/WIWw6csfeSe61e2w=\n", 0640 },
    { "key-space", "  cOq4PU7Nl/X0nJT/mDKzC/6u7DxB76qqZrZ5nFNDcHo=  \n\n",
      0600 },
    { "key-bad", "this is not a key\n", 0600 },
    { "key-short", "AAAA\n", 0600 },
    { "psk", "OAwdp5hFB9Zcp2jC9nbBfvlLpBy+0NdaoCA7qrSZnFk=\n", 0600 },
};

static char *fuzz_dir;
static struct bridge_l2 *fuzz_l2;
static struct wg_device *fuzz_dev;

/* Fixtures. */

static void
fuzz_write_file(const char *name, const char *content, mode_t mode)
{
    char *path = xasprintf("%s/%s", fuzz_dir, name);
    FILE *f = fopen(path, "w");

    FUZZ_CHECK(f && fputs(content, f) >= 0 && !fclose(f));
    FUZZ_CHECK(!chmod(path, mode));
    free(path);
}

static void
fuzz_remove_fixtures(void)
{
    for (size_t i = 0; i < ARRAY_SIZE(fuzz_fixtures); i++) {
        char *path = xasprintf("%s/%s", fuzz_dir, fuzz_fixtures[i].name);

        unlink(path);
        free(path);
    }
    char *link = xasprintf("%s/link", fuzz_dir);
    char *dir = xasprintf("%s/dir", fuzz_dir);

    unlink(link);
    rmdir(dir);
    rmdir(fuzz_dir);
    free(link);
    free(dir);
}

static void
fuzz_init(void)
{
    static const struct wg_device_hooks hooks = {
        .send = fuzz_drop_send,
        .now_ms = fuzz_fixed_clock,
    };
    const char *tmp = getenv("TMPDIR");
    struct bridge_l2_limits lim = { 16, 4, 16, 16384 };

    vlog_set_levels(NULL, VLF_ANY_DESTINATION, VLL_OFF);
    wg_crypto_init();
    fuzz_dir = xasprintf("%s/fuzz-wg-config.XXXXXX", tmp ? tmp : "/tmp");
    FUZZ_CHECK(mkdtemp(fuzz_dir));
    for (size_t i = 0; i < ARRAY_SIZE(fuzz_fixtures); i++) {
        fuzz_write_file(fuzz_fixtures[i].name, fuzz_fixtures[i].content,
                        fuzz_fixtures[i].mode);
    }
    char *link = xasprintf("%s/link", fuzz_dir);
    char *dir = xasprintf("%s/dir", fuzz_dir);

    FUZZ_CHECK(!symlink("key", link) && !mkdir(dir, 0700));
    free(link);
    free(dir);
    atexit(fuzz_remove_fixtures);

    fuzz_l2 = bridge_l2_create(eth_addr_zero, &lim);
    fuzz_dev = wg_device_create(&hooks, NULL);
}

/* Input. */

static bool
fuzz_is_file_option(const char *key)
{
    size_t len = strlen(key), n = strlen("_key_file");

    return len >= n && !strcmp(key + len - n, "_key_file");
}

/* Adds one "key=value" line of 'len' bytes at 'line' to 'args'. */
static void
fuzz_add_line(struct smap *args, const char *line, size_t len)
{
    char *text = xmemdup0(line, len);
    char *eq = strchr(text, '=');
    const char *value = eq ? eq + 1 : "";

    if (eq) {
        *eq = '\0';
    }
    if (fuzz_is_file_option(text)) {
        char *name = xstrdup(value);

        for (char *p = name; *p; p++) {
            *p = *p == '/' ? '_' : *p;
        }
        smap_replace_nocopy(args, text, xasprintf("%s/%s", fuzz_dir, name));
        free(name);
    } else {
        smap_replace(args, text, value);
    }
    free(text);
}

static void
fuzz_parse_input(struct smap *args, const uint8_t *data, size_t size)
{
    const char *p = (const char *) data;
    const char *end = p + size;

    while (p < end) {
        const char *nl = memchr(p, '\n', end - p);
        size_t n = nl ? nl - p : end - p;

        if (n) {
            fuzz_add_line(args, p, n);
        }
        p += n + 1;
    }
}

/* Secrets. */

static bool
fuzz_is_secret_option(const char *key)
{
    size_t len = strlen(key), n = strlen("preshared_key");

    return (!strcmp(key, "private_key")
            || (len >= n && !strcmp(key + len - n, "preshared_key")));
}

/* Adds the forms in which 'b64' (a key in base64) could leak to
 * 'secrets': as given, canonical base64, hex and raw (NUL-free raw bytes
 * only, since messages are C strings). */
static void
fuzz_add_secret(struct sset *secrets, const char *b64)
{
    uint8_t key[WG_KEY_LEN];
    char b64c[WG_KEY_B64_LEN];
    char hex[WG_KEY_HEX_LEN];

    if (!wg_crypto_key_from_base64(key, b64)) {
        return;
    }
    wg_crypto_key_to_base64(b64c, key);
    wg_crypto_key_to_hex(hex, key);
    sset_add(secrets, b64);
    sset_add(secrets, b64c);
    sset_add(secrets, hex);
    if (!memchr(key, '\0', sizeof key)) {
        sset_add_and_free(secrets, xmemdup0((const char *) key, sizeof key));
    }
    wg_crypto_wipe(key, sizeof key);
}

static void
fuzz_collect_secrets(const struct smap *args, struct sset *secrets)
{
    const struct smap_node *node;

    for (size_t i = 0; i < ARRAY_SIZE(fuzz_fixtures); i++) {
        char *content = xstrdup(fuzz_fixtures[i].content);

        fuzz_add_secret(secrets, strtok(content, " \n"));
        free(content);
    }
    SMAP_FOR_EACH (node, args) {
        if (fuzz_is_secret_option(node->key)) {
            fuzz_add_secret(secrets, node->value);
        }
    }
}

/* True if 'secret' is in a key, or in a value of an option that is not a
 * secret, of 'args' (messages may quote those). */
static bool
fuzz_secret_is_public(const struct smap *args, const char *secret)
{
    const struct smap_node *node;

    SMAP_FOR_EACH (node, args) {
        if (strstr(node->key, secret)
            || (!fuzz_is_secret_option(node->key)
                && strstr(node->value, secret))) {
            return true;
        }
    }
    return false;
}

/* Checks that message 'msg' is one non-empty line without secrets. */
static void
fuzz_check_message(const struct smap *args, const struct sset *secrets,
                   const char *msg)
{
    const char *secret;

    FUZZ_CHECK(msg && msg[0] && !strchr(msg, '\n'));
    SSET_FOR_EACH (secret, secrets) {
        FUZZ_CHECK(!strstr(msg, secret)
                   || fuzz_secret_is_public(args, secret));
    }
}

/* Bounds of a successful parse. */

static void
fuzz_check_switch(const struct smap *args, const char *name, bool value)
{
    const char *s = smap_get(args, name);

    FUZZ_CHECK(value == (!s || !strcmp(s, "true")));
}

static void
fuzz_check_interface(const struct smap *args, const struct wg_config *cfg)
{
    const char *port = smap_get(args, "listen_port");
    const char *address = smap_get(args, "address");
    const char *uapi_dir = smap_get(args, "uapi_dir");

    FUZZ_CHECK(cfg->listen_port >= 0 && cfg->listen_port <= 65535);
    FUZZ_CHECK(port ? cfg->listen_port == atoi(port) : !cfg->listen_port);
    FUZZ_CHECK(cfg->has_private_key
               == (smap_get(args, "private_key")
                   || smap_get(args, "private_key_file")));
    FUZZ_CHECK(address && address[0]
               ? cfg->address && !strcmp(cfg->address, address)
               : !cfg->address);
    FUZZ_CHECK(uapi_dir && uapi_dir[0]
               ? cfg->uapi_dir && !strcmp(cfg->uapi_dir, uapi_dir)
               : !cfg->uapi_dir);
    fuzz_check_switch(args, "udp_gso", cfg->udp_gso);
    fuzz_check_switch(args, "udp_gro", cfg->udp_gro);
    fuzz_check_switch(args, "tcp_gro", cfg->tcp_gro);
}

/* Returns the options of peer 'name' in 'args' as the fingerprint should
 * hold them: "key=value\n" for each, sorted by key. */
static char *
fuzz_peer_options(const struct smap *args, const char *name)
{
    const struct smap_node **nodes = smap_sort(args);
    char *prefix = xasprintf("peer.%s.", name);
    struct ds out = DS_EMPTY_INITIALIZER;

    for (size_t i = 0; i < smap_count(args); i++) {
        const char *key = nodes[i]->key;

        if (!strncmp(key, prefix, strlen(prefix))) {
            ds_put_format(&out, "%s=%s\n", key + strlen(prefix),
                          nodes[i]->value);
        }
    }
    free(prefix);
    free(nodes);
    return ds_steal_cstr(&out);
}

static const char *
fuzz_peer_option(const struct smap *args, const char *name, const char *key)
{
    char *full = xasprintf("peer.%s.%s", name, key);
    const char *value = smap_get(args, full);

    free(full);
    return value;
}

/* Returns the number of elements of list 's', separated by any number of
 * the characters in 'seps'. */
static size_t
fuzz_count_list(const char *s, const char *seps)
{
    bool after_sep = true;
    size_t n = 0;

    for (const char *p = s; *p; p++) {
        bool is_sep = strchr(seps, *p) != NULL;

        n += after_sep && !is_sep;
        after_sep = is_sep;
    }
    return n;
}

static void
fuzz_check_endpoint(const struct wg_config_peer *peer, const char *option)
{
    const struct sockaddr_storage *ss = &peer->endpoint;

    if (!option) {
        FUZZ_CHECK(!peer->endpoint_len && !peer->endpoint_host);
        return;
    }
    if (peer->endpoint_host) {
        /* "name:port", kept as text for the port to resolve. */
        FUZZ_CHECK(!peer->endpoint_len && peer->endpoint_host[0]
                   && peer->endpoint_port != 0);
        return;
    }
    FUZZ_CHECK(ss->ss_family == AF_INET
               ? peer->endpoint_len == sizeof(struct sockaddr_in)
               : (ss->ss_family == AF_INET6
                  && peer->endpoint_len == sizeof(struct sockaddr_in6)));
    FUZZ_CHECK(ss_get_port(ss) != 0);
}

static void
fuzz_check_peer(const struct smap *args, const struct wg_config *cfg,
                const struct wg_config_peer *peer)
{
    const char *pub = fuzz_peer_option(args, peer->name, "public_key");
    const char *ips = fuzz_peer_option(args, peer->name, "allowed_ips");
    char *options = fuzz_peer_options(args, peer->name);
    uint8_t key[WG_KEY_LEN], own[WG_KEY_LEN];

    FUZZ_CHECK(peer->name[strspn(peer->name, "abcdefghijklmnopqrstuvwxyz"
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")]
               == '\0' && peer->name[0]);
    FUZZ_CHECK(wg_config_find_peer(cfg, peer->name) == peer);
    FUZZ_CHECK(!strcmp(peer->fingerprint, options));
    FUZZ_CHECK(pub && wg_crypto_key_from_base64(key, pub)
               && !memcmp(key, peer->public_key, WG_KEY_LEN));
    FUZZ_CHECK(!cfg->has_private_key
               || !wg_crypto_public_key(own, cfg->private_key)
               || memcmp(own, peer->public_key, WG_KEY_LEN));
    fuzz_check_endpoint(peer, fuzz_peer_option(args, peer->name,
                                               "endpoint"));
    FUZZ_CHECK(peer->n_allowed_ips == (ips ? fuzz_count_list(ips, ", ") : 0));
    for (size_t i = 0; i < peer->n_allowed_ips; i++) {
        const struct wg_addr_prefix *p = &peer->allowed_ips[i];

        FUZZ_CHECK(p->family == AF_INET ? p->len <= 32
                   : p->family == AF_INET6 && p->len <= 128);
    }
    FUZZ_CHECK(peer->persistent_keepalive <= 65535);
    FUZZ_CHECK(peer->has_psk
               == (fuzz_peer_option(args, peer->name, "preshared_key")
                   || fuzz_peer_option(args, peer->name,
                                       "preshared_key_file")));
    free(options);
}

/* Returns the peer names used in 'args' ("peer.NAME.KEY"). */
static void
fuzz_peer_names(const struct smap *args, struct sset *names)
{
    const struct smap_node *node;

    SMAP_FOR_EACH (node, args) {
        if (!strncmp(node->key, "peer.", 5)) {
            const char *name = node->key + 5;
            const char *dot = strchr(name, '.');

            sset_add_and_free(names, dot ? xmemdup0(name, dot - name)
                                         : xstrdup(name));
        }
    }
}

static void
fuzz_check_peers(const struct smap *args, const struct wg_config *cfg,
                 const struct sset *secrets)
{
    struct sset names = SSET_INITIALIZER(&names);
    const struct wg_config_peer *peer, *other;
    const struct smap_node *node;
    const char *name;

    fuzz_peer_names(args, &names);
    SSET_FOR_EACH (name, &names) {
        FUZZ_CHECK(!wg_config_find_peer(cfg, name)
                   != !smap_get(&cfg->peer_errors, name));
    }
    FUZZ_CHECK(hmap_count(&cfg->peers) + smap_count(&cfg->peer_errors)
               == sset_count(&names));
    SMAP_FOR_EACH (node, &cfg->peer_errors) {
        fuzz_check_message(args, secrets, node->value);
    }
    HMAP_FOR_EACH (peer, node, &cfg->peers) {
        fuzz_check_peer(args, cfg, peer);
        HMAP_FOR_EACH (other, node, &cfg->peers) {
            FUZZ_CHECK(other == peer || memcmp(other->public_key,
                                               peer->public_key,
                                               WG_KEY_LEN));
        }
    }
    sset_destroy(&names);
}

/* Determinism. */

static bool
fuzz_same_peer(const struct wg_config_peer *a, const struct wg_config_peer *b)
{
    return (b
            && !strcmp(a->fingerprint, b->fingerprint)
            && !memcmp(a->public_key, b->public_key, WG_KEY_LEN)
            && a->has_psk == b->has_psk
            && !memcmp(a->psk, b->psk, WG_KEY_LEN)
            && a->endpoint_len == b->endpoint_len
            && !memcmp(&a->endpoint, &b->endpoint, sizeof a->endpoint)
            && a->n_allowed_ips == b->n_allowed_ips
            && (!a->n_allowed_ips
                || !memcmp(a->allowed_ips, b->allowed_ips,
                           a->n_allowed_ips * sizeof *a->allowed_ips))
            && a->persistent_keepalive == b->persistent_keepalive);
}

static void
fuzz_check_same(const struct wg_config *a, const struct wg_config *b)
{
    const struct wg_config_peer *peer;

    FUZZ_CHECK(a->has_private_key == b->has_private_key
               && !memcmp(a->private_key, b->private_key, WG_KEY_LEN)
               && a->listen_port == b->listen_port
               && nullable_string_is_equal(a->address, b->address)
               && nullable_string_is_equal(a->uapi_dir, b->uapi_dir)
               && a->udp_gso == b->udp_gso && a->udp_gro == b->udp_gro
               && a->tcp_gro == b->tcp_gro);
    FUZZ_CHECK(hmap_count(&a->peers) == hmap_count(&b->peers));
    HMAP_FOR_EACH (peer, node, &a->peers) {
        FUZZ_CHECK(fuzz_same_peer(peer, wg_config_find_peer(b, peer->name)));
    }
    FUZZ_CHECK(smap_equal(&a->peer_errors, &b->peer_errors));
}

/* Parses 'args' again into the used 'again' and checks it agrees with
 * 'cfg', whose parse returned 'error' and message 'err'. */
static void
fuzz_check_again(const struct smap *args, const struct wg_config *cfg,
                 int error, const char *err, struct wg_config *again)
{
    char *err2;

    FUZZ_CHECK(wg_config_parse(args, again, &err2) == error);
    FUZZ_CHECK(nullable_string_is_equal(err, err2));
    if (!error) {
        fuzz_check_same(cfg, again);
    }
    free(err2);
}

/* What the port does with the configuration. */

static void
fuzz_apply_addresses(const struct wg_config *cfg,
                     const struct smap *args, const struct sset *secrets)
{
    char *err = bridge_l2_set_addresses(fuzz_l2, cfg->address);

    if (err) {
        fuzz_check_message(args, secrets, err);
        free(err);
    } else {
        FUZZ_CHECK(bridge_l2_n_addresses(fuzz_l2)
                   == (cfg->address
                       ? fuzz_count_list(cfg->address, ", \t") : 0));
    }
}

static void
fuzz_apply_peer(const struct wg_config_peer *cp)
{
    struct wg_peer *peer;
    int error;

    error = wg_device_peer_add(fuzz_dev, cp->public_key, &peer);
    FUZZ_CHECK(!error || error == EINVAL);
    if (error) {
        return;                 /* A low-order key. */
    }
    wg_device_peer_set_psk(fuzz_dev, peer, cp->has_psk ? cp->psk : NULL);
    if (cp->endpoint_len) {
        FUZZ_CHECK(!wg_device_peer_set_endpoint(
                       fuzz_dev, peer,
                       (const struct sockaddr *) &cp->endpoint,
                       cp->endpoint_len));
    }
    for (size_t i = 0; i < cp->n_allowed_ips; i++) {
        const struct wg_addr_prefix *p = &cp->allowed_ips[i];

        FUZZ_CHECK(!wg_device_peer_allowed_ip_add(fuzz_dev, peer, p->family,
                                                  p->addr, p->len));
        FUZZ_CHECK(wg_device_route(fuzz_dev, p->family, p->addr));
    }
    wg_device_peer_set_persistent_keepalive(fuzz_dev, peer,
                                            cp->persistent_keepalive);
}

static void
fuzz_apply_peers(const struct wg_config *cfg)
{
    const struct wg_config_peer *cp;

    wg_device_peer_remove_all(fuzz_dev);
    FUZZ_CHECK(!wg_device_set_private_key(fuzz_dev, cfg->has_private_key
                                          ? cfg->private_key : NULL));
    HMAP_FOR_EACH (cp, node, &cfg->peers) {
        fuzz_apply_peer(cp);
    }
}

static void
fuzz_check_result(const struct smap *args, const struct sset *secrets,
                  const struct wg_config *cfg, int error, const char *err)
{
    if (error) {
        FUZZ_CHECK(error > 0);
        fuzz_check_message(args, secrets, err);
        return;
    }
    FUZZ_CHECK(!err);
    fuzz_check_interface(args, cfg);
    fuzz_check_peers(args, cfg, secrets);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct smap args = SMAP_INITIALIZER(&args);
    struct sset secrets = SSET_INITIALIZER(&secrets);
    struct wg_config cfg, again, moved;
    char *err;
    int error;

    if (!fuzz_dir) {
        fuzz_init();
    }
    fuzz_parse_input(&args, data, size);
    fuzz_collect_secrets(&args, &secrets);
    wg_config_init(&cfg);
    wg_config_init(&again);
    wg_config_init(&moved);

    error = wg_config_parse(&args, &cfg, &err);
    fuzz_check_result(&args, &secrets, &cfg, error, err);
    fuzz_check_again(&args, &cfg, error, err, &again);
    if (!error) {
        wg_config_move(&moved, &again);
        fuzz_check_same(&cfg, &moved);
        fuzz_apply_addresses(&cfg, &args, &secrets);
        fuzz_apply_peers(&cfg);
    }

    free(err);
    wg_config_destroy(&cfg);
    wg_config_destroy(&again);
    wg_config_destroy(&moved);
    sset_destroy(&secrets);
    smap_destroy(&args);
    ovsrcu_quiesce();           /* Runs what the engine postponed. */
    return 0;
}
