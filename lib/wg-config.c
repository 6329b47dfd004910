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
#include "wg-config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "openvswitch/dynamic-string.h"
#include "socket-util.h"
#include "util.h"
#include "wg-addr.h"

#define WG_CONFIG_PEER_PREFIX "peer."
#define WG_CONFIG_KEY_FILE_MAX 256

static void wg_config_peer_free(struct wg_config_peer *);

void
wg_config_init(struct wg_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->udp_gso = cfg->udp_gro = cfg->tcp_gro = true;
    cfg->n_rxq = 1;
    hmap_init(&cfg->peers);
    smap_init(&cfg->peer_errors);
}

void
wg_config_destroy(struct wg_config *cfg)
{
    struct wg_config_peer *peer;

    HMAP_FOR_EACH_POP (peer, node, &cfg->peers) {
        wg_config_peer_free(peer);
    }
    hmap_destroy(&cfg->peers);
    smap_destroy(&cfg->peer_errors);
    free(cfg->address);
    free(cfg->uapi_dir);
    free(cfg->private_key_file);
    free(cfg->private_key_error);
    wg_crypto_wipe(cfg->private_key, sizeof cfg->private_key);
    memset(cfg, 0, sizeof *cfg);
}

void
wg_config_move(struct wg_config *dst, struct wg_config *src)
{
    wg_config_destroy(dst);
    *dst = *src;
    hmap_moved(&dst->peers);
    smap_init(&dst->peer_errors);
    smap_clone(&dst->peer_errors, &src->peer_errors);
    smap_destroy(&src->peer_errors);
    wg_crypto_wipe(src->private_key, sizeof src->private_key);
    wg_config_init(src);
}

static void
wg_config_peer_free(struct wg_config_peer *peer)
{
    if (peer) {
        wg_crypto_wipe(peer->psk, sizeof peer->psk);
        free(peer->name);
        free(peer->fingerprint);
        free(peer->endpoint_host);
        free(peer->allowed_ips);
        free(peer->psk_file);
        free(peer->psk_error);
        free(peer);
    }
}

/* Primitive parsers. */

/* Parses 's', all digits (leading zeros allowed, no sign or white space,
 * which OVS's str_to_uint() would take), as a number from 0 to 65535. */
static bool
parse_port(const char *s, int *port)
{
    unsigned int v;

    if (!isdigit((unsigned char) *s) || !str_to_uint(s, 10, &v)
        || v > 65535) {
        return false;
    }
    *port = v;
    return true;
}

/* Parses exactly "true" or "false".  Not smap_get_bool(), which takes any
 * other value for its default: a mistyped "flase" would leave the offload
 * on without a word, where this refuses the option in the error column. */
static bool
parse_bool(const char *s, bool *b)
{
    if (!strcmp(s, "true")) {
        *b = true;
    } else if (!strcmp(s, "false")) {
        *b = false;
    } else {
        return false;
    }
    return true;
}

/* Parses a comma-separated list of prefixes (spaces allowed around
 * commas).  Returns NULL on success, otherwise the first bad element
 * (caller frees). */
static char *
parse_prefix_list(const char *s, struct wg_addr_prefix **prefixes,
                  size_t *n)
{
    char *copy = xstrdup(s);
    char *save = NULL;
    char *bad = NULL;

    *prefixes = NULL;
    *n = 0;
    for (char *tok = strtok_r(copy, ", ", &save); tok;
         tok = strtok_r(NULL, ", ", &save)) {
        struct wg_addr_prefix p;
        if (!wg_addr_parse_prefix(tok, true, &p)) {
            bad = xstrdup(tok);
            break;
        }
        *prefixes = xrealloc(*prefixes, (*n + 1) * sizeof **prefixes);
        (*prefixes)[(*n)++] = p;
    }
    free(copy);
    if (bad) {
        free(*prefixes);
        *prefixes = NULL;
        *n = 0;
    }
    return bad;
}

/* Key material. */

int
wg_config_read_key_file(const char *path, const char *what,
                        uint8_t key[WG_KEY_LEN], char **errp)
{
    char buf[WG_CONFIG_KEY_FILE_MAX];
    struct stat st;
    ssize_t n;
    int error = 0;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st)) {
        error = errno;
        *errp = xasprintf("%s %s cannot be read (%s)", what, path,
                          ovs_strerror(error));
        goto out;
    }
    if (st.st_mode & (S_IROTH | S_IWOTH)) {
        error = EACCES;
        *errp = xasprintf("%s %s is accessible by other users: "
                          "refusing it (run chmod 600 on it)", what, path);
        goto out;
    }
    n = read(fd, buf, sizeof buf - 1);
    if (n < 0) {
        error = errno;
        *errp = xasprintf("%s %s cannot be read (%s)", what, path,
                          ovs_strerror(error));
        goto out;
    }
    buf[n] = '\0';
    while (n > 0 && isspace((unsigned char) buf[n - 1])) {
        buf[--n] = '\0';
    }
    if (!wg_crypto_key_from_base64(key, buf)) {
        error = EINVAL;
        *errp = xasprintf("%s %s does not hold a base64 32-byte key",
                          what, path);
    }
out:
    wg_crypto_wipe(buf, sizeof buf);
    if (fd >= 0) {
        close(fd);
    }
    return error;
}

/* Where a configuration holds one key option's value. */
struct key_ref {
    uint8_t *key;
    bool *has;
    char **file;                /* Key file, NULL for an inline key. */
    char **error;               /* Why the file's key is not in use. */
};

static struct key_ref
private_key_ref(const struct wg_config *cfg)
{
    struct wg_config *c = CONST_CAST(struct wg_config *, cfg);

    return (struct key_ref) { c->private_key, &c->has_private_key,
                              &c->private_key_file, &c->private_key_error };
}

static struct key_ref
psk_ref(const struct wg_config_peer *peer)
{
    struct wg_config_peer *p = CONST_CAST(struct wg_config_peer *, peer);

    return (struct key_ref) { p->psk, &p->has_psk, &p->psk_file,
                              &p->psk_error };
}

/* Copies the key and the error of 'src' into 'dst'. */
static void
key_ref_copy(const struct key_ref *dst, const struct key_ref *src)
{
    *dst->has = *src->has;
    memcpy(dst->key, src->key, WG_KEY_LEN);
    free(*dst->error);
    *dst->error = nullable_xstrdup(*src->error);
}

/* Reads the key file '*ref->file' into 'ref'.  If the file cannot be used
 * and 'ref' holds a key already, the key stays, the reason goes into
 * '*ref->error' and the call succeeds.  Returns 0 or an errno value with a
 * message in '*errp'. */
static int
key_ref_read(const struct key_ref *ref, const char *what, char **errp)
{
    uint8_t key[WG_KEY_LEN];
    char *err = NULL;
    int error = wg_config_read_key_file(*ref->file, what, key, &err);

    free(*ref->error);
    *ref->error = NULL;
    if (!error) {
        memcpy(ref->key, key, WG_KEY_LEN);
        *ref->has = true;
    } else if (*ref->has) {
        *ref->error = err;
        error = 0;
    } else {
        *errp = err;
    }
    wg_crypto_wipe(key, sizeof key);
    return error;
}

/* Takes the key of key file 'file' into 'out': from 'prev' (nullable) if
 * 'prev' holds the key of the same file, otherwise by reading the file
 * (keeping the key of 'prev', if any, when it cannot be used). */
static int
parse_key_file(const char *file, const char *what, const struct key_ref *prev,
               const struct key_ref *out, char **errp)
{
    *out->file = xstrdup(file);
    if (prev) {
        key_ref_copy(out, prev);
        if (*prev->has && *prev->file && !strcmp(*prev->file, file)) {
            return 0;
        }
    }
    return key_ref_read(out, what, errp);
}

/* Reads key 'name' (inline base64) or 'name'_file from 'args' into 'out',
 * with 'prev' (nullable) the same key in the configuration last applied.
 * Returns 0 with '*out->has' telling whether there is a key, or an errno
 * value with a message. */
static int
parse_key_option(const struct smap *args, const char *name,
                 const char *what, const struct key_ref *prev,
                 const struct key_ref *out, char **errp)
{
    char *file_opt = xasprintf("%s_file", name);
    const char *inline_key = smap_get(args, name);
    const char *file = smap_get(args, file_opt);
    int error = 0;

    *out->has = false;
    if (inline_key && file) {
        *errp = xasprintf("%s and %s are mutually exclusive", name,
                          file_opt);
        error = EINVAL;
    } else if (inline_key) {
        if (!wg_crypto_key_from_base64(out->key, inline_key)) {
            *errp = xasprintf("%s is not a base64 32-byte key", name);
            error = EINVAL;
        } else {
            *out->has = true;
        }
    } else if (file) {
        error = parse_key_file(file, what, prev, out, errp);
    }
    free(file_opt);
    return error;
}

/* Reads the key file of 'ref' again.  Returns true if it can be used. */
static bool
key_ref_reload(const struct key_ref *ref, const char *what)
{
    char *err = NULL;

    if (key_ref_read(ref, what, &err)) {
        free(*ref->error);
        *ref->error = err;
    }
    return !*ref->error;
}

bool
wg_config_reload_private_key(struct wg_config *cfg)
{
    struct key_ref ref = private_key_ref(cfg);

    return !cfg->private_key_file || key_ref_reload(&ref, "private_key_file");
}

bool
wg_config_reload_psk(struct wg_config_peer *peer)
{
    struct key_ref ref = psk_ref(peer);

    return !peer->psk_file || key_ref_reload(&ref, "preshared_key_file");
}

/* Peers. */

static bool
valid_peer_name(const char *name, size_t len)
{
    if (!len) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = name[i];
        if (!isalnum(c) && c != '-' && c != '_') {
            return false;
        }
    }
    return true;
}

static bool
valid_peer_key(const char *key)
{
    static const char *const keys[] = {
        "public_key", "endpoint", "allowed_ips", "persistent_keepalive",
        "preshared_key", "preshared_key_file",
    };
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        if (!strcmp(key, keys[i])) {
            return true;
        }
    }
    return false;
}

/* Collects the options of one peer, the 'n' nodes of 'nodes' (sorted by
 * key) whose keys all begin with the same "peer.<name>." of 'prefix_len'
 * bytes, into 'peer_args' (keys without that prefix) and a canonical
 * fingerprint. */
static void
collect_peer_args(const struct smap_node **nodes, size_t n,
                  size_t prefix_len, struct smap *peer_args,
                  struct ds *fingerprint)
{
    for (size_t i = 0; i < n; i++) {
        const char *key = nodes[i]->key + prefix_len;

        smap_add(peer_args, key, nodes[i]->value);
        ds_put_format(fingerprint, "%s=%s\n", key, nodes[i]->value);
    }
}

static const char *
check_peer_keys(const struct smap *peer_args)
{
    struct smap_node *node;

    SMAP_FOR_EACH (node, peer_args) {
        if (!valid_peer_key(node->key)) {
            return node->key;
        }
    }
    return NULL;
}

/* Parses endpoint 's' of 'peer': an address, or a host name kept for the
 * port to resolve.  Returns false if it is neither (or its port is 0). */
static bool
parse_peer_endpoint(const char *s, struct wg_config_peer *peer)
{
    if (wg_addr_parse_endpoint(s, &peer->endpoint, &peer->endpoint_len)) {
        return ss_get_port(&peer->endpoint) != 0;
    }
    peer->endpoint_len = 0;
    return wg_addr_parse_host_endpoint(s, &peer->endpoint_host,
                                       &peer->endpoint_port);
}

/* Parses peer options into 'peer'.  Returns NULL or a reason (caller
 * frees). */
static char *
parse_peer(const struct smap *peer_args, struct wg_config_peer *peer,
           const struct wg_config_peer *prev)
{
    struct key_ref out = psk_ref(peer);
    struct key_ref old = prev ? psk_ref(prev) : out;
    const char *s;
    char *err = NULL;

    s = check_peer_keys(peer_args);
    if (s) {
        return xasprintf("unknown option \"%s\"", s);
    }
    s = smap_get(peer_args, "public_key");
    if (!s) {
        return xstrdup("public_key is missing");
    }
    if (!wg_crypto_key_from_base64(peer->public_key, s)) {
        return xstrdup("public_key is not a base64 32-byte key");
    }
    s = smap_get(peer_args, "endpoint");
    if (s && !parse_peer_endpoint(s, peer)) {
        return xasprintf("endpoint \"%s\" is not IPv4:port, [IPv6]:port "
                         "or host-name:port", s);
    }
    s = smap_get(peer_args, "allowed_ips");
    if (s) {
        char *bad = parse_prefix_list(s, &peer->allowed_ips,
                                      &peer->n_allowed_ips);
        if (bad) {
            err = xasprintf("allowed_ips entry \"%s\" is not a prefix", bad);
            free(bad);
            return err;
        }
    }
    s = smap_get(peer_args, "persistent_keepalive");
    if (s) {
        int v;
        if (!parse_port(s, &v)) {
            return xasprintf("persistent_keepalive \"%s\" is not a number "
                             "of seconds from 0 to 65535", s);
        }
        peer->persistent_keepalive = v;
    }
    if (parse_key_option(peer_args, "preshared_key", "preshared_key_file",
                         prev ? &old : NULL, &out, &err)) {
        return err;
    }
    return NULL;
}

static struct wg_config_peer *
find_peer_by_key(const struct hmap *by_key, const uint8_t *key)
{
    struct wg_config_peer *peer;

    HMAP_FOR_EACH_WITH_HASH (peer, key_node, hash_bytes(key, WG_KEY_LEN, 0),
                             by_key) {
        if (!memcmp(peer->public_key, key, WG_KEY_LEN)) {
            return peer;
        }
    }
    return NULL;
}

/* Adds the peer whose options are the 'n' sorted 'nodes' that begin with
 * "peer.<name>." ('name_len' bytes of name at 'name').  'by_key' indexes
 * the peers added so far by public key; 'own' is the port's public key or
 * NULL; 'prev' is the configuration last applied or NULL. */
static void
add_peer(struct wg_config *cfg, const struct smap_node **nodes, size_t n,
         const char *name, size_t name_len, struct hmap *by_key,
         const uint8_t *own, const struct wg_config *prev)
{
    struct wg_config_peer *peer = xzalloc(sizeof *peer);
    struct smap peer_args = SMAP_INITIALIZER(&peer_args);
    struct ds fingerprint = DS_EMPTY_INITIALIZER;
    struct wg_config_peer *dup;
    char *err;

    peer->name = xmemdup0(name, name_len);
    collect_peer_args(nodes, n, strlen(WG_CONFIG_PEER_PREFIX) + name_len + 1,
                      &peer_args, &fingerprint);
    peer->fingerprint = ds_steal_cstr(&fingerprint);
    err = parse_peer(&peer_args, peer,
                     prev ? wg_config_find_peer(prev, peer->name) : NULL);
    if (!err && (dup = find_peer_by_key(by_key, peer->public_key))) {
        err = xasprintf("public_key is the same as peer \"%s\"", dup->name);
    }
    if (!err && own && !memcmp(own, peer->public_key, WG_KEY_LEN)) {
        err = xstrdup("public_key is this port's own public key");
    }
    if (err) {
        smap_add_nocopy(&cfg->peer_errors, xstrdup(peer->name), err);
        wg_config_peer_free(peer);
    } else {
        hmap_insert(&cfg->peers, &peer->node, hash_string(peer->name, 0));
        hmap_insert(by_key, &peer->key_node,
                    hash_bytes(peer->public_key, WG_KEY_LEN, 0));
    }
    smap_destroy(&peer_args);
}

struct wg_config_peer *
wg_config_find_peer(const struct wg_config *cfg, const char *name)
{
    struct wg_config_peer *peer;

    HMAP_FOR_EACH_WITH_HASH (peer, node, hash_string(name, 0),
                             &cfg->peers) {
        if (!strcmp(peer->name, name)) {
            return peer;
        }
    }
    return NULL;
}

/* Parses the "aead" option 's' (if nonnull) into 'cfg'.  Returns NULL, or
 * why it is refused (caller frees). */
static char *
parse_aead(const char *s, struct wg_config *cfg)
{
    if (!s) {
        return NULL;
    } else if (!wg_crypto_aead_backend_from_name(s, &cfg->aead)) {
        return xasprintf("aead \"%s\" is not a data-path AEAD (openssl, "
                         "ipsec-mb)", s);
    } else if (!wg_crypto_aead_backend_usable(cfg->aead)) {
        return xasprintf("aead \"%s\" is not a backend this build can run "
                         "on this CPU", s);
    }
    cfg->has_aead = true;
    return NULL;
}

/* Interface options. */

static bool
is_interface_option(const char *key)
{
    static const char *const keys[] = {
        "private_key", "private_key_file", "listen_port", "address",
        "udp_gso", "udp_gro", "tcp_gro", "uapi_dir", "n_rxq", "aead",
    };
    for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
        if (!strcmp(key, keys[i])) {
            return true;
        }
    }
    return false;
}

/* Returns the length of the <name> of option 'key' if it is
 * "peer.<name>.<key>" with a valid name, otherwise 0. */
static size_t
peer_name_len(const char *key)
{
    size_t plen = strlen(WG_CONFIG_PEER_PREFIX);
    const char *dot = strchr(key + plen, '.');

    return dot && valid_peer_name(key + plen, dot - key - plen)
           ? dot - key - plen : 0;
}

/* Adds a peer for each peer name used in the sorted 'nodes' of 'args'.
 * The options of one peer, "peer.<name>." followed by anything, are next
 * to each other in that order, so each peer takes one look at its own
 * options only (a search of all the options per peer made reconfiguring
 * a port with many peers quadratic). */
static void
add_peers(struct wg_config *cfg, const struct smap_node **nodes, size_t n,
          const struct wg_config *prev)
{
    size_t plen = strlen(WG_CONFIG_PEER_PREFIX);
    struct hmap by_key = HMAP_INITIALIZER(&by_key);
    uint8_t own[WG_KEY_LEN];
    bool has_own = (cfg->has_private_key
                    && wg_crypto_public_key(own, cfg->private_key));
    size_t i = 0;

    while (i < n) {
        const char *key = nodes[i]->key;
        size_t len, end;

        if (strncmp(key, WG_CONFIG_PEER_PREFIX, plen)) {
            i++;
            continue;
        }
        len = peer_name_len(key);
        for (end = i + 1; end < n; end++) {
            if (strncmp(nodes[end]->key, key, plen + len + 1)) {
                break;
            }
        }
        add_peer(cfg, &nodes[i], end - i, key + plen, len, &by_key,
                 has_own ? own : NULL, prev);
        i = end;
    }
    hmap_destroy(&by_key);
    wg_crypto_wipe(own, sizeof own);
}

/* Checks the peer option names in 'args' and adds each peer.  Returns an
 * error message for a malformed peer option name, otherwise NULL. */
static char *
parse_peers(const struct smap *args, struct wg_config *cfg,
            const struct wg_config *prev)
{
    const struct smap_node **nodes = smap_sort(args);
    size_t plen = strlen(WG_CONFIG_PEER_PREFIX);
    size_t n = smap_count(args);
    char *err = NULL;

    for (size_t i = 0; i < n && !err; i++) {
        const char *key = nodes[i]->key;

        if (!strncmp(key, WG_CONFIG_PEER_PREFIX, plen)
            && !peer_name_len(key)) {
            err = xasprintf("option \"%s\" is not peer.<name>.<key> with a "
                            "name of letters, digits, '-' and '_'", key);
        }
    }
    if (!err) {
        add_peers(cfg, nodes, n, prev);
    }
    free(nodes);
    return err;
}

static char *
parse_interface_options(const struct smap *args, struct wg_config *cfg)
{
    struct smap_node *node;
    const char *s;

    SMAP_FOR_EACH (node, args) {
        if (strncmp(node->key, WG_CONFIG_PEER_PREFIX,
                    strlen(WG_CONFIG_PEER_PREFIX))
            && !is_interface_option(node->key)) {
            return xasprintf("unknown option \"%s\"", node->key);
        }
    }
    s = smap_get(args, "listen_port");
    if (s && !parse_port(s, &cfg->listen_port)) {
        return xasprintf("listen_port \"%s\" is not a UDP port number "
                         "(0 to 65535)", s);
    }
    s = smap_get(args, "address");
    cfg->address = s && s[0] ? xstrdup(s) : NULL;
    static const struct {
        const char *name;
        size_t offset;
    } switches[] = {
        { "udp_gso", offsetof(struct wg_config, udp_gso) },
        { "udp_gro", offsetof(struct wg_config, udp_gro) },
        { "tcp_gro", offsetof(struct wg_config, tcp_gro) },
    };
    for (size_t i = 0; i < ARRAY_SIZE(switches); i++) {
        s = smap_get(args, switches[i].name);
        if (s && !parse_bool(s, (bool *) ((char *) cfg
                                          + switches[i].offset))) {
            return xasprintf("%s must be true or false, not \"%s\"",
                             switches[i].name, s);
        }
    }
    s = smap_get(args, "n_rxq");
    if (s && (!str_to_int(s, 10, &cfg->n_rxq) || cfg->n_rxq < 1
              || cfg->n_rxq > WG_CONFIG_N_RXQ_MAX)) {
        return xasprintf("n_rxq \"%s\" is not a number of receive queues "
                         "(1 to %d)", s, WG_CONFIG_N_RXQ_MAX);
    }
    s = smap_get(args, "uapi_dir");
    cfg->uapi_dir = s && s[0] ? xstrdup(s) : NULL;
    return parse_aead(smap_get(args, "aead"), cfg);
}

int
wg_config_parse(const struct smap *args, struct wg_config *cfg, char **errp)
{
    return wg_config_parse_from(args, NULL, cfg, errp);
}

int
wg_config_parse_from(const struct smap *args, const struct wg_config *prev,
                     struct wg_config *cfg, char **errp)
{
    struct key_ref out = private_key_ref(cfg);
    struct key_ref old = prev ? private_key_ref(prev) : out;
    char *err;
    int error;

    wg_config_destroy(cfg);
    wg_config_init(cfg);
    *errp = NULL;

    err = parse_interface_options(args, cfg);
    if (err) {
        *errp = err;
        return EINVAL;
    }
    error = parse_key_option(args, "private_key", "private_key_file",
                             prev ? &old : NULL, &out, errp);
    if (error) {
        return error;
    }
    if (cfg->has_private_key) {
        uint8_t pub[WG_KEY_LEN];
        if (!wg_crypto_public_key(pub, cfg->private_key)) {
            *errp = xstrdup("private key is not a usable X25519 key");
            return EINVAL;
        }
    }
    err = parse_peers(args, cfg, prev);
    if (err) {
        *errp = err;
        return EINVAL;
    }
    return 0;
}
