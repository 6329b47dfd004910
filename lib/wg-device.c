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

#include <endian.h>
#include <errno.h>
#include <string.h>
#include "coverage.h"
#include "hash.h"
#include "openvswitch/vlog.h"
#include "timeval.h"
#include "util.h"
#include "wg-allowedips.h"
#include "wg-device-private.h"
#include "wg-messages.h"
#include "wg-ratelimiter.h"
#include "wg-test-hooks.h"

/* The device's core: its clocks, lifecycle and identity, handshake load
 * and peers (adding, removing, walking, their keys, endpoints and allowed
 * IPs).  It calls none of the device's other files: the send side
 * (wg-device-tx.c), the receive side (wg-device-rx.c) and the timers
 * (wg-device-timers.c) are built on it. */

VLOG_DEFINE_THIS_MODULE(wg_device);

COVERAGE_DEFINE(wg_under_load_enter);

/* Clocks. */

long long int
wg_device_now(const struct wg_device *dev)
{
    if (dev->clock_frozen) {
        return dev->frozen_now_ms;
    }
    return dev->hooks.now_ms ? dev->hooks.now_ms(dev->aux) : time_msec();
}

void
wg_device_clock_freeze(struct wg_device *dev)
{
    dev->frozen_now_ms = wg_device_now(dev);
    dev->clock_frozen = true;
}

void
wg_device_clock_thaw(struct wg_device *dev)
{
    dev->clock_frozen = false;
}

void
wg_device_wall_clock(const struct wg_device *dev, struct timespec *ts)
{
    if (dev->hooks.wall_clock) {
        dev->hooks.wall_clock(dev->aux, ts);
    } else {
        clock_gettime(CLOCK_REALTIME, ts);
    }
}

/* Lifecycle and identity. */

struct wg_device *
wg_device_create(const struct wg_device_hooks *hooks, void *aux)
{
    struct wg_device *dev = xzalloc(sizeof *dev);

    ovs_assert(hooks && hooks->send);
    wg_crypto_init();
    dev->hooks = *hooks;
    dev->aux = aux;
    hmap_init(&dev->peers_by_key);
    ovs_list_init(&dev->peers);
    ovs_list_init(&dev->initiations_wanted);
    heap_init(&dev->due_peers);
    dev->run_asked_ms = WG_TIMER_OFF;
    wg_peer_index_table_init(&dev->indices);
    wg_peer_endpoint_table_init(&dev->endpoints);
    dev->allowedips = wg_allowedips_create();
    dev->ratelimiter = wg_ratelimiter_create(0);
    wg_cookie_checker_init(&dev->cookie_checker, NULL);
    dev->rekey_after_messages = WG_REKEY_AFTER_MESSAGES;
    atomic_init(&dev->mtu, 0);
    atomic_init(&dev->unlocked_work, false);
    dev->aead = wg_crypto_aead_default();
    return dev;
}

void
wg_device_destroy(struct wg_device *dev)
{
    if (dev) {
        wg_device_peer_remove_all(dev);
        wg_device_peer_walk_destroy(&dev->ss_walk);
        heap_destroy(&dev->due_peers);
        hmap_destroy(&dev->peers_by_key);
        wg_peer_index_table_destroy(&dev->indices);
        wg_peer_endpoint_table_destroy(&dev->endpoints);
        wg_allowedips_destroy(dev->allowedips);
        wg_ratelimiter_destroy(dev->ratelimiter);
        wg_noise_identity_clear(&dev->identity);
        wg_cookie_checker_clear(&dev->cookie_checker);
        wg_crypto_wipe(dev, sizeof *dev);
        free(dev);
    }
}

/* Removes the peer with public key 'pub', if any, calling 'removing' (if
 * nonnull) first. */
static void
remove_peer_with_key(struct wg_device *dev, const uint8_t pub[WG_KEY_LEN],
                     void (*removing)(void *aux, struct wg_peer *),
                     void *aux)
{
    struct wg_peer *peer = wg_device_peer_lookup(dev, pub);

    if (peer) {
        if (removing) {
            removing(aux, peer);
        }
        wg_device_peer_remove(dev, peer);
    }
}

/* The static-static DH after a key change.
 *
 * X25519 costs tens of microseconds, so computing it for every peer of a
 * port with 10,000 of them would hold the port's lock (and stall its
 * forwarding) for a second.  A key change only forgets every peer's
 * secret and starts a walk over the peers ('ss_walk'); a wg_device_run()
 * then computes it for at most WG_DEVICE_SS_PER_RUN of them, and the next
 * slice is due WG_DEVICE_SS_PACE_MS later: the lock is released in
 * between, and a port whose forwarding shares the main thread (type
 * "wireguard") gets most of it meanwhile.  A peer whose secret is needed
 * before the walk reaches it (an initiation to send or to answer) gets it
 * on demand (wg_device_peer_static_ready()), so a handshake works right
 * after the change.  Another key change during the walk starts it over: every
 * secret computed is for the identity of the moment, as the walk and the
 * on-demand path both read 'dev->identity'.  A peer's key is checked to
 * give a nonzero DH when it is added, so a secret that is not valid while
 * the device has a key is one not computed yet. */

bool
wg_device_peer_static_ready(struct wg_device *dev, struct wg_peer *peer)
{
    return (peer->handshake.static_static_valid
            || (dev->identity.has_key
                && wg_noise_handshake_precompute(&peer->handshake,
                                                 &dev->identity)));
}

bool
wg_device_static_run(struct wg_device *dev, size_t max, long long int now)
{
    const struct wg_peer *peer;

    if (!wg_device_peer_walk_started(&dev->ss_walk)) {
        return false;
    } else if (now < dev->ss_next_ms) {
        return true;
    }
    dev->ss_next_ms = now + WG_DEVICE_SS_PACE_MS;
    for (size_t i = 0; i < max; i++) {
        peer = wg_device_peer_walk_next(&dev->ss_walk, dev);
        if (!peer) {
            wg_device_peer_walk_destroy(&dev->ss_walk);
            return false;
        }
        wg_device_peer_static_ready(dev, CONST_CAST(struct wg_peer *, peer));
    }
    return true;
}

long long int
wg_device_static_due(const struct wg_device *dev)
{
    return (wg_device_peer_walk_started(&dev->ss_walk) ? dev->ss_next_ms
            : LLONG_MAX);
}

/* After an identity change: fresh cookie keys, every peer's handshake
 * dropped and its static-static DH forgotten, to be computed anew by the
 * next runs (see above).  Its sessions send no more (the next message
 * starts a handshake with the new key) but still receive until they
 * expire or the peer sends on a session of the new key: until it learns
 * the new key the peer goes on sending on them, and what it sends
 * meanwhile (a stream's ACKs) is not lost; after, nothing of the old
 * sessions is accepted.  Without a key, nothing is sent or received: the
 * sessions go with it. */
static void
peer_identity_changed(struct wg_peer *peer, bool has_key)
{
    if (has_key) {
        wg_peer_clear_handshake(peer);
        wg_noise_keypairs_identity_changed(&peer->keypairs);
        wg_timers_reset_initiation_limit(&peer->timers);
    } else {
        wg_peer_clear_sessions(peer);
        wg_timers_stop(&peer->timers);
    }
    peer->handshake.static_static_valid = false;
    wg_crypto_wipe(peer->handshake.precomputed_static_static, WG_KEY_LEN);
}

static void
identity_changed(struct wg_device *dev)
{
    struct wg_peer *peer;

    wg_cookie_checker_init(&dev->cookie_checker,
                           dev->identity.has_key
                           ? dev->identity.static_public : NULL);
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        peer_identity_changed(peer, dev->identity.has_key);
    }
    wg_device_peer_walk_destroy(&dev->ss_walk);
    if (dev->identity.has_key) {
        wg_device_peer_walk_start(&dev->ss_walk, dev);
        dev->ss_next_ms = LLONG_MIN;    /* The first slice at once. */
    }
}

int
wg_device_set_private_key(struct wg_device *dev,
                          const uint8_t priv[WG_KEY_LEN])
{
    struct wg_noise_identity id;

    memset(&id, 0, sizeof id);
    if (!wg_noise_identity_set(&id, priv)) {
        return EINVAL;
    }
    if (id.has_key == dev->identity.has_key
        && !memcmp(&id, &dev->identity, sizeof id)) {
        wg_noise_identity_clear(&id);
        return 0;
    }
    if (id.has_key) {
        remove_peer_with_key(dev, id.static_public, NULL, NULL);
    }
    dev->identity = id;
    wg_noise_identity_clear(&id);
    identity_changed(dev);
    return 0;
}

bool
wg_device_get_private_key(const struct wg_device *dev,
                          uint8_t priv[WG_KEY_LEN])
{
    if (dev->identity.has_key) {
        memcpy(priv, dev->identity.static_private, WG_KEY_LEN);
    }
    return dev->identity.has_key;
}

bool
wg_device_get_public_key(const struct wg_device *dev,
                         uint8_t pub[WG_KEY_LEN])
{
    if (dev->identity.has_key) {
        memcpy(pub, dev->identity.static_public, WG_KEY_LEN);
    }
    return dev->identity.has_key;
}

#ifdef WG_TEST_HOOKS
void
wg_device_set_rekey_after_messages_for_test(struct wg_device *dev,
                                            uint64_t n)
{
    dev->rekey_after_messages = MIN(n, WG_REKEY_AFTER_MESSAGES);
}
#endif

bool
wg_device_set_aead(struct wg_device *dev,
                   enum wg_crypto_aead_backend backend)
{
    struct wg_peer *peer;

    if (backend == dev->aead) {
        return false;
    }
    dev->aead = backend;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        peer->keypairs.aead = backend;
    }
    return true;
}

enum wg_crypto_aead_backend
wg_device_get_aead(const struct wg_device *dev)
{
    return dev->aead;
}

void
wg_device_set_mtu(struct wg_device *dev, unsigned int mtu)
{
    atomic_store_relaxed(&dev->mtu, mtu);
}

/* Load. */

/* Records that 'dev' is under load at 'now', counting and logging the
 * transition into that state. */
static void
mark_under_load(struct wg_device *dev, long long int now)
{
    static struct vlog_rate_limit load_rl = VLOG_RATE_LIMIT_INIT(1, 5);

    if (!wg_device_is_under_load(dev)) {
        COVERAGE_INC(wg_under_load_enter);
        VLOG_INFO_RL(&load_rl, "under handshake load: initiations without a "
                     "valid mac2 get cookie replies, rate limited per "
                     "source");
    }
    dev->load_seen = true;
    dev->last_under_load_ms = now;
}

void
wg_device_note_pending_handshakes(struct wg_device *dev, size_t n)
{
    if (n >= WG_UNDER_LOAD_PENDING_HANDSHAKES) {
        mark_under_load(dev, wg_device_now(dev));
    }
}

void
wg_device_count_handshake(struct wg_device *dev, long long int now)
{
    if (now - dev->load_window_start_ms >= WG_UNDER_LOAD_WINDOW_MS) {
        dev->load_window_start_ms = now;
        dev->load_window_handshakes = 0;
    }
    if (++dev->load_window_handshakes >= WG_UNDER_LOAD_WINDOW_HANDSHAKES) {
        mark_under_load(dev, now);
    }
}

bool
wg_device_is_handshake_msg(const void *msg, size_t len)
{
    const uint8_t *type = msg;

    return ((len == WG_MSG_INITIATION_LEN && type[0] == WG_MSG_INITIATION)
            || (len == WG_MSG_RESPONSE_LEN && type[0] == WG_MSG_RESPONSE));
}

bool
wg_device_is_under_load(const struct wg_device *dev)
{
    return (dev->forced_under_load
            || (dev->load_seen
                && wg_device_now(dev) - dev->last_under_load_ms
                   < WG_UNDER_LOAD_HOLD_MS));
}

/* Peers. */

static uint32_t
key_hash(const uint8_t pub[WG_KEY_LEN])
{
    return hash_bytes(pub, WG_KEY_LEN, 0);
}

struct wg_peer *
wg_device_peer_lookup(const struct wg_device *dev,
                      const uint8_t pub[WG_KEY_LEN])
{
    struct wg_peer *peer;

    HMAP_FOR_EACH_WITH_HASH (peer, key_node, key_hash(pub),
                             &dev->peers_by_key) {
        if (!memcmp(peer->public_key, pub, WG_KEY_LEN)) {
            return peer;
        }
    }
    return NULL;
}

/* True if X25519 with 'pub' gives zero (all-zero or low-order point). */
static bool
key_is_unusable(const uint8_t pub[WG_KEY_LEN])
{
    uint8_t priv[WG_KEY_LEN], shared[WG_KEY_LEN];
    bool bad;

    wg_crypto_generate_private_key(priv);
    bad = !wg_crypto_dh(shared, priv, pub);
    wg_crypto_wipe(priv, sizeof priv);
    wg_crypto_wipe(shared, sizeof shared);
    return bad;
}

/* Gives 'peer' the next receive class, round robin. */
static void
wg_device_next_rx_class(struct wg_device *dev, struct wg_peer *peer)
{
    peer->rx_n_classes = MAX(dev->rx_n_classes, 1);
    peer->rx_class = dev->rx_next_class++ % peer->rx_n_classes;
    dev->rx_next_class %= peer->rx_n_classes;
}

/* The priority of a peer whose timers are next due at 'when' in the
 * device's heap, which puts the highest first. */
static uint64_t
due_priority(long long int when)
{
    return (uint64_t) LLONG_MAX - (uint64_t) MAX(when, 0);
}

/* When the timers of 'peer' are due, as its place in the heap says. */
long long int
wg_device_peer_due_ms(const struct wg_peer *peer)
{
    return LLONG_MAX - (long long int) peer->due_node.priority;
}

/* Puts 'peer' in its device's heap as due at 'when'. */
void
wg_device_peer_set_due(struct wg_peer *peer, long long int when)
{
    heap_change(peer->due_heap, &peer->due_node, due_priority(when));
}

/* The 'armed' hook of the timers of peer 'peer_': a timer of the peer was
 * set to go off at 'when'. */
static void
peer_timer_armed(void *peer_, long long int when)
{
    struct wg_peer *peer = peer_;

    if (when < wg_device_peer_due_ms(peer)) {
        wg_device_peer_set_due(peer, when);
    }
}

int
wg_device_peer_add(struct wg_device *dev, const uint8_t pub[WG_KEY_LEN],
                   struct wg_peer **peerp)
{
    struct wg_peer *peer;

    *peerp = NULL;
    if (wg_device_peer_lookup(dev, pub)) {
        return EEXIST;
    }
    if (key_is_unusable(pub)
        || (dev->identity.has_key
            && !memcmp(pub, dev->identity.static_public, WG_KEY_LEN))) {
        return EINVAL;
    }
    peer = wg_peer_create(pub, &dev->identity, &dev->indices,
                          &dev->endpoints);
    if (!peer) {
        return EINVAL;
    }
    peer->keypairs.aead = dev->aead;
    peer->due_heap = &dev->due_peers;
    heap_insert(&dev->due_peers, &peer->due_node, due_priority(WG_TIMER_OFF));
    peer->timers.armed = peer_timer_armed;
    peer->timers.armed_aux = peer;
    wg_device_next_rx_class(dev, peer);
    hmap_insert(&dev->peers_by_key, &peer->key_node, key_hash(pub));
    ovs_list_push_back(&dev->peers, &peer->list_node);
    *peerp = peer;
    return 0;
}

void
wg_device_peer_remove(struct wg_device *dev, struct wg_peer *peer)
{
    if (peer->initiation_wanted) {
        ovs_list_remove(&peer->wanted_node);
    }
    wg_allowedips_remove_peer(dev->allowedips, peer);
    hmap_remove(&dev->peers_by_key, &peer->key_node);
    ovs_list_remove(&peer->list_node);
    heap_remove(&dev->due_peers, &peer->due_node);
    wg_peer_destroy(peer);
}

void
wg_device_peer_remove_own(struct wg_device *dev,
                          const uint8_t priv[WG_KEY_LEN],
                          void (*removing)(void *aux, struct wg_peer *),
                          void *aux)
{
    uint8_t pub[WG_KEY_LEN];

    if (wg_crypto_public_key(pub, priv)) {
        remove_peer_with_key(dev, pub, removing, aux);
    }
}

void
wg_device_peer_remove_all(struct wg_device *dev)
{
    struct wg_peer *peer;

    LIST_FOR_EACH_SAFE (peer, list_node, &dev->peers) {
        wg_device_peer_remove(dev, peer);
    }
}

struct wg_peer *
wg_device_peer_first(const struct wg_device *dev)
{
    struct wg_peer *peer;

    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        return peer;
    }
    return NULL;
}

struct wg_peer *
wg_device_peer_next(const struct wg_device *dev, const struct wg_peer *peer)
{
    return (peer->list_node.next == &dev->peers ? NULL
            : CONTAINER_OF(peer->list_node.next, struct wg_peer, list_node));
}

size_t
wg_device_peer_count(const struct wg_device *dev)
{
    return hmap_count(&dev->peers_by_key);
}

void
wg_device_peer_walk_start(struct wg_device_peer_walk *walk,
                          const struct wg_device *dev)
{
    const struct wg_peer *peer;

    walk->keys = xmalloc(MAX(1, wg_device_peer_count(dev))
                         * sizeof *walk->keys);
    walk->n = walk->next = 0;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        memcpy(walk->keys[walk->n++], peer->public_key, WG_KEY_LEN);
    }
}

bool
wg_device_peer_walk_started(const struct wg_device_peer_walk *walk)
{
    return walk->keys != NULL;
}

const struct wg_peer *
wg_device_peer_walk_next(struct wg_device_peer_walk *walk,
                         const struct wg_device *dev)
{
    while (walk->next < walk->n) {
        const struct wg_peer *peer
            = wg_device_peer_lookup(dev, walk->keys[walk->next++]);

        if (peer) {
            return peer;
        }
    }
    return NULL;
}

void
wg_device_peer_walk_destroy(struct wg_device_peer_walk *walk)
{
    free(walk->keys);
    memset(walk, 0, sizeof *walk);
}

bool
wg_device_peer_get_psk(const struct wg_device *dev OVS_UNUSED,
                       const struct wg_peer *peer, uint8_t psk[WG_KEY_LEN])
{
    if (!peer->has_psk) {
        return false;
    }
    memcpy(psk, peer->handshake.preshared_key, WG_KEY_LEN);
    return true;
}

void
wg_device_peer_set_psk(struct wg_device *dev OVS_UNUSED,
                       struct wg_peer *peer, const uint8_t psk[WG_KEY_LEN])
{
    peer->has_psk = psk && !wg_crypto_is_zero(psk, WG_KEY_LEN);
    wg_noise_handshake_set_psk(&peer->handshake, peer->has_psk ? psk : NULL);
}

int
wg_device_peer_set_endpoint(struct wg_device *dev OVS_UNUSED,
                            struct wg_peer *peer, const struct sockaddr *sa,
                            socklen_t len)
{
    return wg_peer_set_endpoint(peer, sa, len) ? 0 : EAFNOSUPPORT;
}

const struct sockaddr *
wg_device_peer_endpoint(const struct wg_peer *peer, socklen_t *lenp)
{
    if (lenp) {
        *lenp = peer->endpoint_len;
    }
    return (peer->endpoint_len
            ? (const struct sockaddr *) &peer->endpoint : NULL);
}


int
wg_device_peer_allowed_ip_add(struct wg_device *dev, struct wg_peer *peer,
                              int family, const void *addr,
                              unsigned int prefix_len)
{
    return wg_allowedips_insert(dev->allowedips, family, addr, prefix_len,
                                peer);
}

void
wg_device_peer_allowed_ips_clear(struct wg_device *dev, struct wg_peer *peer)
{
    wg_allowedips_remove_peer(dev->allowedips, peer);
}

void
wg_device_peer_allowed_ips_walk(const struct wg_device *dev,
                                const struct wg_peer *peer,
                                void (*cb)(void *aux, int family,
                                           const uint8_t *addr,
                                           unsigned int prefix_len),
                                void *aux)
{
    wg_allowedips_walk_peer(dev->allowedips, peer, cb, aux);
}

struct wg_peer *
wg_device_route(const struct wg_device *dev, int family, const void *addr)
{
    return wg_allowedips_lookup(dev->allowedips, family, addr);
}

/* A counter that unlocked callers add to. */
static uint64_t
read_u64(const atomic_uint64_t *var)
{
    uint64_t value;

    atomic_read_relaxed(CONST_CAST(atomic_uint64_t *, var), &value);
    return value;
}

void
wg_device_peer_get_info(const struct wg_device *dev,
                        const struct wg_peer *peer,
                        struct wg_peer_info *info)
{
    memset(info, 0, sizeof *info);
    memcpy(info->public_key, peer->public_key, WG_KEY_LEN);
    info->has_psk = peer->has_psk;
    info->endpoint = peer->endpoint;
    info->endpoint_len = peer->endpoint_len;
    info->last_handshake = peer->last_handshake;
    info->rx_bytes = peer->rx_bytes + read_u64(&peer->unlocked_rx_bytes);
    info->rx_packets = (peer->rx_packets
                        + read_u64(&peer->unlocked_rx_packets));
    info->tx_bytes = peer->tx_bytes + read_u64(&peer->unlocked_tx_bytes);
    info->tx_packets = (peer->tx_packets
                        + read_u64(&peer->unlocked_tx_packets));
    info->persistent_keepalive_s = peer->timers.persistent_keepalive_s;
    info->has_session = wg_device_peer_has_session(dev, peer);
}

void
wg_device_peer_set_user_data(struct wg_peer *peer, void *data)
{
    peer->user_data = data;
}

void
wg_device_set_rx_classes(struct wg_device *dev, unsigned int n)
{
    struct wg_peer *peer;

    ovs_assert(n >= 1 && n <= 256);
    dev->rx_n_classes = n;
    dev->rx_next_class = 0;
    LIST_FOR_EACH (peer, list_node, &dev->peers) {
        wg_device_next_rx_class(dev, peer);
    }
}

unsigned int
wg_device_peer_rx_class(const struct wg_peer *peer)
{
    return peer->rx_class;
}

void *
wg_device_peer_get_user_data(const struct wg_peer *peer)
{
    return peer->user_data;
}

bool
wg_device_peer_has_session(const struct wg_device *dev,
                           const struct wg_peer *peer)
{
    return wg_noise_keypair_can_send(
        wg_noise_keypairs_current(&peer->keypairs), wg_device_now(dev));
}

#ifdef WG_TEST_HOOKS
/* Test-only accessors (test builds, wg-test-hooks.h). */

void
wg_device_set_under_load_for_test(struct wg_device *dev, bool under_load)
{
    dev->forced_under_load = under_load;
}

void
wg_device_get_sizes_for_test(const struct wg_device *dev,
                             struct wg_device_sizes *sizes)
{
    sizes->n_peers = hmap_count(&dev->peers_by_key);
    sizes->n_prefixes = wg_allowedips_count(dev->allowedips);
    sizes->n_trie_nodes = wg_allowedips_n_nodes(dev->allowedips);
    sizes->n_prefix_lists = wg_allowedips_n_peers(dev->allowedips);
    sizes->n_indices = wg_peer_index_count(&dev->indices);
    sizes->n_due = heap_count(&dev->due_peers);
}
#endif
