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
#include "wg-peer.h"

#include <netinet/in.h>
#include <string.h>
#include "hash.h"
#include "ovs-rcu.h"
#include "socket-util.h"
#include "util.h"

/* An entry is immutable once in the map; readers without the device's lock
 * find it under RCU, so a removed one is freed a grace period later. */
struct wg_index_entry {
    struct cmap_node node;      /* In struct wg_index_table's 'map'. */
    uint32_t index;
    struct wg_peer *peer;
};

/* Index table. */

void
wg_peer_index_table_init(struct wg_index_table *t)
{
    cmap_init(&t->map);
}

void
wg_peer_index_table_destroy(struct wg_index_table *t)
{
    struct wg_index_entry *e;

    CMAP_FOR_EACH (e, node, &t->map) {
        cmap_remove(&t->map, &e->node, hash_int(e->index, 0));
        ovsrcu_postpone(free, e);
    }
    cmap_destroy(&t->map);
}

static struct wg_index_entry *
index_find(const struct wg_index_table *t, uint32_t index)
{
    struct wg_index_entry *e;

    CMAP_FOR_EACH_WITH_HASH (e, node, hash_int(index, 0), &t->map) {
        if (e->index == index) {
            return e;
        }
    }
    return NULL;
}

uint32_t
wg_peer_index_alloc(struct wg_index_table *t, struct wg_peer *peer)
{
    struct wg_index_entry *e = xmalloc(sizeof *e);

    /* The lowest byte is what a steering filter reads first on the wire
     * (indices travel little-endian); about 'rx_n_classes' draws. */
    do {
        wg_crypto_random(&e->index, sizeof e->index);
    } while (!e->index
             || (e->index & 0xff) % peer->rx_n_classes != peer->rx_class
             || index_find(t, e->index));
    e->peer = peer;
    cmap_insert(&t->map, &e->node, hash_int(e->index, 0));
    return e->index;
}

void
wg_peer_index_free(struct wg_index_table *t, uint32_t index)
{
    struct wg_index_entry *e = index ? index_find(t, index) : NULL;

    if (e) {
        cmap_remove(&t->map, &e->node, hash_int(index, 0));
        ovsrcu_postpone(free, e);
    }
}

struct wg_peer *
wg_peer_index_lookup(const struct wg_index_table *t, uint32_t index)
{
    struct wg_index_entry *e = index ? index_find(t, index) : NULL;

    return e ? e->peer : NULL;
}

size_t
wg_peer_index_count(const struct wg_index_table *t)
{
    return cmap_count(&t->map);
}

/* Endpoint table. */

/* Length of the AF_INET or AF_INET6 address 'sa' if 'len' holds it, else 0.
 * The family is checked first: sa_length() accepts no other. */
static socklen_t
sockaddr_len(const struct sockaddr *sa, socklen_t len)
{
    bool inet = sa->sa_family == AF_INET || sa->sa_family == AF_INET6;

    return inet && len >= sa_length(sa) ? sa_length(sa) : 0;
}

/* Compares the address and port of two endpoints of the same family. */
static bool
endpoint_equal(const struct sockaddr_storage *a, const struct sockaddr *b)
{
    if (a->ss_family != b->sa_family) {
        return false;
    } else if (b->sa_family == AF_INET) {
        const struct sockaddr_in *x = (const struct sockaddr_in *) a;
        const struct sockaddr_in *y = (const struct sockaddr_in *) b;

        return (x->sin_port == y->sin_port
                && x->sin_addr.s_addr == y->sin_addr.s_addr);
    } else {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *) a;
        const struct sockaddr_in6 *y = (const struct sockaddr_in6 *) b;

        return (x->sin6_port == y->sin6_port
                && x->sin6_scope_id == y->sin6_scope_id
                && !memcmp(&x->sin6_addr, &y->sin6_addr,
                           sizeof x->sin6_addr));
    }
}

/* Hash of the address and port of 'sa' (AF_INET or AF_INET6). */
static uint32_t
endpoint_hash(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *) sa;

        return hash_int(in->sin_addr.s_addr, in->sin_port);
    } else {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;

        return hash_bytes(&in6->sin6_addr, sizeof in6->sin6_addr,
                          in6->sin6_port);
    }
}

void
wg_peer_endpoint_table_init(struct wg_endpoint_table *t)
{
    hmap_init(&t->map);
}

void
wg_peer_endpoint_table_destroy(struct wg_endpoint_table *t)
{
    ovs_assert(hmap_is_empty(&t->map));
    hmap_destroy(&t->map);
}

struct wg_peer *
wg_peer_endpoint_lookup(const struct wg_endpoint_table *t,
                        const struct sockaddr *sa, socklen_t len)
{
    struct wg_peer *peer;

    if (!sockaddr_len(sa, len)) {
        return NULL;
    }
    HMAP_FOR_EACH_WITH_HASH (peer, endpoint_node, endpoint_hash(sa),
                             &t->map) {
        if (endpoint_equal(&peer->endpoint, sa)) {
            return peer;
        }
    }
    return NULL;
}

/* Peers. */

static void
release_index(void *t_, uint32_t index)
{
    wg_peer_index_free(t_, index);
}

struct wg_peer *
wg_peer_create(const uint8_t pub[WG_KEY_LEN],
               const struct wg_noise_identity *id, struct wg_index_table *t,
               struct wg_endpoint_table *endpoints)
{
    struct wg_peer *peer;

    if (wg_crypto_is_zero(pub, WG_KEY_LEN)) {
        return NULL;
    }
    peer = xzalloc(sizeof *peer);
    peer->indices = t;
    peer->endpoints = endpoints;
    peer->rx_n_classes = 1;
    memcpy(peer->public_key, pub, WG_KEY_LEN);
    wg_noise_handshake_init(&peer->handshake, id, pub);
    peer->keypairs.release_index = release_index;
    peer->keypairs.release_aux = t;
    wg_cookie_maker_init(&peer->cookie, pub);
    wg_timers_init(&peer->timers);
    return peer;
}

/* Wipes and frees 'peer' a grace period after it was destroyed. */
static void
wg_peer_free(struct wg_peer *peer)
{
    wg_crypto_wipe(peer, sizeof *peer);
    free(peer);
}

void
wg_peer_destroy(struct wg_peer *peer)
{
    if (peer) {
        wg_peer_set_endpoint(peer, NULL, 0);
        wg_peer_clear_sessions(peer);
        wg_noise_handshake_destroy(&peer->handshake);
        wg_cookie_maker_clear(&peer->cookie);
        ovsrcu_postpone(wg_peer_free, peer);
    }
}

void
wg_peer_clear_handshake(struct wg_peer *peer)
{
    wg_peer_index_free(peer->indices, peer->handshake.local_index);
    wg_noise_handshake_clear(&peer->handshake);
}

void
wg_peer_clear_sessions(struct wg_peer *peer)
{
    wg_peer_clear_handshake(peer);
    wg_noise_keypairs_clear(&peer->keypairs);
}

uint32_t
wg_peer_new_handshake_index(struct wg_peer *peer)
{
    wg_peer_index_free(peer->indices, peer->handshake.local_index);
    peer->handshake.local_index = 0;
    return wg_peer_index_alloc(peer->indices, peer);
}

/* Gives senders without the device's lock the current endpoint, freeing
 * the copy they may still read after a grace period. */
static void
publish_endpoint(struct wg_peer *peer)
{
    struct wg_peer_addr *old = ovsrcu_get_protected(struct wg_peer_addr *,
                                                    &peer->endpoint_rcu);
    struct wg_peer_addr *new = NULL;

    if (peer->endpoint_len) {
        new = xzalloc(sizeof *new);
        memcpy(&new->ss, &peer->endpoint, peer->endpoint_len);
        new->len = peer->endpoint_len;
    }
    ovsrcu_set(&peer->endpoint_rcu, new);
    if (old) {
        ovsrcu_postpone(free, old);
    }
}

bool
wg_peer_set_endpoint(struct wg_peer *peer, const struct sockaddr *sa,
                     socklen_t len)
{
    len = sa ? sockaddr_len(sa, len) : 0;
    if (sa && !len) {
        return false;
    }
    if (peer->endpoint_len) {
        hmap_remove(&peer->endpoints->map, &peer->endpoint_node);
    }
    memset(&peer->endpoint, 0, sizeof peer->endpoint);
    peer->endpoint_len = len;
    if (len) {
        memcpy(&peer->endpoint, sa, len);
        hmap_insert(&peer->endpoints->map, &peer->endpoint_node,
                    endpoint_hash(sa));
    }
    publish_endpoint(peer);
    return true;
}

bool
wg_peer_endpoint_copy(const struct wg_peer *peer,
                      struct sockaddr_storage *ss, socklen_t *len)
{
    const struct wg_peer_addr *a = ovsrcu_get(struct wg_peer_addr *,
                                              &peer->endpoint_rcu);

    if (!a) {
        return false;
    }
    memcpy(ss, &a->ss, a->len);
    *len = a->len;
    return true;
}

bool
wg_peer_endpoint_is(const struct wg_peer *peer, const struct sockaddr *sa,
                    socklen_t len)
{
    const struct wg_peer_addr *a = ovsrcu_get(struct wg_peer_addr *,
                                              &peer->endpoint_rcu);

    return a && sockaddr_len(sa, len) && endpoint_equal(&a->ss, sa);
}

bool
wg_peer_update_endpoint(struct wg_peer *peer, const struct sockaddr *sa,
                        socklen_t len)
{
    if (!sa || !sockaddr_len(sa, len)
        || (peer->endpoint_len && endpoint_equal(&peer->endpoint, sa))) {
        return false;
    }
    return wg_peer_set_endpoint(peer, sa, len);
}

const char *
wg_peer_name(const struct wg_peer *peer, char buf[WG_PEER_NAME_LEN])
{
    char b64[WG_KEY_B64_LEN];

    wg_crypto_key_to_base64(b64, peer->public_key);
    snprintf(buf, WG_PEER_NAME_LEN, "%.8s...", b64);
    return buf;
}
