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

#ifndef WG_CONFIG_H
#define WG_CONFIG_H 1

/* Parsing and validation of a wireguard interface's OVSDB options.
 *
 * Two kinds of errors (Documentation/topics/design.rst, "Configuration"):
 *   - interface-level (private key unreadable or malformed, key file
 *     readable by others, bad listen_port/address/offload switch, unknown
 *     option): wg_config_parse() fails with one sentence;
 *   - peer-level (bad public key, endpoint, prefix, keepalive, PSK,
 *     duplicate public key): the peer is left out and the reason is
 *     recorded in 'peer_errors', the rest of the configuration stands.
 *
 * An endpoint may be a host name ("name:port", wg-addr.h): it is kept as
 * text in 'endpoint_host' for the port to resolve; parsing never resolves.
 *
 * Every peer carries a fingerprint of its options so that the port can
 * leave peers whose options did not change untouched.
 *
 * Key files (private_key_file, preshared_key_file) are read only when
 * their option is new or names another file than in the configuration
 * last applied (wg_config_parse_from()'s 'prev'), or on request
 * (wg_config_reload_keys()): an unrelated change of the options never
 * reads them again.  When a file that is read cannot be used and 'prev'
 * had a key in that place, the key of 'prev' stays and the reason goes
 * into the matching '*_error' member instead of failing. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include "openvswitch/hmap.h"
#include "smap.h"
#include "wg-addr.h"
#include "wg-crypto.h"

struct wg_config_peer {
    struct hmap_node node;          /* In struct wg_config's 'peers', by
                                     * name. */
    struct hmap_node key_node;      /* By public key, while parsing. */
    char *name;                     /* The <name> of peer.<name>.*. */
    char *fingerprint;              /* Canonical form of its options. */
    uint8_t public_key[WG_KEY_LEN];
    bool has_psk;
    uint8_t psk[WG_KEY_LEN];
    char *psk_file;                 /* preshared_key_file, or NULL. */
    char *psk_error;                /* Why the file's key is not in use. */
    struct sockaddr_storage endpoint;
    socklen_t endpoint_len;         /* 0: no address endpoint. */
    char *endpoint_host;            /* Host name of a "name:port" endpoint
                                     * (to be resolved), or NULL. */
    uint16_t endpoint_port;         /* Its port. */
    struct wg_addr_prefix *allowed_ips;
    size_t n_allowed_ips;
    unsigned int persistent_keepalive;  /* Seconds, 0 = off. */
};

/* Most receive queues ("n_rxq") a port may have. */
#define WG_CONFIG_N_RXQ_MAX 16

struct wg_config {
    bool has_private_key;
    uint8_t private_key[WG_KEY_LEN];
    char *private_key_file;         /* private_key_file, or NULL. */
    char *private_key_error;        /* Why the file's key is not in use. */
    int listen_port;                /* 0: ephemeral. */
    char *address;                  /* "address" option as given (the
                                     * layer-2 adapter parses it), or
                                     * NULL. */
    bool udp_gso;
    bool udp_gro;
    bool tcp_gro;
    int n_rxq;                      /* Receive queues, 1 to
                                     * WG_CONFIG_N_RXQ_MAX. */
    char *uapi_dir;                 /* NULL: the default directory. */
    bool has_aead;                  /* "aead" given: 'aead' is usable. */
    enum wg_crypto_aead_backend aead;
    struct hmap peers;              /* Contains struct wg_config_peer. */
    struct smap peer_errors;        /* Peer name -> one-sentence reason. */
};

/* Initializes 'cfg' to an empty configuration. */
void wg_config_init(struct wg_config *cfg);

/* Frees what 'cfg' holds, wiping key material. */
void wg_config_destroy(struct wg_config *cfg);

/* Destroys 'dst' and moves what 'src' holds into it; 'src' is left empty
 * (as after wg_config_init()). */
void wg_config_move(struct wg_config *dst, struct wg_config *src);

/* Parses the interface options 'args' into 'cfg' (which must have been
 * initialized and is reset first).  Returns 0, or a positive errno value
 * (EINVAL, EACCES, or why a key file could not be opened or read: ENOENT,
 * ELOOP, EISDIR...) with a one-sentence, key-free message in '*errp'
 * (caller frees) for an interface-level error.  Peer-level errors are
 * recorded in cfg->peer_errors and do not fail the call. */
int wg_config_parse(const struct smap *args, struct wg_config *cfg,
                    char **errp);

/* The same, with 'prev' (nullable, distinct from 'cfg') the configuration
 * last applied: key files named as in 'prev' are not read again, and a key
 * file that cannot be used keeps the key 'prev' had (see the top of this
 * file). */
int wg_config_parse_from(const struct smap *args,
                         const struct wg_config *prev,
                         struct wg_config *cfg, char **errp);

/* Read the private key file of 'cfg', or the preshared key file of 'peer',
 * again (if there is one).  A file that cannot be used keeps its key and
 * records why in its '*_error' member; one that can clears that member.
 * Return true if the file could be used. */
bool wg_config_reload_private_key(struct wg_config *cfg);
bool wg_config_reload_psk(struct wg_config_peer *peer);

/* Returns the peer named 'name' in 'cfg', or NULL. */
struct wg_config_peer *wg_config_find_peer(const struct wg_config *cfg,
                                           const char *name);

/* Reads a base64 key from the file 'path' into 'key'.  Refuses a file that
 * users other than its owner's group can read or write.  Returns 0, or an
 * errno value with a message in '*errp' (caller frees). */
int wg_config_read_key_file(const char *path, const char *what,
                            uint8_t key[WG_KEY_LEN], char **errp);

#endif /* wg-config.h */
